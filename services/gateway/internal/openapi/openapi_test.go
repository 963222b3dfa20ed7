package openapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	yaml "go.yaml.in/yaml/v4"

	"hookline.dev/pkg/platform/httpx"
)

func load(t *testing.T) *Document {
	t.Helper()
	d, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDocumentIsValidOpenAPI31 validates the compiled document with
// kin-openapi, JSON Schema 2020-12 semantics included, and checks that the
// served JSON reloads to the same document.
func TestDocumentIsValidOpenAPI31(t *testing.T) {
	d := load(t)
	if !d.Spec.IsOpenAPI31OrLater() || d.Spec.OpenAPI != "3.1.0" {
		t.Fatalf("openapi = %q, want 3.1.0", d.Spec.OpenAPI)
	}
	if err := d.Validate(t.Context()); err != nil {
		t.Fatalf("invalid OpenAPI 3.1: %v", err)
	}
	var tree map[string]any
	if err := json.Unmarshal(d.JSON, &tree); err != nil {
		t.Fatal(err)
	}
	if _, ok := tree[anchorsKey]; ok {
		t.Fatalf("%s leaked into the served JSON", anchorsKey)
	}
	again, err := openapi3.NewLoader().LoadFromData(d.JSON)
	if err != nil || again.Paths.Len() != d.Spec.Paths.Len() {
		t.Fatalf("served JSON does not reload: %v", err)
	}
}

// TestOperationsAreComplete holds every operation to the conventions the
// clients rely on: an id, a tag, the error envelope on every error, the
// Idempotency-Key on every POST, 415 wherever a JSON body is taken, and no
// x-hookline-status: every endpoint is served, and the old "planned" marker
// must not come back unnoticed.
func TestOperationsAreComplete(t *testing.T) {
	d := load(t)
	ids := map[string]string{}
	for path, item := range d.Spec.Paths.Map() {
		if service, _ := item.Extensions["x-hookline-service"].(string); service == "" {
			t.Errorf("%s: no x-hookline-service", path)
		}
		if status, ok := item.Extensions["x-hookline-status"]; ok {
			t.Errorf("%s: x-hookline-status %v; every endpoint is served", path, status)
		}
		for method, op := range item.Operations() {
			name := method + " " + path
			if op.OperationID == "" || len(op.Tags) == 0 || op.Summary == "" {
				t.Errorf("%s: needs operationId, tags and summary", name)
			}
			if prev, dup := ids[op.OperationID]; dup {
				t.Errorf("%s: operationId %q already used by %s", name, op.OperationID, prev)
			}
			ids[op.OperationID] = name
			if status, ok := op.Extensions["x-hookline-status"]; ok {
				t.Errorf("%s: x-hookline-status %v; every endpoint is served", name, status)
			}
			hasKey := false
			for _, p := range op.Parameters {
				hasKey = hasKey || p.Value.Name == "Idempotency-Key"
			}
			// POST /mcp carries JSON-RPC, where MCP has no retry to dedupe.
			if hasKey != (method == http.MethodPost && path != "/mcp") {
				t.Errorf("%s: Idempotency-Key documented = %v", name, hasKey)
			}
			if op.RequestBody != nil && op.Responses.Status(415) == nil {
				t.Errorf("%s: takes a JSON body but documents no 415", name)
			}
			for status, r := range op.Responses.Map() {
				if status[0] < '4' {
					continue
				}
				mt := r.Value.Content.Get("application/json")
				if mt == nil || mt.Schema == nil {
					t.Errorf("%s %s: no JSON error body", name, status)
					continue
				}
				if !refersTo(mt.Schema, "#/components/schemas/Error") {
					t.Errorf("%s %s: error body is not the envelope", name, status)
				}
			}
		}
	}
}

func refersTo(s *openapi3.SchemaRef, ref string) bool {
	if s.Ref == ref {
		return true
	}
	for _, sub := range s.Value.AllOf {
		if refersTo(sub, ref) {
			return true
		}
	}
	return false
}

// TestErrorCodesMatchTheTable keeps the documented codes equal to
// ARCHITECTURE §6.
func TestErrorCodesMatchTheTable(t *testing.T) {
	d := load(t)
	var got []string
	for _, v := range d.Spec.Components.Schemas["ErrorCode"].Value.Enum {
		got = append(got, v.(string))
	}
	want := "invalid_request unsupported_prompt unauthorized insufficient_credits quota_exceeded not_found " +
		"method_not_allowed source_not_ready idempotency_conflict precondition_failed unsupported_media_type precondition_required rate_limited " +
		"internal unavailable provider_unavailable"
	if strings.Join(got, " ") != want {
		t.Fatalf("codes %v, want %s", got, want)
	}
}

// TestSchemasValidateRealBodies checks a few schemas against bodies the
// handlers produce, with the 3.1 validator the e2e tests use.
func TestSchemasValidateRealBodies(t *testing.T) {
	d := load(t)
	schema := func(name string) *openapi3.Schema { return d.Spec.Components.Schemas[name].Value }
	ok := map[string]string{
		"Error":                    `{"error":"x","code":"not_found","details":{}}`,
		"CollectionDetailResponse": `{"data":{"id":"7d0c1c5e-4d8e-4b59-9d1c-0c7d3a1f3b11","name":"n","description":null,"thumbnailCount":0,"createdAt":"2026-11-23T10:00:00Z","updatedAt":"2026-11-23T10:00:00Z","thumbnails":[]}}`,
		"CreditGrantRequest":       `{"credits":-5,"kind":"adjustment","reason":"chargeback"}`,
		"BrandCreate":              `{"domain":"example.com"}`,
		"CollectionMembership":     `{"thumbnailIds":["7d0c1c5e-4d8e-4b59-9d1c-0c7d3a1f3b11"]}`,
	}
	bad := map[string]string{
		"Error":                    `{"error":"x","code":"nope","details":{}}`,
		"CollectionDetailResponse": `{"data":{"id":"7d0c1c5e-4d8e-4b59-9d1c-0c7d3a1f3b11","name":"n","description":null,"thumbnailCount":0,"createdAt":"2026-11-23T10:00:00Z","updatedAt":"2026-11-23T10:00:00Z","thumbnails":[],"extra":1}}`,
		"CreditGrantRequest":       `{"credits":-5,"kind":"purchased","reason":"x"}`,
		"BrandCreate":              `{"domain":"example.com","colors":["#fff"]}`,
		"CollectionMembership":     `{"thumbnailId":"7d0c1c5e-4d8e-4b59-9d1c-0c7d3a1f3b11","thumbnailIds":[]}`,
	}
	check := func(name, body string) error {
		var v any
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatal(err)
		}
		return schema(name).VisitJSON(v, openapi3.EnableJSONSchema2020())
	}
	for name, body := range ok {
		if err := check(name, body); err != nil {
			t.Errorf("%s rejects %s: %v", name, body, err)
		}
	}
	for name, body := range bad {
		if err := check(name, body); err == nil {
			t.Errorf("%s accepts %s", name, body)
		}
	}
}

// TestServedWithETag: the JSON and the page carry an ETag, a revalidation
// with it is a 304 without a body, and the page lists every operation.
func TestServedWithETag(t *testing.T) {
	d := load(t)
	a := httpx.Adapter{}
	for _, c := range []struct {
		h    httpx.HandlerFunc
		ct   string
		body []byte
	}{{ServeJSON, "application/json", d.JSON}, {ServeDocs, "text/html; charset=utf-8", d.HTML}} {
		rec := httptest.NewRecorder()
		a.Wrap(c.h)(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		tag := rec.Header().Get("ETag")
		if rec.Code != 200 || rec.Header().Get("Content-Type") != c.ct || tag == "" || rec.Header().Get("Cache-Control") == "" ||
			rec.Body.String() != string(c.body) {
			t.Fatalf("%s: %d %v", c.ct, rec.Code, rec.Header())
		}
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set("If-None-Match", tag)
		rec = httptest.NewRecorder()
		a.Wrap(c.h)(rec, req)
		if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
			t.Fatalf("%s revalidation: %d, %d bytes", c.ct, rec.Code, rec.Body.Len())
		}
	}
	page := string(d.HTML)
	for path, item := range d.Spec.Paths.Map() {
		for method, op := range item.Operations() {
			if !strings.Contains(page, `id="op-`+anchor(op.OperationID)+`"`) {
				t.Errorf("docs page lacks %s %s", method, path)
			}
		}
	}
	for name := range d.Spec.Components.Schemas {
		if !strings.Contains(page, `id="schema-`+name+`"`) {
			t.Errorf("docs page lacks schema %s", name)
		}
	}
	for name := range d.Spec.Components.Responses {
		if !strings.Contains(page, `id="response-`+name+`"`) {
			t.Errorf("docs page lacks response %s", name)
		}
	}
	if strings.Contains(page, "<script") || strings.Contains(page, "http://") || strings.Contains(page, "https://") {
		t.Error("docs page must be self-contained: no scripts, no external resources")
	}
}

// TestNoStrayYAMLKeys guards against a YAML trap: an unquoted comma or
// colon inside a flow mapping ({description: a, b}) silently turns the rest
// of the text into a key. No key of the document contains a space.
func TestNoStrayYAMLKeys(t *testing.T) {
	var tree any
	if err := yaml.Unmarshal(source, &tree); err != nil {
		t.Fatal(err)
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if strings.ContainsAny(k, " \t") {
					t.Errorf("%s: stray key %q (quote the text before it)", path, k)
				}
				walk(path+"/"+k, x)
			}
		case []any:
			for _, x := range v {
				walk(path+"[]", x)
			}
		}
	}
	walk("", tree)
}
