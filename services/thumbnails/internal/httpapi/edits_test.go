package httpapi

import (
	"errors"
	"maps"
	"net/http/httptest"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/services/thumbnails/internal/edits"
)

// openAPI is the public API's document, which the gateway serves.
const openAPI = "../../../gateway/internal/openapi/openapi.yaml"

// gatewayPrefix is where the gateway serves the service's paths.
const gatewayPrefix = "/api/v1"

// documented is what the document says of one POST operation.
type documented struct {
	Summary     string `yaml:"summary"`
	RequestBody struct {
		Content map[string]struct {
			Schema struct {
				Properties map[string]struct {
					Type any `yaml:"type"`
				} `yaml:"properties"`
			} `yaml:"schema"`
		} `yaml:"content"`
	} `yaml:"requestBody"`
}

// creditsRe reads an operation's price from its summary: "(1 credit)",
// "(free)".
var creditsRe = regexp.MustCompile(`\((?:(\d+) credits?|(free))\)`)

// Every edit of the registry is documented, and every documented edit is
// in the registry: its path with a POST, a body whose properties are the
// fields the op reads (arrays where it reads a list), and the price its
// summary states.
func TestEditsAreDocumented(t *testing.T) {
	src, err := os.ReadFile(openAPI)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]struct {
			Post *documented `yaml:"post"`
		} `yaml:"paths"`
	}
	if err := yaml.Unmarshal(src, &doc); err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, op := range edits.All() {
		path := gatewayPrefix + edits.Path(op)
		served[path] = true
		post := doc.Paths[path].Post
		if post == nil {
			t.Errorf("%s: no POST %s in %s", op.Name(), path, openAPI)
			continue
		}
		// Each body field by name: whether it is an array.
		documented := map[string]bool{}
		for name, p := range post.RequestBody.Content["application/json"].Schema.Properties {
			documented[name] = p.Type == "array"
		}
		read := bodyFields(t, op)
		if !maps.Equal(documented, read) {
			t.Errorf("%s: the document's body is %v, the op reads %v (field: is an array)", path, documented, read)
		}
		if m := creditsRe.FindStringSubmatch(post.Summary); m != nil {
			credits := 0
			if m[2] == "" {
				credits, _ = strconv.Atoi(m[1])
			}
			if credits != op.Credits() {
				t.Errorf("%s: documented as costing %d, costs %d", path, credits, op.Credits())
			}
		}
	}
	for path, item := range doc.Paths {
		if item.Post != nil && strings.HasPrefix(path, gatewayPrefix+"/thumbnails/edit") && !served[path] {
			t.Errorf("%s is documented but not in the registry", path)
		}
	}
	if len(served) == 0 {
		t.Fatal("the registry is empty")
	}
}

// bodyFields are the fields of op's body by their JSON names, each saying
// whether it is a list. A body holds strings and lists of strings only,
// each named by its tag.
func bodyFields(t *testing.T, op edits.Op) map[string]bool {
	t.Helper()
	typ := reflect.TypeOf(op.Body()).Elem()
	fields := map[string]bool{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		list := f.Type == reflect.TypeFor[[]string]()
		if name == "" || !list && f.Type != reflect.TypeFor[*string]() {
			t.Errorf("%s: field %s is %s named %q; a body field is a *string or []string with a JSON name", op.Name(), f.Name, f.Type, name)
		}
		fields[name] = list
	}
	if len(fields) == 0 {
		t.Errorf("%s reads no field", op.Name())
	}
	return fields
}

// An edit's body is decoded as strictly as any other: an unknown field or
// a wrong type is a 400 naming it, field names match as encoding/json
// matches them, and the op reads strings and lists.
func TestEditBody(t *testing.T) {
	var edit edits.Op
	for _, op := range edits.All() {
		if op.Name() == "edit" {
			edit = op
		}
	}
	decode := func(s string) (*edits.EditBody, error) {
		body := edit.Body()
		err := httpx.Decode(httptest.NewRequest("POST", "/thumbnails/edit", strings.NewReader(s)), body)
		b, _ := body.(*edits.EditBody)
		return b, err
	}
	for s, want := range map[string]map[string]string{
		`{"imageUrl":"u","format":"png"}`:        {"format": "unknown field"},
		`{"imageUrl":5}`:                         {"imageUrl": "must be a string"},
		`{"referenceImageUrls":"u"}`:             {"referenceImageUrls": "must be an array"},
		`{"prompt":"a\u0001b","Niche":"gaming"}`: {"Niche": "unknown field"},
	} {
		_, err := decode(s)
		var ae *apierr.Error
		if !errors.As(err, &ae) || !reflect.DeepEqual(ae.Details["fields"], want) {
			t.Errorf("%s: %v, want a 400 naming %v", s, err, want)
		}
	}
	b, err := decode(`{"ImageURL":" u ","prompt":null,"referenceImageUrls":["a","b"]}`)
	if err != nil {
		t.Fatal(err)
	}
	if u := b.ImageURL; u == nil || *u != " u " || b.Prompt != nil || b.AspectRatio != nil ||
		!slices.Equal(b.ReferenceImageURLs, []string{"a", "b"}) {
		t.Errorf("decoded %v %v %v", b.ImageURL, b.Prompt, b.ReferenceImageURLs)
	}
}
