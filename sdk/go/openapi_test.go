package hookline_test

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode"

	yaml "go.yaml.in/yaml/v4"

	hookline "hookline.dev/sdk/go"
)

// The OpenAPI document the gateway serves, read from its source.
const documentPath = "../../services/gateway/internal/openapi/openapi.yaml"

type document struct {
	root map[string]any
}

func loadDocument(t *testing.T) *document {
	t.Helper()
	raw, err := os.ReadFile(documentPath)
	if err != nil {
		t.Fatalf("the OpenAPI document: %v", err)
	}
	var root map[string]any
	if err := yaml.Unmarshal(raw, &root); err != nil {
		t.Fatal(err)
	}
	return &document{root: root}
}

// resolve follows $ref (local JSON pointers) until a value without one.
func (d *document) resolve(v any) map[string]any {
	m, _ := v.(map[string]any)
	for m != nil {
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		var cur any = d.root
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			cur = cur.(map[string]any)[part]
		}
		m, _ = cur.(map[string]any)
	}
	return m
}

// shape merges what a set of schemas (and their allOf/oneOf/anyOf
// branches) say a value may hold.
type shape struct {
	props         map[string][]any
	items         []any
	object, array bool
}

func (d *document) shapeOf(schemas []any) *shape {
	s := &shape{props: map[string][]any{}}
	var walk func(v any)
	walk = func(v any) {
		m := d.resolve(v)
		if m == nil {
			return
		}
		types := []any{m["type"]}
		if list, ok := m["type"].([]any); ok {
			types = list
		}
		for _, ty := range types {
			s.object = s.object || ty == "object"
			s.array = s.array || ty == "array"
		}
		if props, ok := m["properties"].(map[string]any); ok {
			s.object = true
			for name, p := range props {
				s.props[name] = append(s.props[name], p)
			}
		}
		if it, ok := m["items"]; ok {
			s.array = true
			s.items = append(s.items, it)
		}
		for _, k := range []string{"allOf", "oneOf", "anyOf"} {
			if list, ok := m[k].([]any); ok {
				for _, b := range list {
					walk(b)
				}
			}
		}
	}
	for _, v := range schemas {
		walk(v)
	}
	return s
}

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[json.RawMessage]()
)

// jsonFields are a struct's JSON names (embedded structs flattened).
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		out[name] = f.Type
	}
	return out
}

// check compares a Go type with the schemas a value of it must satisfy,
// both ways: every property has a field, every field a property.
func (d *document) check(where string, schemas []any, t reflect.Type, errs *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == timeType || t == rawType || t.Kind() == reflect.Interface || t.Kind() == reflect.Map {
		return
	}
	s := d.shapeOf(schemas)
	switch t.Kind() {
	case reflect.Slice:
		if !s.array {
			*errs = append(*errs, fmt.Sprintf("%s: Go %s, but the schema is not an array", where, t))
			return
		}
		d.check(where+"[]", s.items, t.Elem(), errs)
	case reflect.Struct:
		fields := jsonFields(t)
		if len(s.props) == 0 {
			*errs = append(*errs, fmt.Sprintf("%s: Go %s has fields, the schema no properties", where, t))
			return
		}
		for _, name := range sortedKeys(s.props) {
			ft, ok := fields[name]
			if !ok {
				*errs = append(*errs, fmt.Sprintf("%s: property %q has no field in %s", where, name, t))
				continue
			}
			d.check(where+"."+name, s.props[name], ft, errs)
		}
		for _, name := range sortedKeys(fields) {
			if _, ok := s.props[name]; !ok {
				*errs = append(*errs, fmt.Sprintf("%s: field %q of %s is no property of the schema", where, name, t))
			}
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// queryTags are the `query` names of a parameter struct.
func queryTags(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			out = append(out, queryTags(f.Type)...)
		} else if q := f.Tag.Get("query"); q != "" {
			out = append(out, q)
		}
	}
	sort.Strings(out)
	return out
}

type operation struct {
	id, method, path string
	op               map[string]any
	params           []map[string]any // path-level and operation-level, resolved
}

func (d *document) operations() []operation {
	var ops []operation
	paths := d.root["paths"].(map[string]any)
	for _, path := range sortedKeys(paths) {
		item := paths[path].(map[string]any)
		var shared []map[string]any
		if list, ok := item["parameters"].([]any); ok {
			for _, p := range list {
				shared = append(shared, d.resolve(p))
			}
		}
		for _, method := range []string{"get", "put", "post", "patch", "delete", "head"} {
			op, ok := item[method].(map[string]any)
			if !ok {
				continue
			}
			params := slices.Clone(shared)
			if list, ok := op["parameters"].([]any); ok {
				for _, p := range list {
					params = append(params, d.resolve(p))
				}
			}
			ops = append(ops, operation{id: op["operationId"].(string), method: strings.ToUpper(method), path: path, op: op, params: params})
		}
	}
	return ops
}

func (o operation) paramsIn(where string) []string {
	var out []string
	for _, p := range o.params {
		if p["in"] == where {
			out = append(out, p["name"].(string))
		}
	}
	sort.Strings(out)
	return out
}

// Every operation of the document has a method on Client named after its
// operationId, taking its path parameters, its query parameters or its
// body as Go types with a field per property, and returning a type with
// a field per property of every success response.
func TestEveryOperationHasATypedMethod(t *testing.T) {
	d := loadDocument(t)
	client := reflect.TypeFor[*hookline.Client]()
	ops := d.operations()
	if len(ops) < 60 {
		t.Fatalf("read %d operations; is %s the document?", len(ops), documentPath)
	}
	var errs []string
	for _, o := range ops {
		if o.path == "/mcp" {
			continue // the MCP endpoint speaks JSON-RPC to MCP clients (package mcp), not REST
		}
		name := string(unicode.ToUpper(rune(o.id[0]))) + o.id[1:]
		where := fmt.Sprintf("%s (%s %s)", name, o.method, o.path)
		m, ok := client.MethodByName(name)
		if !ok {
			errs = append(errs, where+": no method on Client")
			continue
		}
		mt := m.Type
		if mt.NumIn() < 2 || mt.In(1).String() != "context.Context" || !mt.IsVariadic() {
			errs = append(errs, where+": want (ctx, …, opts ...RequestOption)")
			continue
		}
		var strs int
		var arg reflect.Type
		for i := 2; i < mt.NumIn()-1; i++ {
			switch in := mt.In(i); {
			case in.Kind() == reflect.String:
				strs++
			case in.Kind() == reflect.Pointer && in.Elem().Kind() == reflect.Struct:
				arg = in.Elem()
			default:
				errs = append(errs, fmt.Sprintf("%s: argument %d is a %s", where, i, in))
			}
		}
		if want := len(o.paramsIn("path")); strs != want {
			errs = append(errs, fmt.Sprintf("%s: %d string arguments for %d path parameters", where, strs, want))
		}
		body, hasBody := o.op["requestBody"].(map[string]any)
		switch {
		case hasBody:
			if arg == nil {
				errs = append(errs, where+": the request body has no argument")
				break
			}
			schema := d.resolve(body)["content"].(map[string]any)["application/json"].(map[string]any)["schema"]
			d.check(where+" request", []any{schema}, arg, &errs)
		case len(o.paramsIn("query")) > 0:
			if arg == nil {
				errs = append(errs, where+": the query parameters have no argument")
				break
			}
			if got, want := queryTags(arg), o.paramsIn("query"); !slices.Equal(got, want) {
				errs = append(errs, fmt.Sprintf("%s: query fields %v, parameters %v", where, got, want))
			}
		case arg != nil:
			errs = append(errs, fmt.Sprintf("%s: argument %s, but the operation takes neither body nor query", where, arg))
		}

		var schemas []any
		var withContent, success int
		responses := o.op["responses"].(map[string]any)
		for _, code := range sortedKeys(responses) {
			if !strings.HasPrefix(code, "2") {
				continue
			}
			success++
			content, _ := d.resolve(responses[code])["content"].(map[string]any)
			if len(content) > 0 {
				withContent++
			}
			if js, ok := content["application/json"].(map[string]any); ok {
				schemas = append(schemas, js["schema"])
			}
		}
		if mt.NumOut() == 1 {
			if withContent > 0 {
				errs = append(errs, where+": the answer has a body, the method returns only an error")
			}
			continue
		}
		out := mt.Out(0)
		for out.Kind() == reflect.Pointer {
			out = out.Elem()
		}
		if len(schemas) == 0 || out == rawType {
			continue // not JSON (HTML) or a free-form document
		}
		whole := false
		if out.Kind() == reflect.Struct {
			_, whole = jsonFields(out)["data"]
		}
		if whole {
			d.check(where+" response", schemas, out, &errs)
		} else {
			data := d.shapeOf(schemas).props["data"]
			if data == nil {
				errs = append(errs, where+": the answer has no data property")
				continue
			}
			d.check(where+" response.data", data, out, &errs)
		}
	}
	for _, e := range errs {
		t.Error(e)
	}
}

// The check itself catches what it is for: a property missing from a Go
// type, a field the schema does not have, an operation without a method.
func TestTheCheckFindsMissingProperties(t *testing.T) {
	d := loadDocument(t)
	schema := []any{map[string]any{"$ref": "#/components/schemas/Face"}}
	var errs []string
	d.check("Face", schema, reflect.TypeFor[hookline.Face](), &errs)
	if len(errs) != 0 {
		t.Fatalf("Face: %v", errs)
	}
	type faceWithoutName struct {
		ID           string    `json:"id"`
		ImageURLs    []string  `json:"imageUrls"`
		ThumbnailURL string    `json:"thumbnailUrl"`
		CreatedAt    time.Time `json:"createdAt"`
		UpdatedAt    time.Time `json:"updatedAt"`
		Nickname     string    `json:"nickname"`
	}
	d.check("Face", schema, reflect.TypeFor[faceWithoutName](), &errs)
	joined := strings.Join(errs, "\n")
	if len(errs) != 2 || !strings.Contains(joined, `property "name" has no field`) || !strings.Contains(joined, `field "nickname"`) {
		t.Fatalf("errors %v", errs)
	}
	if _, ok := reflect.TypeFor[*hookline.Client]().MethodByName("CreateNothing"); ok {
		t.Fatal("MethodByName finds anything")
	}
}
