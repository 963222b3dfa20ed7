package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// fixture is a small OpenAPI 3.1 document with the shapes the conversion
// must handle: shared and referenced parameters, a body that is a $ref with
// a oneOf of closed objects, a $ref with sibling keywords, OpenAPI-only
// keywords, a non-object body, and a property named like an OpenAPI
// keyword.
const fixture = `{
  "openapi": "3.1.0",
  "info": {"title": "t", "version": "1"},
  "paths": {
    "/api/v1/brands/{id}": {
      "parameters": [{"$ref": "#/components/parameters/id"}, {"name": "X-Request-ID", "in": "header", "schema": {"type": "string"}}],
      "patch": {
        "operationId": "updateBrand",
        "summary": "Update a brand",
        "parameters": [{"name": "If-Match", "in": "header", "schema": {"type": "string"}}],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/BrandUpdate"}}}},
        "responses": {"200": {"$ref": "#/components/responses/Brand"}}
      }
    },
    "/api/v1/things": {
      "get": {
        "operationId": "listThings",
        "summary": "List things",
        "parameters": [
          {"name": "page", "in": "query", "description": "Page number.", "schema": {"type": "integer", "minimum": 1}},
          {"name": "tag", "in": "query", "schema": {"type": "array", "items": {"type": "string"}}}
        ],
        "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object", "x-internal": true, "properties": {"data": {"type": "array", "items": {"$ref": "#/components/schemas/Thing"}}}}}}}}
      },
      "post": {
        "operationId": "createThings",
        "summary": "Create things",
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Thing"}}}}},
        "responses": {"204": {"description": "none"}}
      }
    },
    "/api/v1/loops": {
      "get": {"operationId": "getLoop", "summary": "Loop", "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}}}}}
    }
  },
  "components": {
    "parameters": {
      "id": {"name": "id", "in": "path", "required": true, "description": "A uuid.", "schema": {"type": "string", "format": "uuid"}}
    },
    "responses": {
      "Brand": {"description": "The brand.", "content": {"application/json": {"schema": {"type": "object", "required": ["data"], "properties": {"data": {"$ref": "#/components/schemas/Name"}}}}}}
    },
    "schemas": {
      "Name": {"type": "string", "minLength": 1, "maxLength": 60, "example": "Acme"},
      "Thing": {"type": "object", "properties": {"example": {"type": "string"}, "name": {"$ref": "#/components/schemas/Name", "description": "What it is called."}, "size": {"$ref": "#/components/schemas/Name", "maxLength": 10}}},
      "BrandUpdate": {"oneOf": [
        {"type": "object", "minProperties": 1, "additionalProperties": false, "properties": {"name": {"$ref": "#/components/schemas/Name"}, "colors": {"type": "array", "items": {"type": "string"}}}},
        {"type": "object", "required": ["domain"], "additionalProperties": false, "properties": {"name": {"$ref": "#/components/schemas/Name"}, "domain": {"type": "string"}}}
      ]},
      "Node": {"type": "object", "properties": {"next": {"$ref": "#/components/schemas/Node"}}},
      "Error": {"type": "object", "required": ["error", "code", "details"], "additionalProperties": false,
        "properties": {"error": {"type": "string"}, "code": {"type": "string"}, "details": {"type": "object"}}}
    }
  }
}`

func fixtureOps(t *testing.T) map[string]*operation {
	t.Helper()
	d, err := parseDocument([]byte(fixture))
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.operations()
	if err == nil {
		t.Fatal("a recursive schema was accepted")
	}
	if !strings.Contains(err.Error(), "recursive schema #/components/schemas/Node → #/components/schemas/Node") {
		t.Fatalf("recursion reported as %v", err)
	}
	// Without the loop, the rest converts.
	delete(d.root["paths"].(map[string]any), "/api/v1/loops")
	ops, err := d.operations()
	if err != nil {
		t.Fatal(err)
	}
	return ops
}

// resolved checks that s is a valid JSON Schema with no $ref left, and
// returns it ready to validate.
func resolved(t *testing.T, s map[string]any) *jsonschema.Resolved {
	t.Helper()
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), `"$ref"`) {
		t.Fatalf("$ref left in %s", raw)
	}
	var js jsonschema.Schema
	if err := json.Unmarshal(raw, &js); err != nil {
		t.Fatalf("not a JSON Schema: %v\n%s", err, raw)
	}
	r, err := js.Resolve(nil)
	if err != nil {
		t.Fatalf("invalid JSON Schema: %v\n%s", err, raw)
	}
	return r
}

func accepts(t *testing.T, r *jsonschema.Resolved, arg string) error {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(arg), &v); err != nil {
		t.Fatal(err)
	}
	return r.Validate(v)
}

func TestInputSchemaMergesParametersAndBody(t *testing.T) {
	ops := fixtureOps(t)
	in, nested, err := inputSchema(ops["updateBrand"])
	if err != nil || nested {
		t.Fatalf("updateBrand: nested=%v %v", nested, err)
	}
	r := resolved(t, in)
	// The path parameter sits beside the body's properties, required; the
	// transport's header parameters do not appear, the operation's own
	// (If-Match) do.
	props := in["properties"].(map[string]any)
	if props["id"].(map[string]any)["description"] != "A uuid." || props["X-Request-ID"] != nil || props["If-Match"] == nil {
		t.Fatalf("properties %v", props)
	}
	for arg, ok := range map[string]bool{
		`{"id":"7d0c1c5e-4d8e-4b59-9d1c-0c7d3a1f3b11","name":"Acme"}`:                  true,
		`{"id":"7d0c1c5e-4d8e-4b59-9d1c-0c7d3a1f3b11","domain":"acme.com"}`:            true,
		`{"id":"7d0c1c5e-4d8e-4b59-9d1c-0c7d3a1f3b11","name":"A","domain":"acme.com"}`: true,
		// minProperties 1 of the body counts body fields: id alone is empty.
		`{"id":"7d0c1c5e-4d8e-4b59-9d1c-0c7d3a1f3b11"}`: false,
		// Both branches: colors closes out domain and vice versa.
		`{"id":"7d0c1c5e-4d8e-4b59-9d1c-0c7d3a1f3b11","colors":["#fff"],"domain":"acme.com"}`: false,
		`{"name":"Acme"}`: false, // no id
		`{"id":"7d0c1c5e-4d8e-4b59-9d1c-0c7d3a1f3b11","name":""}`: false, // the $ref'd Name's minLength
	} {
		if err := accepts(t, r, arg); (err == nil) != ok {
			t.Errorf("%s: accepted=%v, want %v (%v)", arg, err == nil, ok, err)
		}
	}
	// The output schema is the response's, resolved too.
	if out := ops["updateBrand"].Output; out == nil || resolved(t, out) == nil {
		t.Fatal("no output schema")
	}
}

func TestSchemaResolution(t *testing.T) {
	ops := fixtureOps(t)
	in, nested, err := inputSchema(ops["listThings"])
	if err != nil || nested {
		t.Fatal(nested, err)
	}
	if err := accepts(t, resolved(t, in), `{"page":2,"tag":["a","b"]}`); err != nil {
		t.Fatal(err)
	}
	if err := accepts(t, resolved(t, in), `{"page":0}`); err == nil {
		t.Fatal("page 0 accepted")
	}
	out := ops["listThings"].Output
	raw, _ := json.Marshal(out)
	thing := out["properties"].(map[string]any)["data"].(map[string]any)["items"].(map[string]any)["properties"].(map[string]any)
	switch {
	case strings.Contains(string(raw), "x-internal"), strings.Contains(string(raw), `"example":"Acme"`):
		t.Errorf("OpenAPI-only keywords kept: %s", raw)
	case thing["example"] == nil:
		t.Errorf("a property named example was dropped: %s", raw)
	case thing["name"].(map[string]any)["description"] != "What it is called." || thing["name"].(map[string]any)["minLength"] != float64(1):
		// An annotation beside a $ref refines the target.
		t.Errorf("name: %v", thing["name"])
	case thing["size"].(map[string]any)["allOf"] == nil:
		// A validation keyword beside a $ref must hold as well: allOf.
		t.Errorf("size: %v", thing["size"])
	}
	r := resolved(t, out)
	if accepts(t, r, `{"data":[{"size":"0123456789X"}]}`) == nil || accepts(t, r, `{"data":[{"size":"ok"}]}`) != nil {
		t.Error("size's maxLength beside its $ref is not enforced")
	}
}

func TestNonObjectBodyIsOneArgument(t *testing.T) {
	ops := fixtureOps(t)
	in, nested, err := inputSchema(ops["createThings"])
	if err != nil || !nested {
		t.Fatal(nested, err)
	}
	r := resolved(t, in)
	if accepts(t, r, `{"body":[{"name":"a"}]}`) != nil || accepts(t, r, `{}`) == nil {
		t.Fatalf("schema %v", in)
	}
}

func TestConversionRefusesWhatItCannotExpress(t *testing.T) {
	for name, doc := range map[string]string{
		"external $ref": `{"openapi":"3.1.0","paths":{"/a":{"get":{"operationId":"a","responses":{"200":{"description":"","content":{"application/json":{"schema":{"$ref":"other.json#/x"}}}}}}}}}`,
		"missing $ref":  `{"openapi":"3.1.0","paths":{"/a":{"get":{"operationId":"a","responses":{"200":{"description":"","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Nope"}}}}}}}}}`,
		"OpenAPI 3.0":   `{"openapi":"3.0.3","paths":{}}`,
	} {
		d, err := parseDocument([]byte(doc))
		if err == nil {
			_, err = d.operations()
		}
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// A parameter and a body property of the same name cannot share the
	// flat arguments.
	clash := &operation{
		Params: []param{{Name: "id", In: "path", Required: true, Schema: map[string]any{"type": "string"}}},
		Body:   map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{}}},
	}
	if _, _, err := inputSchema(clash); err == nil || !strings.Contains(err.Error(), `"id"`) {
		t.Errorf("clash: %v", err)
	}
}
