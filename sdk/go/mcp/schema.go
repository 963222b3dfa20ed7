package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// document is a parsed OpenAPI 3.1 document, kept as plain JSON values:
// the package reads only paths, parameters, request bodies, responses and
// the components they refer to.
type document struct {
	root map[string]any
}

func parseDocument(raw []byte) (*document, error) {
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil, fmt.Errorf("mcp: the OpenAPI document is not JSON: %w", err)
	}
	if v, _ := root["openapi"].(string); !strings.HasPrefix(v, "3.1") {
		return nil, fmt.Errorf("mcp: want an OpenAPI 3.1 document, got openapi %q", v)
	}
	if _, ok := root["paths"].(map[string]any); !ok {
		return nil, errors.New("mcp: the OpenAPI document has no paths")
	}
	return &document{root: root}, nil
}

// operation is one operation of the document, its $refs resolved.
type operation struct {
	ID          string
	Method      string // upper case
	Path        string // as in the document, with {name} templates
	Summary     string
	Description string
	// Params are the path, query and header parameters but the
	// transport's (X-Request-ID, Idempotency-Key) and cookies: If-Match
	// is the tool's to send.
	Params []param
	// Body is the JSON request body schema; nil without one.
	Body         map[string]any
	BodyRequired bool
	// Output is the JSON schema of the first 2xx response with a JSON
	// body; nil without one.
	Output map[string]any
}

type param struct {
	Name     string
	In       string // "path", "query" or "header"
	Required bool
	Schema   map[string]any
}

// transportHeaders are the header parameters the transport sets itself.
var transportHeaders = map[string]bool{"X-Request-ID": true, "Idempotency-Key": true}

var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// operations returns every operation of the document by operationId.
func (d *document) operations() (map[string]*operation, error) {
	ops := map[string]*operation{}
	paths := d.root["paths"].(map[string]any)
	for _, path := range slices.Sorted(maps.Keys(paths)) {
		item, err := d.deref(paths[path])
		if err != nil {
			return nil, fmt.Errorf("mcp: path %s: %w", path, err)
		}
		shared, _ := item["parameters"].([]any)
		for _, m := range methods {
			raw, ok := item[m].(map[string]any)
			if !ok {
				continue
			}
			op, err := d.operation(strings.ToUpper(m), path, raw, shared)
			if err != nil {
				return nil, fmt.Errorf("mcp: %s %s: %w", strings.ToUpper(m), path, err)
			}
			if op.ID == "" {
				continue
			}
			if _, dup := ops[op.ID]; dup {
				return nil, fmt.Errorf("mcp: operationId %s is used twice", op.ID)
			}
			ops[op.ID] = op
		}
	}
	return ops, nil
}

func (d *document) operation(method, path string, raw map[string]any, shared []any) (*operation, error) {
	op := &operation{Method: method, Path: path}
	op.ID, _ = raw["operationId"].(string)
	op.Summary, _ = raw["summary"].(string)
	op.Description, _ = raw["description"].(string)

	// Operation parameters override path-item ones of the same name and
	// location.
	own, _ := raw["parameters"].([]any)
	var order []string
	byKey := map[string]map[string]any{}
	for _, list := range [][]any{shared, own} {
		for _, p := range list {
			pm, err := d.deref(p)
			if err != nil {
				return nil, err
			}
			name, _ := pm["name"].(string)
			in, _ := pm["in"].(string)
			key := in + " " + name
			if _, seen := byKey[key]; !seen {
				order = append(order, key)
			}
			byKey[key] = pm
		}
	}
	for _, key := range order {
		pm := byKey[key]
		in, _ := pm["in"].(string)
		name, _ := pm["name"].(string)
		if in != "path" && in != "query" && (in != "header" || transportHeaders[name]) {
			continue
		}
		s, err := d.schema(pm["schema"])
		if err != nil {
			return nil, fmt.Errorf("parameter %s: %w", name, err)
		}
		if s == nil {
			s = map[string]any{}
		}
		if desc, ok := pm["description"].(string); ok && s["description"] == nil {
			s["description"] = desc
		}
		required, _ := pm["required"].(bool)
		op.Params = append(op.Params, param{Name: name, In: in, Required: required || in == "path", Schema: s})
	}

	if rb, ok := raw["requestBody"]; ok {
		body, err := d.deref(rb)
		if err != nil {
			return nil, fmt.Errorf("request body: %w", err)
		}
		op.BodyRequired, _ = body["required"].(bool)
		if op.Body, err = d.jsonSchema(body); err != nil {
			return nil, fmt.Errorf("request body: %w", err)
		}
		if op.Body == nil {
			return nil, errors.New("request body: no application/json schema")
		}
	}

	responses, _ := raw["responses"].(map[string]any)
	for _, code := range slices.Sorted(maps.Keys(responses)) {
		if !strings.HasPrefix(code, "2") {
			continue
		}
		resp, err := d.deref(responses[code])
		if err != nil {
			return nil, fmt.Errorf("response %s: %w", code, err)
		}
		if op.Output, err = d.jsonSchema(resp); err != nil {
			return nil, fmt.Errorf("response %s: %w", code, err)
		}
		if op.Output != nil {
			break
		}
	}
	return op, nil
}

// jsonSchema returns the resolved schema of the application/json content
// of a request body or response, or nil.
func (d *document) jsonSchema(obj map[string]any) (map[string]any, error) {
	content, _ := obj["content"].(map[string]any)
	media, ok := content["application/json"].(map[string]any)
	if !ok {
		return nil, nil
	}
	return d.schema(media["schema"])
}

// deref follows $ref until it reaches an object of the document (a path
// item, parameter, request body or response).
func (d *document) deref(node any) (map[string]any, error) {
	for range 32 {
		m, ok := node.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("want an object, got %T", node)
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return m, nil
		}
		target, err := d.pointer(ref)
		if err != nil {
			return nil, err
		}
		node = target
	}
	return nil, errors.New("$ref chain too long")
}

// pointer resolves a local reference, "#/json/pointer".
func (d *document) pointer(ref string) (any, error) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, fmt.Errorf("$ref %q: only references inside the document are supported", ref)
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil, fmt.Errorf("$ref %q: %w", ref, err)
	}
	var node any = d.root
	if frag == "" {
		return node, nil
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, fmt.Errorf("$ref %q: not a JSON pointer", ref)
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch n := node.(type) {
		case map[string]any:
			v, ok := n[tok]
			if !ok {
				return nil, fmt.Errorf("$ref %q: %q not found", ref, tok)
			}
			node = v
		case []any:
			i := -1
			if _, err := fmt.Sscanf(tok, "%d", &i); err != nil || i < 0 || i >= len(n) {
				return nil, fmt.Errorf("$ref %q: bad index %q", ref, tok)
			}
			node = n[i]
		default:
			return nil, fmt.Errorf("$ref %q: %q is not a container", ref, tok)
		}
	}
	return node, nil
}

// Schema keywords whose value is a schema, a list of schemas, or a map of
// names to schemas. Every other keyword's value is data (enum, const,
// default, examples, required) and is copied as it is.
var (
	schemaKeywords = map[string]bool{
		"items": true, "not": true, "additionalProperties": true, "contains": true, "if": true, "then": true,
		"else": true, "propertyNames": true, "unevaluatedProperties": true, "unevaluatedItems": true,
		"contentSchema": true,
	}
	schemaListKeywords = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true}
	schemaMapKeywords  = map[string]bool{"properties": true, "patternProperties": true, "dependentSchemas": true, "$defs": true}
	// OpenAPI's own schema keywords mean nothing to a JSON Schema
	// validator; example is also deprecated in 3.1 in favour of examples.
	openAPIKeywords = map[string]bool{"example": true, "discriminator": true, "xml": true, "externalDocs": true}
	// annotations may sit beside a $ref and override the target's.
	annotations = map[string]bool{
		"title": true, "description": true, "default": true, "examples": true, "deprecated": true,
		"readOnly": true, "writeOnly": true,
	}
)

// schema returns a self-contained copy of a schema of the document: every
// $ref is replaced by (a copy of) its target, OpenAPI-only keywords and
// x- extensions are dropped. A recursive schema is an error: tool input
// schemas must be finite for the clients that inline them.
func (d *document) schema(node any) (map[string]any, error) {
	if node == nil {
		return nil, nil
	}
	out, err := d.resolve(node, nil)
	if err != nil {
		return nil, err
	}
	m, ok := out.(map[string]any)
	if !ok {
		// A boolean schema: true accepts anything, false nothing.
		if b, _ := out.(bool); b {
			return map[string]any{}, nil
		}
		return map[string]any{"not": map[string]any{}}, nil
	}
	return m, nil
}

func (d *document) resolve(node any, stack []string) (any, error) {
	m, ok := node.(map[string]any)
	if !ok {
		if _, isBool := node.(bool); isBool {
			return node, nil
		}
		return nil, fmt.Errorf("a schema must be an object or a boolean, got %T", node)
	}
	if ref, ok := m["$ref"].(string); ok {
		if slices.Contains(stack, ref) {
			return nil, fmt.Errorf("recursive schema %s", strings.Join(append(stack, ref), " → "))
		}
		target, err := d.pointer(ref)
		if err != nil {
			return nil, err
		}
		resolved, err := d.resolve(target, append(stack, ref))
		if err != nil {
			return nil, err
		}
		siblings := maps.Clone(m)
		delete(siblings, "$ref")
		if len(siblings) == 0 {
			return resolved, nil
		}
		rest, err := d.resolve(siblings, stack)
		if err != nil {
			return nil, err
		}
		restMap := rest.(map[string]any)
		// Annotations beside a $ref refine the target; anything that
		// validates must hold as well as the target, which allOf says.
		if target, ok := resolved.(map[string]any); ok && onlyAnnotations(restMap) {
			maps.Copy(target, restMap)
			return target, nil
		}
		return map[string]any{"allOf": []any{resolved, restMap}}, nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch {
		case openAPIKeywords[k], strings.HasPrefix(k, "x-"):
			continue
		case schemaKeywords[k]:
			r, err := d.resolve(v, stack)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = r
		case schemaListKeywords[k]:
			list, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s: want a list", k)
			}
			rs := make([]any, len(list))
			for i, s := range list {
				r, err := d.resolve(s, stack)
				if err != nil {
					return nil, fmt.Errorf("%s[%d]: %w", k, i, err)
				}
				rs[i] = r
			}
			out[k] = rs
		case schemaMapKeywords[k]:
			byName, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: want an object", k)
			}
			rs := make(map[string]any, len(byName))
			for name, s := range byName {
				r, err := d.resolve(s, stack)
				if err != nil {
					return nil, fmt.Errorf("%s.%s: %w", k, name, err)
				}
				rs[name] = r
			}
			out[k] = rs
		default:
			out[k] = deepCopy(v)
		}
	}
	return out, nil
}

func onlyAnnotations(m map[string]any) bool {
	for k := range m {
		if !annotations[k] {
			return false
		}
	}
	return true
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// bodyProperty names the argument that carries a request body which is not
// a JSON object (none of Hookline's today): such a body cannot be spread
// over the tool's arguments.
const bodyProperty = "body"

// inputSchema is the tool's input: one object whose properties are the
// operation's path and query parameters and, beside them, the request
// body's own properties, so an agent fills one flat object. The body's
// other keywords (oneOf, not, additionalProperties, minProperties …) move
// to the root with it; wherever the body closes its properties
// (additionalProperties: false), the parameters are admitted too, and
// property counts are shifted by the parameters, so the merged schema
// accepts exactly a valid body plus valid parameters.
func inputSchema(op *operation) (map[string]any, bool, error) {
	props := map[string]any{}
	var required []any
	var names []string
	for _, p := range op.Params {
		props[p.Name] = p.Schema
		names = append(names, p.Name)
		if p.Required {
			required = append(required, p.Name)
		}
	}
	requiredParams := len(required)
	root := map[string]any{"type": "object", "properties": props}
	nested := false
	if op.Body != nil {
		if t, ok := op.Body["type"]; ok && t != "object" {
			nested = true
			if _, clash := props[bodyProperty]; clash {
				return nil, false, fmt.Errorf("parameter %q clashes with the body argument", bodyProperty)
			}
			props[bodyProperty] = op.Body
			if op.BodyRequired {
				required = append(required, bodyProperty)
			}
		} else {
			body := deepCopy(op.Body).(map[string]any)
			bodyProps, _ := body["properties"].(map[string]any)
			for name, s := range bodyProps {
				if _, clash := props[name]; clash {
					return nil, false, fmt.Errorf("parameter %q clashes with a body property", name)
				}
				props[name] = s
			}
			if reqs, ok := body["required"].([]any); ok && op.BodyRequired {
				required = append(required, reqs...)
			}
			if _, ok := body["propertyNames"]; ok && len(names) > 0 {
				return nil, false, errors.New("a body with propertyNames cannot take parameters beside it")
			}
			for k, v := range body {
				switch k {
				case "type", "properties", "required", "title", "examples", "default":
				case "description":
					// Kept in the tool's description rather than here.
				default:
					root[k] = v
				}
			}
			admitParams(root, names, requiredParams)
		}
	}
	if len(required) > 0 {
		root["required"] = required
	}
	return root, nested, nil
}

// admitParams lets the parameters through every part of s that closes
// its properties or counts them: s itself and its subschemas that apply
// to the same object (allOf, anyOf, oneOf, if/then/else). requiredParams
// of them are always present.
func admitParams(s map[string]any, names []string, requiredParams int) {
	if len(names) == 0 {
		return
	}
	if ap, ok := s["additionalProperties"]; ok && ap != true {
		props, _ := s["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
			s["properties"] = props
		}
		for _, n := range names {
			if _, ok := props[n]; !ok {
				props[n] = map[string]any{}
			}
		}
	}
	if v, ok := s["minProperties"].(float64); ok {
		s["minProperties"] = v + float64(requiredParams)
	}
	if v, ok := s["maxProperties"].(float64); ok {
		s["maxProperties"] = v + float64(len(names))
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := s[k].([]any)
		for _, sub := range list {
			if m, ok := sub.(map[string]any); ok {
				admitParams(m, names, requiredParams)
			}
		}
	}
	for _, k := range []string{"if", "then", "else"} {
		if m, ok := s[k].(map[string]any); ok {
			admitParams(m, names, requiredParams)
		}
	}
}
