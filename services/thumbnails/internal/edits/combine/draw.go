package combine

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"strings"

	xdraw "golang.org/x/image/draw"

	"hookline.dev/pkg/media/fonts"
	"hookline.dev/pkg/media/imaging"
	"hookline.dev/pkg/media/vision"
)

// canvases are the canvas sizes by aspect ratio: "" is 16:9.
var canvases = map[string]image.Point{"": {1280, 720}, "16:9": {1280, 720}, "9:16": {720, 1280}}

// Proportions of the drawing, as shares of the canvas's shorter side
// unless said otherwise.
const (
	dividerShare  = 1.0 / 120 // the white line between the halves
	insetWidth    = 0.30      // of the canvas width, for an inset of its shape
	insetMinRatio = 3.0 / 4   // the inset's width/height, at least
	insetMaxRatio = 16.0 / 9  // and at most
	insetMargin   = 0.035
	insetFrame    = 1.0 / 180
	labelSize     = 0.065 // BEFORE/AFTER and names
	labelMargin   = 0.04
	badgeRadius   = 0.105
)

// labelFont sets the labels and the VS badge.
const labelFont = fonts.Heavy

var (
	background = color.NRGBA{17, 17, 20, 255}
	white      = color.NRGBA{255, 255, 255, 255}
	ink        = color.NRGBA{17, 17, 20, 255}
	badgeFill  = color.NRGBA{255, 200, 0, 255}
	labelPanel = color.NRGBA{0, 0, 0, 165}
)

// Combine draws a and b on a new canvas of the aspect ratio ("16:9",
// "9:16", or "" for 16:9) in layout l, as the package comment describes;
// facesA and facesB are the pictures' faces in their own coordinates.
// It fails only for an unknown aspect or a font that cannot be loaded.
func Combine(a, b image.Image, l Layout, aspect string, facesA, facesB []vision.Face) (*image.NRGBA, error) {
	size, ok := canvases[aspect]
	if !ok {
		return nil, fmt.Errorf("combine: unknown aspect ratio %q", aspect)
	}
	short := float64(min(size.X, size.Y))
	canvas := image.NewRGBA(image.Rectangle{Max: size})
	draw.Draw(canvas, canvas.Rect, image.NewUniform(background), image.Point{}, draw.Src)
	if l.Kind == PictureInPicture {
		cover(canvas, canvas.Rect, a, facesA)
		inset := insetRect(size, l.Corner, b.Bounds())
		out := opaque(canvas)
		frame := int(math.Max(2, math.Round(insetFrame*short)))
		outer := inset.Inset(-frame)
		blur := 0.012 * short
		room := outer.Inset(-int(4 * blur))
		shadow := imaging.Blur(imaging.RoundRect(room, outer.Add(image.Pt(0, frame)), 0), blur)
		imaging.Paint(out, shadow, image.Point{}, color.NRGBA{A: 255}, 0.6)
		draw.Draw(out, outer, image.NewUniform(white), image.Point{}, draw.Src)
		cover(canvas, inset, b, facesB) // out shares canvas's pixels
		return out, nil
	}
	first, second, divider := halves(size, l.Stacked)
	fa := cover(canvas, first, a, facesA)
	fb := cover(canvas, second, b, facesB)
	out := opaque(canvas)
	draw.Draw(out, divider, image.NewUniform(white), image.Point{}, draw.Src)
	var labels [2]string
	switch {
	case l.Kind == BeforeAfter:
		labels = [2]string{"BEFORE", "AFTER"}
	case l.Kind == Versus && l.Names[0] != "":
		labels = [2]string{strings.ToUpper(l.Names[0]), strings.ToUpper(l.Names[1])}
	}
	if labels[0] != "" {
		if err := drawLabels(out, [2]image.Rectangle{first, second}, labels, append(fa, fb...)); err != nil {
			return nil, err
		}
	}
	if l.Kind == Versus {
		if err := drawBadge(out, image.Pt(size.X/2, size.Y/2), badgeRadius*short); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// halves are the two parts of a split canvas and the divider between
// them: left and right, or top and bottom when stacked or on a canvas
// taller than wide.
func halves(size image.Point, stacked bool) (first, second, divider image.Rectangle) {
	d := max(2, int(math.Round(dividerShare*float64(min(size.X, size.Y)))))
	if stacked || size.Y > size.X {
		h := (size.Y - d) / 2
		return image.Rect(0, 0, size.X, h), image.Rect(0, h+d, size.X, size.Y), image.Rect(0, h, size.X, h+d)
	}
	w := (size.X - d) / 2
	return image.Rect(0, 0, w, size.Y), image.Rect(w+d, 0, size.X, size.Y), image.Rect(w, 0, w+d, size.Y)
}

// insetRect is where the second picture of picture-in-picture goes, in
// the corner: as large as a 30%-wide inset of the canvas's shape, and of
// the picture's own shape within 3:4 to 16:9 (or the canvas's shape,
// when that is outside), so a portrait keeps the whole of its subject
// rather than being cut to a strip.
func insetRect(size image.Point, c Corner, picture image.Rectangle) image.Rectangle {
	canvasRatio := float64(size.X) / float64(size.Y)
	ratio := canvasRatio
	if picture.Dx() > 0 && picture.Dy() > 0 {
		ratio = float64(picture.Dx()) / float64(picture.Dy())
	}
	ratio = min(max(ratio, min(insetMinRatio, canvasRatio)), max(insetMaxRatio, canvasRatio))
	w0 := insetWidth * float64(size.X)
	area := w0 * w0 / canvasRatio
	w := int(math.Round(math.Sqrt(area * ratio)))
	h := int(math.Round(math.Sqrt(area / ratio)))
	m := int(math.Round(insetMargin * float64(min(size.X, size.Y))))
	x, y := size.X-m-w, size.Y-m-h
	if c == TopLeft || c == BottomLeft {
		x = m
	}
	if c == TopLeft || c == TopRight {
		y = m
	}
	return image.Rect(x, y, x+w, y+h)
}

// preShrink is how much larger than its destination a crop is left by
// the box filter that reduces large crops first: Catmull-Rom then
// resamples a few source pixels per output pixel (its cost grows with
// the reduction) without aliasing.
const preShrink = 1.25

// cover fills r of dst with the largest crop of src of r's shape, kept
// around src's faces (or, without faces, its saliency), and returns the
// faces where they landed on dst.
func cover(dst *image.RGBA, r image.Rectangle, src image.Image, faces []vision.Face) []image.Rectangle {
	win := imaging.Window(src.Bounds(), float64(r.Dx())/float64(r.Dy()), faces, vision.Saliency(src))
	var crop image.Image
	if s, ok := src.(interface {
		SubImage(image.Rectangle) image.Image
	}); ok {
		crop = s.SubImage(win)
	} else {
		c := image.NewRGBA(image.Rectangle{Max: win.Size()})
		draw.Draw(c, c.Rect, src, win.Min, draw.Src)
		crop = c
	}
	k := float64(r.Dx()) / float64(win.Dx())
	pixels := crop
	if k < 1/preShrink {
		pixels = vision.RGBA8(crop, int(math.Ceil(preShrink*k*float64(max(win.Dx(), win.Dy())))))
	}
	xdraw.CatmullRom.Scale(dst, r, pixels, pixels.Bounds(), draw.Over, nil)
	var out []image.Rectangle
	for _, f := range faces {
		fr := f.Rect.Intersect(win).Sub(win.Min)
		if fr.Empty() {
			continue
		}
		out = append(out, image.Rect(
			r.Min.X+int(float64(fr.Min.X)*k), r.Min.Y+int(float64(fr.Min.Y)*k),
			r.Min.X+int(math.Ceil(float64(fr.Max.X)*k)), r.Min.Y+int(math.Ceil(float64(fr.Max.Y)*k))))
	}
	return out
}

// opaque is a view of the canvas as NRGBA, sharing its pixels: every
// pixel of it is opaque, where premultiplied and straight colour are the
// same bytes, so drawing through either view keeps the other right.
func opaque(m *image.RGBA) *image.NRGBA {
	return &image.NRGBA{Pix: m.Pix, Stride: m.Stride, Rect: m.Rect}
}

// drawLabels sets a label in each half, on a dark panel, centred across
// it: both at the bottom of their halves, or both at the top when that
// covers less of the faces.
func drawLabels(dst *image.NRGBA, parts [2]image.Rectangle, texts [2]string, faces []image.Rectangle) error {
	short := float64(min(dst.Rect.Dx(), dst.Rect.Dy()))
	style := imaging.Style{Font: labelFont, Fill: white, Panel: labelPanel}
	margin := int(math.Round(labelMargin * short))
	var blocks [2]imaging.Block
	for i, t := range texts {
		box := image.Pt(parts[i].Dx()*8/10, int(labelSize*short*1.6))
		b, err := imaging.Fit(t, style, box, 1, labelSize*short)
		if err != nil {
			return fmt.Errorf("combine: label: %w", err)
		}
		blocks[i] = b
	}
	place := func(i int, top bool) image.Rectangle {
		s := blocks[i].Bounds().Size()
		x := parts[i].Min.X + (parts[i].Dx()-s.X)/2
		y := parts[i].Max.Y - margin - s.Y
		if top {
			y = parts[i].Min.Y + margin
		}
		return image.Rectangle{Min: image.Pt(x, y), Max: image.Pt(x, y).Add(s)}
	}
	covered := func(top bool) int {
		n := 0
		for i := range blocks {
			for _, f := range faces {
				n += area(place(i, top).Intersect(f))
			}
		}
		return n
	}
	top := covered(true) < covered(false)
	for i := range blocks {
		if err := blocks[i].Draw(dst, place(i, top).Min); err != nil {
			return err
		}
	}
	return nil
}

func area(r image.Rectangle) int { return r.Dx() * r.Dy() }

// drawBadge draws the VS badge: a yellow disc in a white ring, over a
// soft shadow, with "VS" in dark letters.
func drawBadge(dst *image.NRGBA, centre image.Point, radius float64) error {
	ring := radius * 0.12
	rr := int(math.Ceil(radius + ring))
	outer := image.Rect(centre.X-rr, centre.Y-rr, centre.X+rr, centre.Y+rr)
	room := outer.Inset(-int(radius * 0.5))
	shadow := imaging.Blur(imaging.RoundRect(room, outer.Add(image.Pt(0, int(radius*0.08))), float64(rr)), radius*0.1)
	imaging.Paint(dst, shadow, image.Point{}, color.NRGBA{A: 255}, 0.55)
	imaging.Paint(dst, imaging.RoundRect(room, outer, float64(rr)), image.Point{}, white, 1)
	inner := outer.Inset(int(math.Round(ring)))
	imaging.Paint(dst, imaging.RoundRect(room, inner, float64(inner.Dx())/2), image.Point{}, badgeFill, 1)
	style := imaging.Style{Font: labelFont, Fill: ink}
	side := int(radius * 1.25)
	b, err := imaging.Fit("VS", style, image.Pt(side, side), 1, radius)
	if err != nil {
		return fmt.Errorf("combine: badge: %w", err)
	}
	// Centre the letters' ink, not their footprint, on the disc.
	ink := b.Ink()
	return b.Draw(dst, image.Pt(centre.X-(ink.Min.X+ink.Max.X)/2, centre.Y-(ink.Min.Y+ink.Max.Y)/2))
}
