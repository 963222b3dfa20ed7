package mcp

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// catalogue names the operations served as tools: what a creator would ask
// an agent for. The names are ours; everything else about a tool (its
// description, input and output schemas) comes from the document.
var catalogue = []struct{ operationID, tool string }{
	// generate and manage thumbnails
	{"createThumbnail", "generate_thumbnail"},
	{"createVariations", "create_variations"},
	{"analyzeVideo", "analyze_video"},
	{"listThumbnails", "list_thumbnails"},
	{"getThumbnail", "get_thumbnail"},
	{"deleteThumbnail", "delete_thumbnail"},
	{"createPresignedUpload", "create_upload_url"},
	// edits
	{"editImage", "edit_thumbnail"},
	{"faceSwap", "swap_face"},
	{"removeBackground", "remove_background"},
	{"replaceBackground", "replace_background"},
	{"enhanceColor", "enhance_colors"},
	{"upscaleImage", "upscale_thumbnail"},
	{"filterImage", "apply_filter"},
	{"combineImages", "combine_images"},
	// utilities, templates, SEO
	{"critiqueThumbnail", "critique_thumbnail"},
	{"optimizeIdea", "optimize_idea"},
	{"suggestTextOverlay", "suggest_text_overlay"},
	{"extractVideoSiteThumbnail", "extract_video_thumbnail"},
	{"listTemplates", "list_templates"},
	{"remixTemplate", "remix_template"},
	{"generateTitles", "generate_seo_titles"},
	{"generateDescription", "generate_seo_description"},
	// assets
	{"listFaces", "list_faces"},
	{"createFace", "create_face"},
	{"getFace", "get_face"},
	{"updateFace", "update_face"},
	{"deleteFace", "delete_face"},
	{"listStyles", "list_styles"},
	{"createStyle", "create_style"},
	{"getStyle", "get_style"},
	{"updateStyle", "update_style"},
	{"deleteStyle", "delete_style"},
	{"listBrands", "list_brands"},
	{"createBrand", "create_brand"},
	{"getBrand", "get_brand"},
	{"updateBrand", "update_brand"},
	{"deleteBrand", "delete_brand"},
	{"listCollections", "list_collections"},
	{"createCollection", "create_collection"},
	{"getCollection", "get_collection"},
	{"updateCollection", "update_collection"},
	{"deleteCollection", "delete_collection"},
	{"addCollectionThumbnails", "add_to_collection"},
	{"removeCollectionThumbnails", "remove_from_collection"},
	// clips
	{"createClipProject", "create_clip_project"},
	{"listClipProjects", "list_clip_projects"},
	{"getClipProject", "get_clip_project"},
	{"startRenders", "start_render"},
	{"listRenders", "list_renders"},
	{"getRender", "get_render"},
	{"getCensorWords", "get_censor_words"},
	{"setCensorWords", "set_censor_words"},
	{"getClipTranscript", "get_clip_transcript"},
	{"editClipTranscript", "edit_clip_transcript"},
	// credits
	{"getCredits", "get_credits"},
	{"listUsage", "list_usage"},
}

// ToolNames lists the tools a document with every catalogued operation
// yields, by operationId.
func ToolNames() map[string]string {
	out := make(map[string]string, len(catalogue))
	for _, c := range catalogue {
		out[c.operationID] = c.tool
	}
	return out
}

// tool is one served operation.
type tool struct {
	def *sdk.Tool
	op  *operation
	// nested: the request body is the "body" argument, not spread over
	// the arguments.
	nested bool
	// wait, when set, lets the tool wait for the work it started.
	wait *waiter
}

// buildTools turns the catalogue's operations into tools.
func buildTools(d *document) ([]*tool, error) {
	ops, err := d.operations()
	if err != nil {
		return nil, err
	}
	waiters, err := newWaiters(ops)
	if err != nil {
		return nil, err
	}
	failed, err := errorSchema(d)
	if err != nil {
		return nil, err
	}
	tools := make([]*tool, 0, len(catalogue))
	for _, c := range catalogue {
		op, ok := ops[c.operationID]
		if !ok {
			// A server older or newer than this package: its document
			// decides which tools exist.
			continue
		}
		in, nested, err := inputSchema(op)
		if err != nil {
			return nil, fmt.Errorf("mcp: tool %s (%s): %w", c.tool, op.ID, err)
		}
		t := &tool{op: op, nested: nested, wait: waiters[op.ID]}
		if t.wait != nil {
			props := in["properties"].(map[string]any)
			if _, clash := props[waitArgument]; clash {
				return nil, fmt.Errorf("mcp: tool %s: the document already has a %q argument", c.tool, waitArgument)
			}
			props[waitArgument] = map[string]any{
				"type": "boolean", "default": true,
				"description": t.wait.describe,
			}
		}
		t.def = &sdk.Tool{
			Name:        c.tool,
			Title:       op.Summary,
			Description: describe(op, t.wait),
			InputSchema: in,
			Annotations: annotate(op),
		}
		// MCP wants structured output to be an object; a list response
		// of the API is wrapped in {data, pagination}, so all are. A
		// failed call carries the error envelope as structured content,
		// and clients (the official TypeScript SDK among them) validate
		// it against the output schema even when isError is set: the
		// schema admits either.
		if op.Output != nil && op.Output["type"] == "object" {
			t.def.OutputSchema = map[string]any{
				"type":  "object",
				"anyOf": []any{op.Output, deepCopy(failed)},
			}
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// errorSchema is the structured content of a failed call: the document's
// error envelope (components/schemas/Error) with the HTTP status beside
// it, as APIError marshals it. An argument refused before any request
// carries no structured content.
func errorSchema(d *document) (map[string]any, error) {
	s, err := d.schema(map[string]any{"$ref": "#/components/schemas/Error"})
	if err != nil {
		return nil, fmt.Errorf("mcp: the error envelope: %w", err)
	}
	props, _ := s["properties"].(map[string]any)
	if s["type"] != "object" || props == nil {
		return nil, errors.New("mcp: components/schemas/Error is not an object schema")
	}
	props["status"] = map[string]any{"type": "integer", "description": "The HTTP status of the API's answer."}
	s["required"] = append(slices.Clone(anySlice(s["required"])), "status")
	return s, nil
}

func anySlice(v any) []any {
	l, _ := v.([]any)
	return l
}

func describe(op *operation, w *waiter) string {
	var b strings.Builder
	b.WriteString(op.Summary)
	if op.Description != "" {
		b.WriteString(".\n\n")
		b.WriteString(strings.TrimSpace(op.Description))
	}
	if w != nil {
		b.WriteString("\n\n")
		b.WriteString(w.describe)
	}
	fmt.Fprintf(&b, "\n\n(%s %s)", op.Method, op.Path)
	return b.String()
}

// annotate derives the hints from the HTTP method: GET reads, DELETE
// destroys, PATCH may overwrite; every tool reaches the outside world
// (providers, video sites, image addresses) through the API.
func annotate(op *operation) *sdk.ToolAnnotations {
	yes, no := true, false
	a := &sdk.ToolAnnotations{Title: op.Summary}
	switch op.Method {
	case "GET":
		a.ReadOnlyHint, a.IdempotentHint = true, true
	case "DELETE":
		a.DestructiveHint, a.IdempotentHint = &yes, true
	case "PATCH":
		a.DestructiveHint = &yes
	default:
		a.DestructiveHint = &no
	}
	return a
}
