package compose

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"sort"

	"hookline.dev/pkg/media/imaging"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/layout"
)

// maxFaces is how many faces fit side by side in one face slot.
const maxFaces = 3

// faceRects places n square faces of the slot in box: side by side,
// overlapping a little, standing on the box's bottom edge, pushed towards
// side. zoom (1 or a little more) enlarges them, a variation's crop.
func faceRects(box image.Rectangle, n int, side layout.Side, zoom float64) []image.Rectangle {
	overlap := 0.12
	slotW := float64(box.Dx()) / (float64(n) - overlap*float64(n-1))
	s := math.Min(slotW, float64(box.Dy())) * zoom
	total := s*float64(n) - overlap*s*float64(n-1)
	x := float64(box.Min.X)
	switch side {
	case layout.SideRight:
		x = float64(box.Max.X) - total
	case layout.SideCenter:
		x = float64(box.Min.X) + (float64(box.Dx())-total)/2
	}
	out := make([]image.Rectangle, n)
	for i := range out {
		x0 := int(x + float64(i)*s*(1-overlap))
		y1 := box.Max.Y
		out[i] = image.Rect(x0, y1-int(s), x0+int(s), y1)
	}
	return out
}

// drawFace draws one face into r: cut out in the slot's shape, outlined,
// shadowed. The person is the face's cut-out when it has one; otherwise a
// plain backdrop is found on the picture at its own size (a face crop is
// small). Either travels in the alpha channel through the enlargement.
func drawFace(canvas *image.RGBA, face engine.Face, r image.Rectangle, f layout.Face, p layout.Palette) error {
	s := r.Dx()
	small, err := coverUpTo(face.Crop.Data, s, s, true)
	if err != nil {
		return err
	}
	own := transparent(small)
	var bg *image.Alpha // the backdrop's coverage of small
	if face.Cutout != nil && !own {
		bg = coverAlpha(face.Cutout, small.Rect.Dx(), small.Rect.Dy())
		for i, a := range bg.Pix {
			bg.Pix[i] = 255 - a
		}
	} else if bg = backdrop(small); bg != nil {
		imaging.Blur(bg, 1)
	}
	switch {
	case bg == nil:
	case f.Shape != layout.ShapeCutout:
		// In a circle or a square the photo's backdrop would show: the
		// palette's colour replaces it.
		backfill(small, bg, p[layout.RoleBackground2])
	case !own:
		cutAway(small, bg)
		// A person cut out by the remover keeps its whole silhouette,
		// as a picture that came cut out does.
		own = face.Cutout != nil
	}
	img := enlarge(small, s, s)
	img.Rect = img.Rect.Add(r.Min)
	m := faceShape(r, f.Shape, own)
	grow := int(float64(s) * (f.OutlineWidth + 0.08))
	// The face's coverage over a margin, so that outline and shadow have
	// room: the shape, times what the cut-out left.
	mask := image.NewAlpha(r.Inset(-grow))
	for y := r.Min.Y; y < r.Max.Y; y++ {
		dst := mask.Pix[mask.PixOffset(r.Min.X, y):]
		src := m.Pix[m.PixOffset(r.Min.X, y):]
		px := img.Pix[img.PixOffset(r.Min.X, y):]
		for x := 0; x < s; x++ {
			dst[x] = uint8(uint32(src[x]) * uint32(px[x*4+3]) / 255) //nolint:gosec // G115: product of two 8-bit values over 255
		}
	}
	outline := mask
	if f.Outline != "" && f.OutlineWidth > 0 {
		outline = imaging.Dilate(mask, f.OutlineWidth*float64(s))
	}
	if f.Shadow {
		shadowUnder(canvas, outline, float64(s)*0.35)
	}
	if f.Outline != "" && f.OutlineWidth > 0 {
		paint(canvas, outline, p[f.Outline])
	}
	draw.DrawMask(canvas, r, img, r.Min, m, r.Min, draw.Over)
	return nil
}

// faceShape is the shape a face shows through over r. A cut-out is a
// bust, round on top and straight down to the bottom edge, unless the
// picture came cut out already (own transparency), which is kept whole.
func faceShape(r image.Rectangle, shape layout.Shape, own bool) *image.Alpha {
	s := float64(r.Dx())
	switch {
	case shape == layout.ShapeCircle:
		return shapeMask(r, func(z *pen) {
			z.ellipse(float64(r.Min.X)+s/2, float64(r.Min.Y)+s/2, s/2-1, s/2-1, false)
		})
	case shape == layout.ShapeSquare:
		return imaging.RoundRect(r, r.Inset(1), s*0.08)
	case own:
		return shapeMask(r, func(z *pen) { z.roundRect(r, 0) })
	}
	return shapeMask(r, func(z *pen) {
		x0, y0 := float64(r.Min.X)+s*0.04, float64(r.Min.Y)+s*0.02
		rad := s * 0.46
		z.roundRect(image.Rect(int(x0), int(y0), int(x0+2*rad), r.Max.Y+int(rad)), rad)
	})
}

// backfill paints c over img where bg covers it.
func backfill(img *image.RGBA, bg *image.Alpha, c color.RGBA) {
	for i, a := range bg.Pix {
		t := float64(a) / 255
		px := img.Pix[i*4 : i*4+3 : i*4+3]
		px[0], px[1], px[2] = lerp8(px[0], c.R, t), lerp8(px[1], c.G, t), lerp8(px[2], c.B, t)
	}
}

// coverAlpha samples m bilinearly at w×h over the largest centred crop of
// that shape, as coverUpTo crops the picture m belongs to.
func coverAlpha(m *image.Alpha, w, h int) *image.Alpha {
	out := image.NewAlpha(image.Rect(0, 0, w, h))
	mw, mh := m.Rect.Dx(), m.Rect.Dy()
	if mw == 0 || mh == 0 || w == 0 || h == 0 {
		return out
	}
	k := min(float64(mw)/float64(w), float64(mh)/float64(h))
	ox, oy := (float64(mw)-k*float64(w))/2, (float64(mh)-k*float64(h))/2
	at := func(x, y int) float64 { return float64(m.Pix[y*m.Stride+x]) }
	for y := range h {
		sy := min(max(oy+(float64(y)+0.5)*k-0.5, 0), float64(mh-1))
		y0 := int(sy)
		y1, fy := min(y0+1, mh-1), sy-float64(y0)
		for x := range w {
			sx := min(max(ox+(float64(x)+0.5)*k-0.5, 0), float64(mw-1))
			x0 := int(sx)
			x1, fx := min(x0+1, mw-1), sx-float64(x0)
			v := (at(x0, y0)*(1-fx)+at(x1, y0)*fx)*(1-fy) + (at(x0, y1)*(1-fx)+at(x1, y1)*fx)*fy
			out.Pix[y*out.Stride+x] = uint8(v + 0.5)
		}
	}
	return out
}

// cutAway makes img transparent where bg covers it.
func cutAway(img *image.RGBA, bg *image.Alpha) {
	for i, a := range bg.Pix {
		keep := uint32(255 - a)
		px := img.Pix[i*4 : i*4+4 : i*4+4]
		for k := range px {
			px[k] = uint8(uint32(px[k]) * keep / 255) //nolint:gosec // G115: keep is at most 255
		}
	}
}

// transparent reports whether a noticeable part of img is transparent:
// a face that comes cut out already.
func transparent(img *image.RGBA) bool {
	n := 0
	for i := 3; i < len(img.Pix); i += 4 {
		if img.Pix[i] < 128 {
			n++
		}
	}
	return n > len(img.Pix)/4/50
}

// backdrop finds a plain backdrop behind a face: the pixels reachable from
// the border through colours close to the border's median. It returns nil
// when the border is not plain (a busy photo), where a flood fill would
// eat into the person.
func backdrop(img *image.RGBA) *image.Alpha {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	at := func(x, y int) [3]int {
		i := y*img.Stride + x*4
		return [3]int{int(img.Pix[i]), int(img.Pix[i+1]), int(img.Pix[i+2])}
	}
	var border [][3]int
	for x := 0; x < w; x += 2 {
		border = append(border, at(x, 0))
	}
	for y := 0; y < h*2/3; y += 2 {
		border = append(border, at(0, y), at(w-1, y))
	}
	med := median(border)
	const tol = 38 * 38 * 3
	near := func(c [3]int) bool {
		d0, d1, d2 := c[0]-med[0], c[1]-med[1], c[2]-med[2]
		return d0*d0+d1*d1+d2*d2 < tol
	}
	plain := 0
	for _, c := range border {
		if near(c) {
			plain++
		}
	}
	if plain < len(border)*7/10 {
		return nil
	}
	bg := image.NewAlpha(img.Rect)
	stack := make([]int, 0, w*2)
	push := func(x, y int) {
		k := y*w + x
		if bg.Pix[k] == 0 && near(at(x, y)) {
			bg.Pix[k] = 255
			stack = append(stack, k)
		}
	}
	// Seed from the top and the sides; the bottom is usually the body.
	for x := 0; x < w; x++ {
		push(x, 0)
	}
	for y := 0; y < h; y++ {
		push(0, y)
		push(w-1, y)
	}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := k%w, k/w
		if x > 0 {
			push(x-1, y)
		}
		if x < w-1 {
			push(x+1, y)
		}
		if y > 0 {
			push(x, y-1)
		}
		if y < h-1 {
			push(x, y+1)
		}
	}
	filled := 0
	for _, a := range bg.Pix {
		if a != 0 {
			filled++
		}
	}
	// A picture that is nearly all "backdrop" is a flat image, not a face
	// on a plain ground: there is nothing to cut.
	if filled > len(bg.Pix)*85/100 {
		return nil
	}
	return bg
}

func median(cs [][3]int) [3]int {
	var out [3]int
	vals := make([]int, len(cs))
	for ch := 0; ch < 3; ch++ {
		for i, c := range cs {
			vals[i] = c[ch]
		}
		sort.Ints(vals)
		out[ch] = vals[len(vals)/2]
	}
	return out
}
