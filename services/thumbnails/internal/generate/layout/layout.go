// Package layout is the declarative design of a template: where its
// background, text, face and accents go and which colour roles they take.
// Layouts are stored as JSON in the templates table (seeded by migration)
// and drawn by the local compositor; providers get them as guidance.
//
// Geometry is relative: a Box is a fraction of the canvas, so one layout
// draws at any size. Font sizes and stroke widths are fractions of the
// canvas's short side, so text keeps its weight across aspect ratios.
package layout

import (
	"image/color"
)

// Role is a colour role: layouts name roles, and the palette in force
// (the layout's own, a brand's, a style's or a seed's) gives them colours.
type Role string

// The colour roles.
const (
	RoleBackground  Role = "background"
	RoleBackground2 Role = "background2"
	RolePrimary     Role = "primary"
	RoleAccent      Role = "accent"
	RoleText        Role = "text"
	RoleStroke      Role = "stroke"
)

// Roles lists every colour role in a stable order.
func Roles() []Role {
	return []Role{RoleBackground, RoleBackground2, RolePrimary, RoleAccent, RoleText, RoleStroke}
}

// Palette maps each role to a colour.
type Palette map[Role]color.RGBA

// Box is a rectangle in canvas fractions: X and Y of its top-left corner,
// W and H its size, all within 0..1.
type Box struct{ X, Y, W, H float64 }

// Aspect ratios a layout is designed for.
const (
	Landscape = "16:9"
	Portrait  = "9:16"
)

// BackgroundKind is how the background is painted.
type BackgroundKind string

// The background kinds.
const (
	// BgGradient is a linear gradient between the roles along Angle.
	BgGradient BackgroundKind = "gradient"
	// BgRadial is a glow of the first role at Center fading into the last.
	BgRadial BackgroundKind = "radial"
	// BgSplit is two flat halves divided by a line at Angle through Center.
	BgSplit BackgroundKind = "split"
	// BgSolid is the first role, flat.
	BgSolid BackgroundKind = "solid"
	// BgReference is the reference image (or a variation's parent),
	// cover-cropped, blurred and graded; a gradient of the roles when there
	// is none.
	BgReference BackgroundKind = "reference"
	// BgStripes is diagonal bands alternating the roles along Angle.
	BgStripes BackgroundKind = "stripes"
	// BgBurst is rays of the roles from Center, a comic-style sunburst.
	BgBurst BackgroundKind = "burst"
)

// Background is the bottom layer.
type Background struct {
	Kind   BackgroundKind
	Colors []Role // one to three roles, in the order the kind uses them
	Angle  float64
	// CenterX, CenterY place the glow (radial), the rays (burst) or the
	// split line, in canvas fractions.
	CenterX, CenterY float64
	Blur             float64 // reference: 0..1, how much it is blurred
	Dim              float64 // reference: 0..1, how much it is darkened
}

// Case is how a text slot's words are cased.
type Case string

// The cases.
const (
	CaseUpper Case = "upper"
	CaseLower Case = "lower"
	CaseTitle Case = "title"
	CaseAsIs  Case = "none"
)

// Align is a horizontal alignment.
type Align string

// The alignments.
const (
	AlignLeft   Align = "left"
	AlignCenter Align = "center"
	AlignRight  Align = "right"
)

// VAlign is a vertical alignment.
type VAlign string

// The vertical alignments.
const (
	VAlignTop    VAlign = "top"
	VAlignMiddle VAlign = "middle"
	VAlignBottom VAlign = "bottom"
)

// Text slot names with a meaning to the compositor: the headline takes the
// request's headline (or the one derived from its prompt), the subline the
// prompt's next keywords. Any other slot shows its Text.
const (
	SlotHeadline = "headline"
	SlotSubline  = "subline"
)

// Text is a text slot.
type Text struct {
	Name   string
	Box    Box
	Font   string  // a pkg/media/fonts name
	Size   float64 // largest font size, as a fraction of the short side; auto-fit shrinks it
	Case   Case
	Align  Align
	VAlign VAlign
	// Stroke is the outline width as a fraction of the font size; 0 draws
	// none.
	Stroke      float64
	Shadow      bool
	Color       Role
	StrokeColor Role
	// Highlight, when set, colours the line's key word.
	Highlight Role
	// Plate, when set, fills a rounded box behind the text.
	Plate    Role
	MaxWords int
	MaxLines int
	// Text is the slot's fixed text, and the sample a preview shows.
	Text string
	// Rotate tilts the text block, in degrees (counter-clockwise).
	Rotate float64
}

// Shape is how a face is cut out.
type Shape string

// The face shapes.
const (
	// ShapeCutout drops the photo's plain backdrop and softens the edge of
	// what remains into a tall ellipse.
	ShapeCutout Shape = "cutout"
	ShapeCircle Shape = "circle"
	ShapeSquare Shape = "square"
)

// Side is where a face sits in its box, and so which way the scene faces.
type Side string

// The sides.
const (
	SideLeft   Side = "left"
	SideRight  Side = "right"
	SideCenter Side = "center"
)

// Face is the face slot: where the request's faces go, side by side.
type Face struct {
	Box     Box
	Shape   Shape
	Outline Role // empty: no outline
	// OutlineWidth is a fraction of the face's size.
	OutlineWidth float64
	Shadow       bool
	Side         Side
}

// AccentKind is a decoration.
type AccentKind string

// The accents.
const (
	AccentArrow  AccentKind = "arrow"
	AccentCircle AccentKind = "circle"
	AccentBadge  AccentKind = "badge"
	AccentBar    AccentKind = "bar"
	AccentBurst  AccentKind = "burst"
	AccentFrame  AccentKind = "frame"
)

// Accent is a shape drawn over the background: an arrow, a ring, a badge
// with a word, a bar, a starburst with a word, a frame around the canvas.
type Accent struct {
	Kind  AccentKind
	Box   Box
	Color Role
	// TextColor colours Text on a badge or burst.
	TextColor Role
	// Text on a badge or a burst. With AutoText, the compositor puts the
	// badge word the prompt asks for there instead (NEW, VS, UPDATE, TIER
	// LIST, LIVE, FREE, 50% OFF, #1, 2026, …), and keeps Text when it asks
	// for none.
	Text     string
	AutoText bool
	// WhenAsked draws a badge or burst only when the prompt asks for a
	// badge word (it implies AutoText); Text is then optional, the word a
	// template preview shows.
	WhenAsked bool
	// Angle is where an arrow points, in degrees (0 right, 90 down), unless
	// it aims at the face (AimFace).
	Angle   float64
	AimFace bool
}

// Grade is the final colour treatment.
type Grade string

// The grades.
const (
	GradePunchy Grade = "punchy"
	GradeWarm   Grade = "warm"
	GradeCool   Grade = "cool"
	GradeMoody  Grade = "moody"
	GradeClean  Grade = "clean"
)

// Layout is a template's design.
type Layout struct {
	// Aspect is the aspect ratio the boxes were designed for; drawing at
	// the other one transposes them.
	Aspect     string
	Background Background
	Texts      []Text // drawn in order, after the face
	Face       *Face  // nil: the layout has no face slot
	Accents    []Accent
	Palette    Palette
	Grade      Grade
	slots      []Slot
}

// Slot is one thing a user can fill when remixing a template.
type Slot struct {
	Name string // e.g. headline, face, background
	Kind string // text, face, image, color
}

// Slots lists what a remix of the layout can fill, in drawing order.
func (l Layout) Slots() []Slot { return l.slots }

// Text returns the text slot called name.
func (l Layout) Text(name string) (Text, bool) {
	for _, t := range l.Texts {
		if t.Name == name {
			return t, true
		}
	}
	return Text{}, false
}
