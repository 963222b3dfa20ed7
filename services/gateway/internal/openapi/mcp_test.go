package openapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	hlmcp "hookline.dev/sdk/go/mcp"
)

// TestMCPToolsFromTheDocument builds the MCP server from this document, as
// the gateway does, and lists its tools as a client sees them: every
// catalogued operation is a tool, and each tool's input and output schema
// is a valid, self-contained JSON Schema that says what the API accepts.
// An edit of openapi.yaml that breaks a tool fails here.
func TestMCPToolsFromTheDocument(t *testing.T) {
	d := load(t)
	srv, err := hlmcp.NewServer(d.JSON, hlmcp.Config{BaseURL: "http://gateway.test"})
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
	defer func() { _ = session.Close() }()
	res, err := session.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := hlmcp.ToolNames()
	if len(res.Tools) != len(want) || len(want) < 20 {
		t.Fatalf("%d tools, want the catalogue's %d (≥ 20)", len(res.Tools), len(want))
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range res.Tools {
		if tool.Description == "" || tool.Annotations == nil {
			t.Errorf("%s: no description or annotations", tool.Name)
		}
		in := validSchema(t, tool.Name+" input", tool.InputSchema)
		if in == nil {
			continue
		}
		if in.Schema().Type != "object" {
			t.Errorf("%s: input type %q", tool.Name, in.Schema().Type)
		}
		schemas[tool.Name] = in
		if tool.OutputSchema != nil {
			// A failed call's structured content is the envelope and its
			// status; clients validate it against the output schema.
			if out := validSchema(t, tool.Name+" output", tool.OutputSchema); out != nil {
				envelope := map[string]any{"error": "thumbnail not found", "code": "not_found", "details": map[string]any{}, "status": 404}
				if err := out.Validate(envelope); err != nil {
					t.Errorf("%s: the output schema refuses the error envelope: %v", tool.Name, err)
				}
			}
		}
	}
	for opID, name := range want {
		if schemas[name] == nil {
			t.Errorf("%s (%s): missing or invalid", name, opID)
		}
	}
	if t.Failed() {
		return
	}

	// The merged schemas carry the document's rules: required fields from
	// $ref'd components, oneOf between fields, path parameters beside the
	// body, minimum field counts of updates.
	const id = `"7d0c1c5e-4d8e-4b59-9d1c-0c7d3a1f3b11"`
	for _, c := range []struct {
		tool, args string
		ok         bool
	}{
		{"generate_thumbnail", `{"prompt":"a cat astronaut","aspectRatio":"16:9"}`, true},
		{"generate_thumbnail", `{}`, false},
		{"generate_thumbnail", `{"prompt":"x","aspectRatio":"5:4"}`, false},
		{"start_render", `{"projectId":` + id + `,"clip_id":"c1","subtitle_style":"bold","wait":false}`, true},
		{"start_render", `{"projectId":` + id + `,"clip_id":"c1","clip_ids":["c2"]}`, false},
		{"start_render", `{"clip_id":"c1"}`, false},
		{"start_render", `{"projectId":` + id + `,"clip_id":"c1","options":{"captionLanguage":"es"}}`, true},
		{"start_render", `{"projectId":` + id + `,"clip_id":"c1","options":{"captionLanguage":"spa"}}`, false},
		{"update_face", `{"id":` + id + `,"name":"Ada"}`, true},
		{"update_face", `{"id":` + id + `}`, false},
		{"update_brand", `{"id":` + id + `,"domain":"example.com"}`, true},
		{"update_brand", `{"id":` + id + `,"domain":"example.com","colors":["#ff0000"]}`, false},
		{"swap_face", `{"imageUrl":"https://example.com/a.png","faceId":` + id + `}`, true},
		{"swap_face", `{"imageUrl":"https://example.com/a.png"}`, false},
		{"list_thumbnails", `{"page":2,"limit":5,"kind":"generated"}`, true},
		{"list_thumbnails", `{"limit":500}`, false},
		{"get_credits", `{}`, true},
		{"create_clip_project", `{"video_site_url":"https://www.youtube.com/watch?v=dQw4w9WgXcQ","prompt":"the part about pricing"}`, true},
		{"create_clip_project", `{"video_site_url":"https://www.youtube.com/watch?v=dQw4w9WgXcQ","prompt":""}`, false},
		{"get_clip_transcript", `{"projectId":` + id + `,"page":2,"limit":100}`, true},
		{"edit_clip_transcript", `{"projectId":` + id + `,"If-Match":"\"3\"","operations":[{"op":"delete","from":3,"to":5}],"rerank":true}`, true},
		{"edit_clip_transcript", `{"projectId":` + id + `,"If-Match":"*","operations":[],"rerank":true,"prompt":"every time he mentions the GPU"}`, true},
		{"edit_clip_transcript", `{"projectId":` + id + `,"If-Match":"*","operations":[],"rerank":true,"prompt":""}`, false},
		{"edit_clip_transcript", `{"projectId":` + id + `,"If-Match":"*"}`, false},
		{"edit_clip_transcript", `{"projectId":` + id + `,"operations":[{"op":"split"}]}`, false},
	} {
		var v any
		if err := json.Unmarshal([]byte(c.args), &v); err != nil {
			t.Fatal(err)
		}
		if err := schemas[c.tool].Validate(v); (err == nil) != c.ok {
			t.Errorf("%s %s: accepted=%v, want %v (%v)", c.tool, c.args, err == nil, c.ok, err)
		}
	}
}

func validSchema(t *testing.T, what string, s any) *jsonschema.Resolved {
	t.Helper()
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), `"$ref"`) {
		t.Errorf("%s: $ref left: %.300s", what, raw)
		return nil
	}
	var js jsonschema.Schema
	if err := json.Unmarshal(raw, &js); err != nil {
		t.Errorf("%s: not a JSON Schema: %v", what, err)
		return nil
	}
	r, err := js.Resolve(nil)
	if err != nil {
		t.Errorf("%s: invalid JSON Schema: %v", what, err)
		return nil
	}
	return r
}
