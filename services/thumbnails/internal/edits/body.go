package edits

import "slices"

// Body is an edit request's body as the transport decoded it, read by
// field name. It records the fields read: an op's fields are the ones its
// Parse reads (see Fields), and the transport refuses any other as
// unknown.
type Body struct {
	values Values
	read   []Field
}

// Values are a decoded body's fields by name; a field that was not sent,
// or was null, is nil.
type Values interface {
	String(name string) *string
	Strings(name string) []string
}

// Field is a body field an op reads.
type Field struct {
	Name string
	// List says the field is an array of strings; otherwise it is a
	// string.
	List bool
}

// NewBody is the body whose fields are v.
func NewBody(v Values) *Body { return &Body{values: v} }

// String is the string field name, nil when not sent.
func (b *Body) String(name string) *string {
	b.note(Field{Name: name})
	if b.values == nil {
		return nil
	}
	return b.values.String(name)
}

// Strings is the list field name, nil when not sent.
func (b *Body) Strings(name string) []string {
	b.note(Field{Name: name, List: true})
	if b.values == nil {
		return nil
	}
	return b.values.Strings(name)
}

func (b *Body) note(f Field) {
	if !slices.Contains(b.read, f) {
		b.read = append(b.read, f)
	}
}

// Fields lists the fields op reads, in the order it reads them: the
// schema of its body.
func Fields(op Op) []Field {
	var b Body
	// An empty body is refused; what matters is what Parse read.
	_, _ = op.Parse(&b, false)
	return b.read
}
