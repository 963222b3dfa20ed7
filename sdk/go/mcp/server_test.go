package mcp

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// recorded is one request the API under test received.
type recorded struct {
	method, uri, auth, contentType, ifMatch string
	body                                    map[string]any
}

// recordingAPI answers every request with the envelope of a 402, as the
// API does for a paid call without credits, and keeps what it received,
// so a test sees exactly what a tool sent.
func recordingAPI(t *testing.T) (*httptest.Server, func() []recorded) {
	t.Helper()
	var mu sync.Mutex
	var got []recorded
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := recorded{method: r.Method, uri: r.URL.RequestURI(), auth: r.Header.Get("Authorization"), contentType: r.Header.Get("Content-Type"),
			ifMatch: r.Header.Get("If-Match")}
		raw, _ := io.ReadAll(r.Body)
		if len(raw) > 0 {
			_ = json.Unmarshal(raw, &rec.body)
		}
		mu.Lock()
		got = append(got, rec)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusPaymentRequired)
		_, _ = w.Write([]byte(`{"error":"not enough credits","code":"insufficient_credits","details":{"required":1,"available":0}}`))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []recorded {
		mu.Lock()
		defer mu.Unlock()
		return append([]recorded(nil), got...)
	}
}

// connect serves the fixture's tools to an in-memory client, as over
// stdio: no HTTP request carries the call, so cfg.APIKey pays.
func connect(t *testing.T, cfg Config) *sdk.ClientSession {
	t.Helper()
	d, err := parseDocument([]byte(fixture))
	if err != nil {
		t.Fatal(err)
	}
	delete(d.root["paths"].(map[string]any), "/api/v1/loops")
	// The fixture's operations, served under catalogue names for the test.
	saved := catalogue
	catalogue = append(catalogue[:0:0], saved...)
	catalogue = append(catalogue, struct{ operationID, tool string }{"updateBrand", "update_brand"},
		struct{ operationID, tool string }{"listThings", "list_things"}, struct{ operationID, tool string }{"createThings", "create_things"})
	t.Cleanup(func() { catalogue = saved })
	raw, _ := json.Marshal(d.root)
	srv, err := NewServer(raw, cfg)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := sdk.NewInMemoryTransports()
	if _, err := srv.Connect(t.Context(), st, nil); err != nil {
		t.Fatal(err)
	}
	session, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = session.Close() })
	return session
}

func TestToolsSendTheOperationAndReturnTheEnvelope(t *testing.T) {
	api, requests := recordingAPI(t)
	session := connect(t, Config{BaseURL: api.URL + "/api/v1/", APIKey: "hk_live_stdio"})
	tools, err := session.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != 3 {
		t.Fatalf("tools: %v %v", tools, err)
	}

	call := func(name string, args map[string]any) *sdk.CallToolResult {
		t.Helper()
		res, err := session.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	id := "7d0c1c5e-4d8e-4b59-9d1c-0c7d3a1f3b11"
	res := call("update_brand", map[string]any{"id": id, "domain": "acme.com", "If-Match": `"3"`})
	text := res.Content[0].(*sdk.TextContent).Text
	envelope, _ := res.StructuredContent.(map[string]any)
	if !res.IsError || envelope["code"] != "insufficient_credits" || envelope["status"] != float64(402) ||
		!strings.Contains(text, "not enough credits (code insufficient_credits, HTTP 402)") {
		t.Fatalf("402 as %v %v %q", res.IsError, res.StructuredContent, text)
	}
	// The envelope is what the tool's output schema admits: clients
	// validate structured content even when isError is set.
	var updateBrand *sdk.Tool
	for _, tool := range tools.Tools {
		if tool.Name == "update_brand" {
			updateBrand = tool
		}
	}
	if err := conforms(updateBrand.OutputSchema, res.StructuredContent); err != nil {
		t.Fatalf("the 402's structured content contradicts the output schema: %v", err)
	}
	if err := conforms(updateBrand.OutputSchema, map[string]any{"data": "Acme"}); err != nil {
		t.Fatalf("the output schema refuses a success: %v", err)
	}
	if conforms(updateBrand.OutputSchema, map[string]any{"code": "insufficient_credits"}) == nil {
		t.Fatal("the output schema admits an envelope without its message")
	}
	call("list_things", map[string]any{"page": 2, "tag": []any{"a", "b c"}})
	call("create_things", map[string]any{"body": []any{map[string]any{"name": "x"}}})
	// Arguments that do not fit are refused before any request.
	for _, bad := range []struct {
		tool string
		args map[string]any
	}{
		{"update_brand", map[string]any{"domain": "acme.com"}},
		{"list_things", map[string]any{"colour": "red"}},
		{"create_things", map[string]any{"body": []any{}, "extra": 1}},
	} {
		if res := call(bad.tool, bad.args); !res.IsError || res.StructuredContent != nil {
			t.Errorf("%s %v: %v", bad.tool, bad.args, res.Content[0].(*sdk.TextContent).Text)
		}
	}

	got := requests()
	if len(got) != 3 {
		t.Fatalf("%d requests: %+v", len(got), got)
	}
	want := []recorded{
		{method: "PATCH", uri: "/api/v1/brands/" + id, body: map[string]any{"domain": "acme.com"}, ifMatch: `"3"`},
		{method: "GET", uri: "/api/v1/things?page=2&tag=a&tag=b+c"},
		{method: "POST", uri: "/api/v1/things"},
	}
	for i, w := range want {
		g := got[i]
		if g.method != w.method || g.uri != w.uri || g.auth != "Bearer hk_live_stdio" || g.ifMatch != w.ifMatch {
			t.Errorf("request %d: %s %s (%s), want %s %s", i, g.method, g.uri, g.auth, w.method, w.uri)
		}
		if (g.contentType == "application/json") != (g.method != "GET") {
			t.Errorf("request %d: Content-Type %q", i, g.contentType)
		}
		if w.body != nil && (len(g.body) != len(w.body) || g.body["domain"] != w.body["domain"]) {
			t.Errorf("request %d: body %v, want %v", i, g.body, w.body)
		}
	}
}

// conforms validates v, as JSON, against a schema as a client receives it.
func conforms(schema, v any) error {
	raw, err := json.Marshal(schema)
	if err != nil {
		return err
	}
	var js jsonschema.Schema
	if err := json.Unmarshal(raw, &js); err != nil {
		return err
	}
	resolved, err := js.Resolve(nil)
	if err != nil {
		return err
	}
	raw, err = json.Marshal(v)
	if err != nil {
		return err
	}
	var instance any
	if err := json.Unmarshal(raw, &instance); err != nil {
		return err
	}
	return resolved.Validate(instance)
}

// An error answer that is not the envelope (a proxy's 502 page) is a tool
// error in text only: as structured content it would contradict the
// output schema.
func TestAnErrorWithoutTheEnvelopeIsTextOnly(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte("<html>502 Bad Gateway</html>"))
	}))
	t.Cleanup(api.Close)
	session := connect(t, Config{BaseURL: api.URL})
	res, err := session.CallTool(t.Context(), &sdk.CallToolParams{Name: "list_things", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*sdk.TextContent).Text; !res.IsError || res.StructuredContent != nil || len(res.Content) != 1 ||
		!strings.Contains(text, "502 Bad Gateway") || !strings.Contains(text, "http_502") {
		t.Fatalf("502: error=%v structured=%v %q", res.IsError, res.StructuredContent, text)
	}
}

// The server advertises what it does: tools, whose list never changes,
// and nothing else (no list_changed notification, no logging).
func TestCapabilitiesAreOnlyTools(t *testing.T) {
	session := connect(t, Config{BaseURL: "http://api.test"})
	raw, err := json.Marshal(session.InitializeResult().Capabilities)
	if err != nil || string(raw) != `{"tools":{}}` {
		t.Fatalf("capabilities %s %v, want only tools", raw, err)
	}
}

// Over Streamable HTTP the Authorization of the MCP request pays: two
// callers of one handler are each charged on their own key.
func TestStreamableHTTPPassesTheCallersKey(t *testing.T) {
	api, requests := recordingAPI(t)
	d, _ := parseDocument([]byte(fixture))
	delete(d.root["paths"].(map[string]any), "/api/v1/loops")
	raw, _ := json.Marshal(d.root)
	saved := catalogue
	catalogue = append(catalogue[:0:0], struct{ operationID, tool string }{"listThings", "list_things"})
	t.Cleanup(func() { catalogue = saved })
	h, err := NewHandler(raw, Config{BaseURL: api.URL}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	mcpSrv := httptest.NewServer(h)
	t.Cleanup(mcpSrv.Close)
	for _, key := range []string{"hk_live_a", "hk_live_b"} {
		client := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil)
		session, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{
			Endpoint: mcpSrv.URL, HTTPClient: &http.Client{Transport: bearer(key)}, MaxRetries: -1,
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := session.CallTool(t.Context(), &sdk.CallToolParams{Name: "list_things", Arguments: map[string]any{}}); err != nil {
			t.Fatal(err)
		}
		_ = session.Close()
	}
	got := requests()
	if len(got) != 2 || got[0].auth != "Bearer hk_live_a" || got[1].auth != "Bearer hk_live_b" {
		t.Fatalf("requests %+v", got)
	}
}

type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}
