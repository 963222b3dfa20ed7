package providerkit

import (
	"fmt"
	"image/color"
	"strings"

	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/layout"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// Prompt is what a provider gets for one request: the instructions and
// the input images they refer to by position ("image 1" is Images[0]).
type Prompt struct {
	Text   string
	Images []Image
}

// Image is one input image as a provider receives it.
type Image struct {
	Role        Role
	Data        []byte // the file as stored, JPEG or PNG
	ContentType string // image/jpeg or image/png
}

// Role says why an input image is sent.
type Role string

// The roles, in the order images are sent.
const (
	RoleParent    Role = "parent"    // the thumbnail a variation starts from
	RoleFace      Role = "face"      // a person who must appear
	RoleLogo      Role = "logo"      // the brand's logo
	RoleReference Role = "reference" // a picture whose subject and mood to borrow
)

// maxSwatches is how many palette colours are named: past the dominant
// few, colours are noise to an image model.
const maxSwatches = 5

// Build writes the provider prompt for req and picks its input images
// within model m's limits. Images go in order of importance (the parent
// of a variation, the faces, the logo, then references), and one that
// would break a limit is left out; the text only mentions images actually
// sent. When m draws another ratio than req's, the prompt keeps what
// matters inside the part Fit keeps.
func Build(req engine.Request, m Model) Prompt {
	images := pickImages(req, m)
	var b strings.Builder
	line := func(format string, args ...any) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, format, args...)
	}

	w, h := req.Aspect.Size()
	if req.Aspect == thumbnail.Portrait {
		line("Design a vertical 9:16 YouTube Shorts thumbnail (%d×%d), meant to be read at a glance on a phone.", w, h)
	} else {
		line("Design a 16:9 YouTube thumbnail (%d×%d) that makes viewers click, readable at small sizes.", w, h)
	}
	if p := oneLine(req.Prompt); p != "" {
		line("Concept: %s", p)
	}
	if hl := oneLine(req.Headline); hl != "" {
		line("Headline: set the text “%s” exactly as written, in big bold letters with a stroke or shadow for contrast; no other text.", hl)
	} else {
		line("Headline: derive a punchy headline of 2 to 5 words from the concept, keywords first, in big bold capitals with a stroke or shadow for contrast; no other text.")
	}
	if s := req.Style; s != nil {
		line("%s", styleLine(s))
	}
	if br := req.Brand; br != nil {
		line("%s", brandLine(br))
	}
	for _, g := range groups(images) {
		line("%s %s", g.label(), roleGuidance(g.role, g.n, req))
	}
	if req.Template != nil {
		line("%s", templateLine(req.Template.Slots()))
	}
	if t := oneLine(req.Tweak); t != "" {
		line("Change requested: %s", t)
	}
	if top, side := m.SafeArea(req.Aspect); top > 0 || side > 0 {
		line("%s", safeAreaLine(m.Size(req.Aspect), top, side))
	}
	line("Clean composition on the rule of thirds, one clear focal point, strong contrast; no watermark, no border, no small print.")
	return Prompt{Text: b.String(), Images: images}
}

// safeAreaLine tells the model which band of its canvas survives the
// crop: the headline most often sits at the top, exactly where a centred
// crop of a 3:2 canvas to 16:9 cuts.
func safeAreaLine(s Size, top, side float64) string {
	if top > 0 {
		band := int(top*float64(s.H) + 0.5)
		return fmt.Sprintf("Safe area: the %s canvas is cropped to the final ratio, losing %d px at the top and %d px at the bottom; "+
			"fill those strips with background only and keep the headline, every face and the logo at least %d px further in from the top and bottom edges.",
			s, band, band, band/2)
	}
	band := int(side*float64(s.W) + 0.5)
	return fmt.Sprintf("Safe area: the %s canvas is cropped to the final ratio, losing %d px on the left and on the right; "+
		"fill those strips with background only and keep the headline, every face and the logo at least %d px further in from the sides.",
		s, band, band/2)
}

// pickImages lists req's input images in the order they are sent, within
// m's limits.
func pickImages(req engine.Request, m Model) []Image {
	var out []Image
	size := 0
	add := func(role Role, p *engine.Picture) {
		if p == nil || len(p.Data) == 0 || len(out) >= m.Images || len(p.Data) > m.ImageBytes || size+len(p.Data) > m.Bytes {
			return
		}
		size += len(p.Data)
		out = append(out, Image{Role: role, Data: p.Data, ContentType: contentType(p.Data)})
	}
	add(RoleParent, req.Parent)
	for i := range req.Faces {
		add(RoleFace, &req.Faces[i].Crop)
	}
	if req.Brand != nil {
		add(RoleLogo, req.Brand.Logo)
	}
	for i := range req.References {
		add(RoleReference, &req.References[i])
	}
	return out
}

// contentType names the format of a stored input image, which the
// service has already checked is JPEG or PNG.
func contentType(data []byte) string {
	if strings.HasPrefix(string(data[:min(len(data), 4)]), "\x89PNG") {
		return "image/png"
	}
	return "image/jpeg"
}

// group is a run of images of one role: images first..first+n-1.
type group struct {
	role     Role
	first, n int
}

func (g group) label() string {
	if g.n == 1 {
		return fmt.Sprintf("Image %d", g.first)
	}
	return fmt.Sprintf("Images %d–%d", g.first, g.first+g.n-1)
}

// groups splits images, which pickImages sorted by role, into runs.
func groups(images []Image) []group {
	var out []group
	for i, im := range images {
		if len(out) > 0 && out[len(out)-1].role == im.Role {
			out[len(out)-1].n++
			continue
		}
		out = append(out, group{role: im.Role, first: i + 1, n: 1})
	}
	return out
}

// roleGuidance completes "Image n …" for a run of images.
func roleGuidance(role Role, n int, req engine.Request) string {
	switch role {
	case RoleParent:
		return "is the thumbnail to vary: keep its subject, message and overall look, but change the composition, framing and colour accents so the result is clearly a different take."
	case RoleFace:
		names := make([]string, 0, len(req.Faces))
		for _, f := range req.Faces {
			if name := oneLine(f.Name); name != "" {
				names = append(names, name)
			}
		}
		who := "shows the person"
		if n > 1 {
			who = fmt.Sprintf("show the %d people", n)
		}
		if n == len(req.Faces) && len(names) == n {
			who += " (" + strings.Join(names, ", ") + ")"
		}
		return who + " who must appear in the thumbnail: keep every face recognisable, large and expressive, cleanly cut out from its background."
	case RoleLogo:
		return "is the brand logo: place it small in a corner, unaltered."
	default:
		if n == 1 {
			return "is a reference: borrow its subject, setting and mood, not its text."
		}
		return "are references: borrow their subject, setting and mood, not their text."
	}
}

// styleLine describes a saved style in words a model follows.
func styleLine(s *engine.Style) string {
	var b strings.Builder
	b.WriteString(heading("Style", s.Name))
	if d := oneLine(s.Description); d != "" {
		fmt.Fprintf(&b, " %s.", strings.TrimRight(d, "."))
	}
	if len(s.Palette) > 0 {
		hexes := make([]string, 0, maxSwatches)
		for _, sw := range s.Palette[:min(len(s.Palette), maxSwatches)] {
			hexes = append(hexes, hex(sw.Color))
		}
		fmt.Fprintf(&b, " Palette: %s.", strings.Join(hexes, ", "))
	}
	fmt.Fprintf(&b, " Look: %s, %s, %s, %s.",
		scale(s.Brightness, "dark and moody", "balanced brightness", "bright"),
		scale(s.Contrast, "soft low contrast", "moderate contrast", "punchy high contrast"),
		scale(s.Saturation, "muted colours", "natural saturation", "vivid saturated colours"),
		scale((s.Warmth+1)/2, "cool tones", "neutral tones", "warm tones"))
	return b.String()
}

// heading starts a line about a named saved thing: Style “Neon night”:.
func heading(kind, name string) string {
	if name = oneLine(name); name != "" {
		return kind + " “" + name + "”:"
	}
	return kind + ":"
}

// scale names a 0..1 measure by its third.
func scale(v float64, low, mid, high string) string {
	switch {
	case v < 1.0/3:
		return low
	case v > 2.0/3:
		return high
	default:
		return mid
	}
}

// brandLine describes a saved brand.
func brandLine(br *engine.Brand) string {
	var b strings.Builder
	b.WriteString(heading("Brand", br.Name))
	if len(br.Colors) > 0 {
		hexes := make([]string, len(br.Colors))
		for i, c := range br.Colors {
			hexes[i] = hex(c)
		}
		fmt.Fprintf(&b, " use the brand colours %s (primary first) for the headline, accents and background.", strings.Join(hexes, ", "))
	}
	if len(br.Fonts) > 0 {
		fmt.Fprintf(&b, " Set text in %s or a close match.", oneLine(strings.Join(br.Fonts, ", ")))
	}
	if len(br.Colors) == 0 && len(br.Fonts) == 0 {
		b.WriteString(" keep the look consistent with the channel's brand.")
	}
	return b.String()
}

// templateLine describes a remixed template's layout by its slots, the
// part of a layout every engine can honour.
func templateLine(slots []layout.Slot) string {
	if len(slots) == 0 {
		return "Layout: follow the composition of the remixed template."
	}
	parts := make([]string, len(slots))
	for i, s := range slots {
		parts[i] = fmt.Sprintf("%s (%s)", s.Name, s.Kind)
	}
	return "Layout: follow the remixed template, filling its slots in this order: " + strings.Join(parts, ", ") + "."
}

func hex(c color.RGBA) string { return fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B) }

// oneLine collapses user text to one line, so that it cannot break the
// prompt's structure of one instruction a line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
