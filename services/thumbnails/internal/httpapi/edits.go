package httpapi

import (
	"fmt"
	"net/http"
	"reflect"

	"hookline.dev/pkg/httpx"
	"hookline.dev/services/thumbnails/internal/edits"
)

// editDTO is the spec's edit result {id, imageUrl, prompt, creditsCost}
// with the rest of the thumbnail it made (operation, params, parentId...).
type editDTO struct {
	thumbnailDTO
	CreditsCost int `json:"creditsCost"`
}

// editHandler serves op's endpoint: its own body, decoded strictly, run
// by the service.
func (h *api) editHandler(op edits.Op) func(w http.ResponseWriter, r *http.Request) error {
	body := newEditBody(op)
	return func(w http.ResponseWriter, r *http.Request) error {
		b, err := body.decode(r)
		if err != nil {
			return err
		}
		e, err := h.svc.Edit(r.Context(), caller(r), op, b)
		if err != nil {
			return err
		}
		return httpx.Created(w, editDTO{thumbnailDTO: h.thumbnailOut(e.Thumbnail), CreditsCost: e.Credits})
	}
}

// editBody is the body of one edit endpoint: a struct type with a field
// for each field the op reads (edits.Fields), built once. httpx.Decode
// fills it as it fills every other endpoint's body, so an edit refuses an
// unknown field, a wrong type or forbidden text with the same 400s, in
// the same order, and matches field names the same way.
type editBody struct {
	typ   reflect.Type
	index map[string]int
}

func newEditBody(op edits.Op) editBody {
	fields := edits.Fields(op)
	b := editBody{index: make(map[string]int, len(fields))}
	sf := make([]reflect.StructField, len(fields))
	for i, f := range fields {
		typ := reflect.TypeFor[*string]()
		if f.List {
			typ = reflect.TypeFor[[]string]()
		}
		sf[i] = reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: typ, Tag: reflect.StructTag(fmt.Sprintf("json:%q", f.Name))}
		b.index[f.Name] = i
	}
	b.typ = reflect.StructOf(sf)
	return b
}

// decode reads r's body.
func (b editBody) decode(r *http.Request) (*edits.Body, error) {
	v := reflect.New(b.typ)
	if err := httpx.Decode(r, v.Interface()); err != nil {
		return nil, err
	}
	return edits.NewBody(bodyValues{v: v.Elem(), index: b.index}), nil
}

// bodyValues are a decoded editBody's fields by name.
type bodyValues struct {
	v     reflect.Value
	index map[string]int
}

func (b bodyValues) String(name string) *string {
	s, _ := b.field(name).(*string)
	return s
}

func (b bodyValues) Strings(name string) []string {
	s, _ := b.field(name).([]string)
	return s
}

func (b bodyValues) field(name string) any {
	i, ok := b.index[name]
	if !ok {
		return nil
	}
	return b.v.Field(i).Interface()
}
