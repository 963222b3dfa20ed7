package openapi

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// The docs page is rendered on the server into one HTML file without
// scripts or external resources, so it works offline and behind any
// content security policy.

//go:embed docs.html.tmpl
var pageTemplate string

var pageTmpl = template.Must(template.New("docs").Parse(pageTemplate))

// methodOrder is the order of an endpoint's operations on the page.
var methodOrder = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"}

const (
	schemaPrefix   = "#/components/schemas/"
	responsePrefix = "#/components/responses/"
)

type pageView struct {
	Title, Version, Summary string
	Intro                   template.HTML
	Security                []securityView
	Groups                  []groupView
	Responses               []responseView
	Schemas                 []schemaView
}

type securityView struct {
	Name, Scheme string
	Description  template.HTML
}

type groupView struct {
	Name, Anchor string
	Description  template.HTML
	Ops          []opView
}

type opView struct {
	Anchor, Method, Path, Summary, ID, Service, Auth string
	Description                                      template.HTML
	Params                                           []paramView
	Body                                             *bodyView
	Responses                                        []responseView
}

type paramView struct {
	Name, In, Notes string
	Required        bool
	Type            template.HTML
	Description     template.HTML
}

type bodyView struct {
	Required bool
	Contents []contentView
}

type contentView struct {
	MediaType string
	Type      template.HTML
	Fields    []fieldView
}

// responseView is a response; Ref names a shared response, shown once in
// its own section and linked from each operation.
type responseView struct {
	Status, Ref, Anchor string
	Description         template.HTML
	Headers             []paramView
	Contents            []contentView
}

type fieldView struct {
	Name, Notes string
	Depth       int
	Required    bool
	Type        template.HTML
	Description template.HTML
}

type schemaView struct {
	Name, Anchor, Notes string
	Type                template.HTML
	Description         template.HTML
	Fields              []fieldView
}

// render turns the document into the docs page.
func render(doc *openapi3.T) ([]byte, error) {
	v := pageView{Title: doc.Info.Title, Version: doc.Info.Version, Summary: doc.Info.Summary, Intro: markdown(doc.Info.Description)}
	if doc.Components != nil {
		for _, name := range sortedKeys(doc.Components.SecuritySchemes) {
			s := doc.Components.SecuritySchemes[name].Value
			v.Security = append(v.Security, securityView{Name: name, Scheme: s.Type + " " + s.Scheme, Description: markdown(s.Description)})
		}
	}
	groups := map[string]*groupView{}
	var order []string
	group := func(name, description string) *groupView {
		if g, ok := groups[name]; ok {
			return g
		}
		groups[name] = &groupView{Name: name, Anchor: "tag-" + anchor(name), Description: markdown(description)}
		order = append(order, name)
		return groups[name]
	}
	for _, t := range doc.Tags {
		group(t.Name, t.Description)
	}
	paths := doc.Paths.Map()
	for _, path := range sortedKeys(paths) {
		item := paths[path]
		ops := item.Operations()
		for _, method := range methodOrder {
			op, ok := ops[method]
			if !ok {
				continue
			}
			tag := "Other"
			if len(op.Tags) > 0 {
				tag = op.Tags[0]
			}
			g := group(tag, "")
			g.Ops = append(g.Ops, operation(doc, path, method, item, op))
		}
	}
	for _, name := range order {
		if g := groups[name]; len(g.Ops) > 0 {
			v.Groups = append(v.Groups, *g)
		}
	}
	if doc.Components != nil {
		for _, name := range sortedKeys(doc.Components.Responses) {
			rv := response(name, doc.Components.Responses[name].Value)
			rv.Anchor = "response-" + anchor(name)
			v.Responses = append(v.Responses, rv)
		}
		for _, name := range sortedKeys(doc.Components.Schemas) {
			ref := doc.Components.Schemas[name]
			v.Schemas = append(v.Schemas, schemaView{
				Name: name, Anchor: "schema-" + name, Type: typeHTML(&openapi3.SchemaRef{Value: ref.Value}),
				Notes: constraints(ref.Value), Description: markdown(ref.Value.Description), Fields: fields(ref.Value, "", 0),
			})
		}
	}
	var b bytes.Buffer
	if err := pageTmpl.Execute(&b, v); err != nil {
		return nil, fmt.Errorf("openapi: render docs: %w", err)
	}
	return b.Bytes(), nil
}

func operation(doc *openapi3.T, path, method string, item *openapi3.PathItem, op *openapi3.Operation) opView {
	o := opView{
		Anchor: "op-" + anchor(op.OperationID), Method: method, Path: path, Summary: op.Summary, ID: op.OperationID,
		Description: markdown(op.Description),
	}
	if s, ok := item.Extensions["x-hookline-service"].(string); ok {
		o.Service = s
	}
	sec := doc.Security
	if op.Security != nil {
		sec = *op.Security
	}
	var schemes []string
	for _, req := range sec {
		schemes = append(schemes, sortedKeys(req)...)
	}
	o.Auth = strings.Join(schemes, " or ")
	if o.Auth == "" {
		o.Auth = "none"
	}
	// Operation parameters override the path's of the same name and place.
	params := map[string]*openapi3.Parameter{}
	var keys []string
	for _, list := range []openapi3.Parameters{item.Parameters, op.Parameters} {
		for _, p := range list {
			k := p.Value.In + " " + p.Value.Name
			if _, ok := params[k]; !ok {
				keys = append(keys, k)
			}
			params[k] = p.Value
		}
	}
	for _, k := range keys {
		o.Params = append(o.Params, parameter(params[k]))
	}
	if rb := op.RequestBody; rb != nil && rb.Value != nil {
		o.Body = &bodyView{Required: rb.Value.Required, Contents: contents(rb.Value.Content)}
	}
	responses := op.Responses.Map()
	for _, status := range sortedKeys(responses) {
		ref := responses[status]
		if name, ok := strings.CutPrefix(ref.Ref, responsePrefix); ok {
			o.Responses = append(o.Responses, responseView{Status: status, Ref: name, Anchor: "response-" + anchor(name), Description: markdown(deref(ref.Value.Description))})
			continue
		}
		o.Responses = append(o.Responses, response(status, ref.Value))
	}
	return o
}

func response(status string, r *openapi3.Response) responseView {
	rv := responseView{Status: status, Contents: contents(r.Content), Description: markdown(deref(r.Description))}
	for _, name := range sortedKeys(r.Headers) {
		h := r.Headers[name].Value
		hv := parameter(&h.Parameter)
		hv.Name = name
		rv.Headers = append(rv.Headers, hv)
	}
	return rv
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func parameter(p *openapi3.Parameter) paramView {
	v := paramView{Name: p.Name, In: p.In, Required: p.Required, Description: markdown(p.Description)}
	if p.Schema != nil {
		v.Type = typeHTML(p.Schema)
		if p.Schema.Ref == "" {
			v.Notes = constraints(p.Schema.Value)
		}
	}
	return v
}

func contents(c openapi3.Content) []contentView {
	var out []contentView
	for _, mt := range sortedKeys(c) {
		cv := contentView{MediaType: mt}
		if s := c[mt].Schema; s != nil {
			cv.Type = typeHTML(s)
			if s.Ref == "" {
				cv.Fields = fields(s.Value, "", 0)
			}
		}
		out = append(out, cv)
	}
	return out
}

// fields lists the properties of s, required ones first, descending into
// inline objects and arrays of them; named schemas are links instead.
func fields(s *openapi3.Schema, prefix string, depth int) []fieldView {
	if s == nil || depth > 8 {
		return nil
	}
	var out []fieldView
	names := sortedKeys(s.Properties)
	slices.SortStableFunc(names, func(a, b string) int {
		ra, rb := slices.Contains(s.Required, a), slices.Contains(s.Required, b)
		switch {
		case ra && !rb:
			return -1
		case rb && !ra:
			return 1
		}
		return 0
	})
	for _, name := range names {
		p := s.Properties[name]
		f := fieldView{Name: prefix + name, Depth: depth, Required: slices.Contains(s.Required, name), Type: typeHTML(p)}
		if p.Ref == "" && p.Value != nil {
			f.Notes, f.Description = constraints(p.Value), markdown(p.Value.Description)
		}
		out = append(out, f)
		if p.Ref != "" || p.Value == nil {
			continue
		}
		out = append(out, fields(p.Value, prefix+name+".", depth+1)...)
		if it := p.Value.Items; it != nil && it.Ref == "" {
			out = append(out, fields(it.Value, prefix+name+"[].", depth+1)...)
		}
	}
	for _, c := range compositions(s) {
		for i, sub := range c.refs {
			label := fmt.Sprintf("(%s #%d)", c.label, i+1)
			if sub.Value != nil && sub.Value.Title != "" {
				label = fmt.Sprintf("(%s #%d: %s)", c.label, i+1, sub.Value.Title)
			}
			f := fieldView{Name: label, Depth: depth, Type: typeHTML(sub)}
			if sub.Ref == "" && sub.Value != nil {
				f.Notes = constraints(sub.Value)
				if len(sub.Value.Properties) == 0 && len(sub.Value.Required) > 0 {
					f.Notes = strings.TrimPrefix(f.Notes+"; requires "+strings.Join(sub.Value.Required, ", "), "; ")
				}
			}
			out = append(out, f)
			if sub.Ref == "" {
				out = append(out, fields(sub.Value, prefix, depth+1)...)
			}
		}
	}
	for _, c := range []struct {
		label string
		ref   *openapi3.SchemaRef
	}{{"(not)", s.Not}, {"(if)", s.If}, {"(then)", s.Then}, {"(else)", s.Else}} {
		if c.ref != nil {
			b, _ := json.Marshal(c.ref)
			out = append(out, fieldView{Name: c.label, Depth: depth, Notes: string(b)})
		}
	}
	return out
}

type composition struct {
	label string
	refs  openapi3.SchemaRefs
}

func compositions(s *openapi3.Schema) []composition {
	return []composition{{"all of", s.AllOf}, {"one of", s.OneOf}, {"any of", s.AnyOf}}
}

// typeHTML is the type of a schema in a few words, with named schemas as
// links to their section.
func typeHTML(ref *openapi3.SchemaRef) template.HTML {
	if ref == nil {
		return "any"
	}
	if name, ok := strings.CutPrefix(ref.Ref, schemaPrefix); ok {
		return template.HTML(`<a href="#schema-` + html.EscapeString(name) + `">` + html.EscapeString(name) + `</a>`) //nolint:gosec // G203: the name is escaped; the document is ours, embedded at build time
	}
	s := ref.Value
	if s == nil {
		return template.HTML(html.EscapeString(ref.Ref)) //nolint:gosec // G203: escaped
	}
	var parts []string
	for _, t := range s.Type.Slice() {
		switch {
		case t == openapi3.TypeArray:
			parts = append(parts, "array of "+string(typeHTML(s.Items)))
		case t == openapi3.TypeObject && s.AdditionalProperties.Schema != nil:
			parts = append(parts, "map of "+string(typeHTML(s.AdditionalProperties.Schema)))
		case s.Format != "" && t != openapi3.TypeNull:
			parts = append(parts, html.EscapeString(t+" ("+s.Format+")"))
		default:
			parts = append(parts, html.EscapeString(t))
		}
	}
	if len(parts) == 0 {
		for _, c := range compositions(s) {
			if len(c.refs) == 0 {
				continue
			}
			var subs []string
			for _, sub := range c.refs {
				if sub.Ref != "" {
					subs = append(subs, string(typeHTML(sub)))
				} else {
					subs = append(subs, "object")
				}
			}
			parts = append(parts, c.label+" "+strings.Join(subs, ", "))
		}
	}
	if len(parts) == 0 {
		parts = []string{"any"}
	}
	return template.HTML(strings.Join(parts, " | ")) //nolint:gosec // G203: every part is escaped or built from escaped parts
}

// constraints describes the limits of s in a line.
func constraints(s *openapi3.Schema) string {
	if s == nil {
		return ""
	}
	var out []string
	add := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	if s.Const != nil {
		add("= %s", jsonText(s.Const))
	}
	if len(s.Enum) > 0 {
		add("one of %s", jsonList(s.Enum))
	}
	if r := bounds(s.Min, s.Max); r != "" {
		add("%s", r)
	}
	if s.MinLength > 0 || s.MaxLength != nil {
		add("length %s", bounds(lowerBound(s.MinLength), floatOf(s.MaxLength)))
	}
	if s.MinItems > 0 || s.MaxItems != nil {
		add("%s items", bounds(lowerBound(s.MinItems), floatOf(s.MaxItems)))
	}
	if s.MinProps > 0 {
		add("at least %d field(s)", s.MinProps)
	}
	if s.Pattern != "" {
		add("pattern %s", s.Pattern)
	}
	if s.Default != nil {
		add("default %s", jsonText(s.Default))
	}
	if len(s.Examples) > 0 {
		add("e.g. %s", jsonList(s.Examples))
	}
	if s.AdditionalProperties.Has != nil && !*s.AdditionalProperties.Has ||
		s.UnevaluatedProperties.Has != nil && !*s.UnevaluatedProperties.Has {
		add("no other fields")
	}
	return strings.Join(out, "; ")
}

// lowerBound is a minLength/minItems as a bound; 0 is no bound.
func lowerBound(n uint64) *float64 {
	if n == 0 {
		return nil
	}
	f := float64(n)
	return &f
}

func floatOf(n *uint64) *float64 {
	if n == nil {
		return nil
	}
	f := float64(*n)
	return &f
}

func bounds(lo, hi *float64) string {
	num := func(f *float64) string { return strconv.FormatFloat(*f, 'f', -1, 64) }
	switch {
	case lo != nil && hi != nil:
		return num(lo) + ".." + num(hi)
	case lo != nil:
		return "≥ " + num(lo)
	case hi != nil:
		return "≤ " + num(hi)
	}
	return ""
}

func jsonList(vs []any) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = jsonText(v)
	}
	return strings.Join(out, ", ")
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

var (
	codeSpan   = regexp.MustCompile("`([^`]+)`")
	strongSpan = regexp.MustCompile(`\*\*([^*]+)\*\*`)
)

// markdown renders the little Markdown the document uses: paragraphs,
// "- " lists, `code` and **strong**.
func markdown(s string) template.HTML {
	var b strings.Builder
	for _, block := range strings.Split(strings.TrimSpace(s), "\n\n") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		if lines[0] == "" {
			continue
		}
		if strings.HasPrefix(lines[0], "- ") {
			b.WriteString("<ul>")
			var item []string
			flush := func() {
				if len(item) > 0 {
					b.WriteString("<li>" + inline(strings.Join(item, " ")) + "</li>")
				}
				item = nil
			}
			for _, l := range lines {
				if rest, ok := strings.CutPrefix(l, "- "); ok {
					flush()
					l = rest
				}
				item = append(item, strings.TrimSpace(l))
			}
			flush()
			b.WriteString("</ul>")
			continue
		}
		for i := range lines {
			lines[i] = strings.TrimSpace(lines[i])
		}
		b.WriteString("<p>" + inline(strings.Join(lines, " ")) + "</p>")
	}
	return template.HTML(b.String()) //nolint:gosec // G203: inline escapes the text before adding markup
}

func inline(s string) string {
	s = html.EscapeString(s)
	s = codeSpan.ReplaceAllString(s, "<code>$1</code>")
	return strongSpan.ReplaceAllString(s, "<strong>$1</strong>")
}

var nonAnchor = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

func anchor(s string) string { return nonAnchor.ReplaceAllString(s, "-") }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
