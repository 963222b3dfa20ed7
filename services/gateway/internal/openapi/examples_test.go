package openapi

import (
	"fmt"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// exampleProblems lists, one line per problem, every JSON request body and
// every JSON success response without an example, every example its schema
// rejects (with the JSON Schema 2020-12 validator the e2e tests use) and
// every components/examples entry nothing refers to. Lines name the
// operation, so an operation added without examples says what it lacks.
func exampleProblems(spec *openapi3.T) []string {
	var problems []string
	used := map[*openapi3.Example]bool{}
	check := func(where string, mt *openapi3.MediaType) {
		if mt.Example == nil && len(mt.Examples) == 0 {
			problems = append(problems, where+": no example (add example: or examples: beside its schema)")
			return
		}
		if mt.Schema == nil || mt.Schema.Value == nil {
			problems = append(problems, where+": an example but no schema")
			return
		}
		validate := func(name string, v any) {
			if err := mt.Schema.Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
				problems = append(problems, fmt.Sprintf("%s: example %s does not match the schema: %v", where, name, firstLine(err)))
			}
			for _, field := range undeclared(mt.Schema.Value, v, "") {
				problems = append(problems, fmt.Sprintf("%s: example %s has %s, which the schema does not declare", where, name, field))
			}
		}
		if mt.Example != nil {
			validate("(example:)", mt.Example)
		}
		for _, name := range sortedKeys(mt.Examples) {
			ex := mt.Examples[name]
			if ex == nil || ex.Value == nil {
				problems = append(problems, fmt.Sprintf("%s: example %s does not resolve", where, name))
				continue
			}
			used[ex.Value] = true
			validate(name, ex.Value.Value)
		}
	}
	for _, path := range sortedKeys(spec.Paths.Map()) {
		item := spec.Paths.Value(path)
		ops := item.Operations()
		for _, method := range sortedKeys(ops) {
			op := ops[method]
			name := fmt.Sprintf("%s %s (%s)", method, path, op.OperationID)
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				for _, ct := range sortedKeys(op.RequestBody.Value.Content) {
					if isJSON(ct) {
						check(name+" request body "+ct, op.RequestBody.Value.Content[ct])
					}
				}
			}
			for _, status := range sortedKeys(op.Responses.Map()) {
				r := op.Responses.Value(status)
				if !strings.HasPrefix(status, "2") || r.Value == nil {
					continue
				}
				for _, ct := range sortedKeys(r.Value.Content) {
					if isJSON(ct) {
						check(name+" response "+status+" "+ct, r.Value.Content[ct])
					}
				}
			}
		}
	}
	for _, name := range sortedKeys(spec.Components.Examples) {
		if ex := spec.Components.Examples[name]; ex.Value != nil && !used[ex.Value] {
			problems = append(problems, "components/examples/"+name+": referred to by no request or response")
		}
	}
	return problems
}

// undeclared lists the fields of v that its schema neither names nor
// allows with additionalProperties: a schema that accepts any extra field
// would otherwise let a misspelt example through.
func undeclared(s *openapi3.Schema, v any, at string) []string {
	props := map[string]*openapi3.SchemaRef{}
	var extra *openapi3.SchemaRef
	var items []*openapi3.SchemaRef
	var collect func(s *openapi3.Schema)
	collect = func(s *openapi3.Schema) {
		for k, p := range s.Properties {
			props[k] = p
		}
		if s.AdditionalProperties.Schema != nil {
			extra = s.AdditionalProperties.Schema
		}
		if s.Items != nil {
			items = append(items, s.Items)
		}
		for _, subs := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
			for _, sub := range subs {
				if sub.Value != nil {
					collect(sub.Value)
				}
			}
		}
	}
	collect(s)
	var out []string
	switch v := v.(type) {
	case map[string]any:
		if len(props) == 0 && extra == nil {
			return nil // a free-form object
		}
		for _, k := range sortedKeys(v) {
			switch p := props[k]; {
			case p != nil && p.Value != nil:
				out = append(out, undeclared(p.Value, v[k], at+"/"+k)...)
			case extra != nil && extra.Value != nil:
				out = append(out, undeclared(extra.Value, v[k], at+"/"+k)...)
			default:
				out = append(out, at+"/"+k)
			}
		}
	case []any:
		for i, x := range v {
			for _, it := range items {
				if it.Value != nil {
					out = append(out, undeclared(it.Value, x, fmt.Sprintf("%s/%d", at, i))...)
				}
			}
		}
	}
	return out
}

func isJSON(contentType string) bool {
	return contentType == "application/json" || strings.HasSuffix(contentType, "+json")
}

// firstLine keeps the reason of a validation error and drops the schema
// and value kin-openapi prints after it.
func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// TestEveryOperationHasValidExamples: every JSON request body and success
// response carries an example its schema accepts.
func TestEveryOperationHasValidExamples(t *testing.T) {
	d := load(t)
	for _, p := range exampleProblems(d.Spec) {
		t.Error(p)
	}
}

// TestExampleProblemsAreFound proves the check above can fail: an
// operation stripped of its examples, an example that breaks its schema and
// an orphaned example are each reported, naming the operation.
func TestExampleProblemsAreFound(t *testing.T) {
	spec := load(t).Spec // Load compiles afresh; the served document is untouched.
	create := spec.Paths.Value("/api/v1/thumbnails").Post
	create.RequestBody.Value.Content.Get("application/json").Examples = nil
	get := spec.Paths.Value("/api/v1/clips/renders/{renderId}").Get
	bad := &openapi3.Example{Value: map[string]any{"data": map[string]any{"status": "exploded"}}}
	get.Responses.Value("200").Value.Content.Get("application/json").Examples = openapi3.Examples{"broken": {Value: bad}}
	credits := spec.Paths.Value("/api/v1/account/credits").Get.Responses.Value("200").Value.Content.Get("application/json")
	credits.Examples = nil
	credits.Example = map[string]any{"data": map[string]any{"tier": "pro", "billingCycle": "monthly", "canGenerate": true,
		"credits": map[string]any{"subscription": 1, "purchased": 0, "total": 1, "bonus": 3}}}
	got := strings.Join(exampleProblems(spec), "\n")
	for _, want := range []string{
		"post /api/v1/thumbnails (createThumbnail) request body application/json: no example",
		"get /api/v1/clips/renders/{renderId} (getRender) response 200 application/json: example broken does not match the schema",
		"components/examples/ThumbnailCreate: referred to by no request or response",
		"get /api/v1/account/credits (getCredits) response 200 application/json: example (example:) has /data/credits/bonus, which the schema does not declare",
	} {
		if !strings.Contains(strings.ToLower(got), strings.ToLower(want)) {
			t.Errorf("not reported: %s\ngot:\n%s", want, got)
		}
	}
}
