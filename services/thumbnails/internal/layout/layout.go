// Package layout is the declarative design of a template: where its
// background, text, face and accents go and which colour roles they take.
// Layouts are stored as JSON in the templates table (seeded by migration)
// and drawn by the local compositor; providers get them as guidance.
package layout

// Layout is a template's design. Its fields are owned by the compositor
// (internal/compose); the service only stores, validates and lists them.
type Layout struct {
	slots []Slot
}

// Slot is one thing a user can fill when remixing a template.
type Slot struct {
	Name string // e.g. headline, face, background
	Kind string // text, face, image, color
}

// Slots lists what a remix of the layout can fill, in drawing order.
func (l Layout) Slots() []Slot { return l.slots }

// Parse decodes and validates a layout document (strict: unknown fields
// are an error).
func Parse(data []byte) (Layout, error) {
	panic("layout.Parse: owned by the compositor helper")
}
