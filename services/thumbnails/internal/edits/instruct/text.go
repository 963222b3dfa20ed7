package instruct

import (
	"image"
	"image/color"

	"hookline.dev/pkg/media/imaging"
	"hookline.dev/pkg/media/vision"
)

// textStyle is how added text looks: thumbnail lettering, white with a
// near-black outline and a shadow, readable on any picture.
var textStyle = imaging.Style{
	Font:         textFont,
	Fill:         color.NRGBA{255, 255, 255, 255},
	Outline:      color.NRGBA{12, 12, 16, 255},
	OutlineWidth: 0.07,
	Shadow:       0.55,
}

// Text geometry, as shares of the picture.
const (
	// textMargin is the room kept from the edges, of the shorter side.
	textMargin = 0.04
	// faceAvoidance: a place clear of faces is taken when the text is
	// at least this share of the size it would have over them.
	faceAvoidance = 0.55
)

// textSizes are a text's geometry by size (small, normal, big): width is
// the most of the picture's width it spans, maxSize caps the font size,
// of the picture's height, so that a short word is a headline, not a
// wall.
var textSizes = [4]struct{ width, maxSize float64 }{
	small:  {0.5, 0.1},
	normal: {0.8, 0.2},
	big:    {0.92, 0.3},
}

// styleFor is textStyle in o's colour: the outline stays near-black
// unless the letters are dark themselves, which a light outline then
// sets off.
func styleFor(o op) imaging.Style {
	style := textStyle
	if o.colourWord == "" {
		return style
	}
	c := o.colour
	style.Fill = color.NRGBA{c.R, c.G, c.B, 255}
	if imaging.Luma(c.R, c.G, c.B) < 90 {
		style.Outline = color.NRGBA{245, 245, 245, 255}
	}
	return style
}

// textBand is the region of the picture a text position puts text in; no
// pixel outside it changes: the top or bottom third, or the left or right
// half.
func textBand(bounds image.Rectangle, where string) image.Rectangle {
	w, h := bounds.Dx(), bounds.Dy()
	var r image.Rectangle
	switch where {
	case "top":
		r = image.Rect(0, 0, w, h/3)
	case "left":
		r = image.Rect(0, 0, w/2, h)
	case "right":
		r = image.Rect(w-w/2, 0, w, h)
	default:
		r = image.Rect(0, h-h/3, w, h)
	}
	return r.Add(bounds.Min)
}

// spot is a candidate box for a text, and the block laid out in it.
type spot struct {
	where string
	box   image.Rectangle
	block imaging.Block
	clear bool // no face under the box
}

// addText sets o's text in the band of its position ("" picks bottom,
// or top when only the top is clear of faces), in its colour and size,
// in the largest place of the band that keeps faces uncovered while the
// text stays at least faceAvoidance of the size it would have over them.
func (s *state) addText(o op) error {
	wheres := []string{o.where}
	if o.where == "" {
		wheres = []string{"bottom", "top"}
	}
	var full, best *spot
	for _, wh := range wheres {
		spots, err := s.textSpots(o, wh)
		if err != nil {
			return err
		}
		if len(spots) == 0 {
			continue // no room at all: a picture a few pixels high
		}
		band := spots[0]
		if full == nil {
			full = &band
		}
		for i := range spots {
			c := spots[i]
			if c.clear && c.block.Size() >= faceAvoidance*band.block.Size() && (best == nil || c.block.Size() > best.block.Size()) {
				best = &c
			}
		}
		if best != nil {
			break
		}
	}
	if best != nil {
		return best.block.Draw(s.img, anchor(best.box, best.block.Bounds().Size(), best.where))
	}
	if full == nil {
		return nil
	}
	// No clear place keeps the text legible: it goes over the faces,
	// where it covers the least of them.
	return full.block.Draw(s.img, leastCovering(full.box, full.block.Bounds().Size(), full.where, s.faces))
}

// textSpots lays o's text out in the whole text box of the band (first)
// and in the parts of it beside the heads that overlap it.
func (s *state) textSpots(o op, where string) ([]spot, error) {
	size := textSizes[max(o.size, normal)]
	pic := s.img.Rect
	band := textBand(pic, where)
	m := int(textMargin*float64(min(pic.Dx(), pic.Dy())) + 0.5)
	box := band.Inset(m)
	if box.Empty() {
		box, m = band, 0 // a picture too small for margins
	}
	if where == "top" || where == "bottom" {
		side := (pic.Dx() - int(size.width*float64(pic.Dx()))) / 2
		box.Min.X, box.Max.X = max(box.Min.X, side), min(box.Max.X, pic.Dx()-side)
	}
	var heads []image.Rectangle
	for _, f := range s.faces {
		if h := head(f.Rect); h.Overlaps(box) {
			heads = append(heads, h)
		}
	}
	boxes := []image.Rectangle{box}
	if len(heads) > 0 {
		u := heads[0]
		for _, h := range heads[1:] {
			u = u.Union(h)
		}
		// Away from the faces across the band, then beside them along it.
		above, below := box, box
		above.Max.Y, below.Min.Y = min(box.Max.Y, u.Min.Y-m/2), max(box.Min.Y, u.Max.Y+m/2)
		before, after := box, box
		before.Max.X, after.Min.X = min(box.Max.X, u.Min.X-m/2), max(box.Min.X, u.Max.X+m/2)
		boxes = append(boxes, above, below, before, after)
	}
	style := styleFor(o)
	switch where {
	case "left":
		style.Align = imaging.Left
	case "right":
		style.Align = imaging.Right
	}
	maxSize := size.maxSize * float64(pic.Dy())
	var out []spot
	for i, b := range boxes {
		if b.Dx() <= 0 || b.Dy() <= 0 {
			continue
		}
		block, err := imaging.Fit(o.text, style, b.Size(), 2, maxSize)
		if err != nil {
			return nil, err
		}
		out = append(out, spot{where: where, box: b, block: block, clear: i > 0 || len(heads) == 0})
	}
	return out, nil
}

// head is the part of the picture a face's head takes: the detector's
// box spans brows to chin, so the forehead and hair above it and a
// little below the chin are added.
func head(face image.Rectangle) image.Rectangle {
	w, h := face.Dx(), face.Dy()
	return image.Rect(face.Min.X-w*15/100, face.Min.Y-h*60/100, face.Max.X+w*15/100, face.Max.Y+h*25/100)
}

// leastCovering is the position in box for a block of the given size
// that covers the least of the faces, their upper half (brows and eyes)
// counting double; on a tie, the band's usual anchor wins. The block
// may go to either end or the middle of the box, each way.
func leastCovering(box image.Rectangle, size image.Point, where string, faces []vision.Face) image.Point {
	usual := anchor(box, size, where)
	candidates := []image.Point{usual}
	for _, x := range []int{box.Min.X, box.Min.X + (box.Dx()-size.X)/2, box.Max.X - size.X} {
		for _, y := range []int{box.Min.Y, box.Min.Y + (box.Dy()-size.Y)/2, box.Max.Y - size.Y} {
			candidates = append(candidates, image.Pt(x, y))
		}
	}
	covered := func(p image.Point) int {
		r := image.Rectangle{Min: p, Max: p.Add(size)}
		n := 0
		for _, f := range faces {
			upper := f.Rect
			upper.Max.Y = (f.Rect.Min.Y + f.Rect.Max.Y) / 2
			n += area(r.Intersect(f.Rect)) + area(r.Intersect(upper))
		}
		return n
	}
	best, least := usual, covered(usual)
	for _, p := range candidates[1:] {
		if c := covered(p); c < least {
			best, least = p, c
		}
	}
	return best
}

func area(r image.Rectangle) int { return r.Dx() * r.Dy() }

// anchor is where a block of the given size goes in box: against the
// band's own edge (the top of the picture for top, and so on) and
// centred the other way.
func anchor(box image.Rectangle, size image.Point, where string) image.Point {
	cx := box.Min.X + (box.Dx()-size.X)/2
	cy := box.Min.Y + (box.Dy()-size.Y)/2
	switch where {
	case "top":
		return image.Pt(cx, box.Min.Y)
	case "left":
		return image.Pt(box.Min.X, cy)
	case "right":
		return image.Pt(box.Max.X-size.X, cy)
	}
	return image.Pt(cx, box.Max.Y-size.Y)
}
