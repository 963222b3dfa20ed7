package compose

import (
	"image"
	"image/color"
	"math"

	"golang.org/x/image/vector"

	"hookline.dev/pkg/media/imaging"
	"hookline.dev/services/thumbnails/internal/generate/layout"
)

// shapeMask rasterises the path build draws (in canvas coordinates) into
// a mask covering r, which should leave room for outlines and shadows.
func shapeMask(r image.Rectangle, build func(z *pen)) *image.Alpha {
	z := &pen{r: vector.NewRasterizer(r.Dx(), r.Dy()), ox: float64(r.Min.X), oy: float64(r.Min.Y)}
	build(z)
	m := image.NewAlpha(r)
	z.r.Draw(m, r, image.Opaque, image.Point{})
	return m
}

// pen draws on a rasteriser in canvas coordinates.
type pen struct {
	r      *vector.Rasterizer
	ox, oy float64
}

func (p *pen) move(x, y float64) { p.r.MoveTo(float32(x-p.ox), float32(y-p.oy)) }
func (p *pen) line(x, y float64) { p.r.LineTo(float32(x-p.ox), float32(y-p.oy)) }
func (p *pen) cube(x1, y1, x2, y2, x, y float64) {
	p.r.CubeTo(float32(x1-p.ox), float32(y1-p.oy), float32(x2-p.ox), float32(y2-p.oy), float32(x-p.ox), float32(y-p.oy))
}
func (p *pen) close() { p.r.ClosePath() }

// kappa places cubic control points that draw a quarter circle.
const kappa = 0.5522847498

// ellipse adds an ellipse centred at (cx, cy); reverse winds it the other
// way, which cuts a hole in a shape drawn before it.
func (p *pen) ellipse(cx, cy, rx, ry float64, reverse bool) {
	kx, ky := rx*kappa, ry*kappa
	if reverse {
		ky, ry = -ky, -ry
	}
	p.move(cx+rx, cy)
	p.cube(cx+rx, cy+ky, cx+kx, cy+ry, cx, cy+ry)
	p.cube(cx-kx, cy+ry, cx-rx, cy+ky, cx-rx, cy)
	p.cube(cx-rx, cy-ky, cx-kx, cy-ry, cx, cy-ry)
	p.cube(cx+kx, cy-ry, cx+rx, cy-ky, cx+rx, cy)
	p.close()
}

// roundRect adds a rectangle with corners of radius rad.
func (p *pen) roundRect(r image.Rectangle, rad float64) {
	x0, y0, x1, y1 := float64(r.Min.X), float64(r.Min.Y), float64(r.Max.X), float64(r.Max.Y)
	rad = math.Min(rad, math.Min(x1-x0, y1-y0)/2)
	k := rad * (1 - kappa)
	p.move(x0+rad, y0)
	p.line(x1-rad, y0)
	p.cube(x1-k, y0, x1, y0+k, x1, y0+rad)
	p.line(x1, y1-rad)
	p.cube(x1, y1-k, x1-k, y1, x1-rad, y1)
	p.line(x0+rad, y1)
	p.cube(x0+k, y1, x0, y1-k, x0, y1-rad)
	p.line(x0, y0+rad)
	p.cube(x0, y0+k, x0+k, y0, x0+rad, y0)
	p.close()
}

// paint lays the palette colour c (opaque) through m onto dst.
func paint(dst *image.RGBA, m *image.Alpha, c color.RGBA) {
	imaging.Paint(dst, m, image.Point{}, opaque(c), 1)
}

// shadowUnder paints the soft drop shadow m casts, for a thing of the
// given size, onto dst.
func shadowUnder(dst *image.RGBA, m *image.Alpha, size float64) {
	imaging.Paint(dst, imaging.Shadow(m, size), image.Point{}, color.NRGBA{A: 255}, shadowOpacity)
}

// boxPx converts a layout box to canvas pixels.
func boxPx(b layout.Box, w, h int) image.Rectangle {
	return image.Rect(int(b.X*float64(w)), int(b.Y*float64(h)), int((b.X+b.W)*float64(w)), int((b.Y+b.H)*float64(h)))
}

// accentJob is an accent to draw, resolved: where it is, its colours, the
// point an arrow aims at and the word a badge or burst carries.
type accentJob struct {
	a     layout.Accent
	box   image.Rectangle
	aim   *image.Point
	word  string
	short int
}

// drawAccent draws one accent with a dark outline and a drop shadow, so
// it stands off any background.
func drawAccent(canvas *image.RGBA, j accentJob, p layout.Palette) error {
	b := j.box
	short := float64(j.short)
	grow := int(short * 0.06)
	area := b.Inset(-grow).Intersect(canvas.Bounds())
	fill := p[j.a.Color]
	dark := p[layout.RoleStroke]
	switch j.a.Kind {
	case layout.AccentArrow:
		m := shapeMask(area, func(z *pen) { arrow(z, b, j.a.Angle, j.aim) })
		outline := imaging.Dilate(m, short*0.008)
		shadowUnder(canvas, outline, short*0.25)
		paint(canvas, outline, dark)
		paint(canvas, m, fill)
	case layout.AccentCircle:
		cx, cy := float64(b.Min.X+b.Max.X)/2, float64(b.Min.Y+b.Max.Y)/2
		rx, ry := float64(b.Dx())/2, float64(b.Dy())/2
		th := math.Min(rx, ry) * 0.12
		m := shapeMask(area, func(z *pen) {
			z.ellipse(cx, cy, rx, ry, false)
			z.ellipse(cx, cy, rx-th, ry-th, true)
		})
		shadowUnder(canvas, m, short*0.2)
		paint(canvas, m, fill)
	case layout.AccentBar:
		m := imaging.RoundRect(area, b, float64(b.Dy())*0.3)
		shadowUnder(canvas, m, short*0.15)
		paint(canvas, m, fill)
	case layout.AccentFrame:
		th := short * 0.014
		m := shapeMask(area, func(z *pen) {
			z.roundRect(b, short*0.03)
			inner := b.Inset(int(th))
			// The inner edge, wound the other way: a hole.
			z.move(float64(inner.Min.X), float64(inner.Min.Y))
			z.line(float64(inner.Min.X), float64(inner.Max.Y))
			z.line(float64(inner.Max.X), float64(inner.Max.Y))
			z.line(float64(inner.Max.X), float64(inner.Min.Y))
			z.close()
		})
		paint(canvas, m, fill)
	case layout.AccentBurst:
		cx, cy := float64(b.Min.X+b.Max.X)/2, float64(b.Min.Y+b.Max.Y)/2
		m := shapeMask(area, func(z *pen) { star(z, cx, cy, float64(b.Dx())/2, float64(b.Dy())/2, 14) })
		outline := imaging.Dilate(m, short*0.008)
		shadowUnder(canvas, outline, short*0.25)
		paint(canvas, outline, dark)
		paint(canvas, m, fill)
		return drawWord(canvas, j, b.Inset(int(float64(min(b.Dx(), b.Dy()))*0.22)), "", p, -8)
	case layout.AccentBadge:
		return drawWord(canvas, j, b, j.a.Color, p, -4)
	}
	return nil
}

// drawWord sets an accent's word in its box, on a plate of role plate
// when given.
func drawWord(canvas *image.RGBA, j accentJob, box image.Rectangle, plate layout.Role, p layout.Palette, tilt float64) error {
	slot := layout.Text{
		Name: "accent", Font: "heavy", Size: 0.5, Case: layout.CaseUpper,
		Align: layout.AlignCenter, VAlign: layout.VAlignMiddle, Color: j.a.TextColor,
		StrokeColor: layout.RoleStroke, Plate: plate, MaxLines: 1, Rotate: tilt,
	}
	if plate == "" {
		slot.Stroke, slot.Shadow = 0.06, true
	}
	return drawText(canvas, textJob{slot: slot, words: []string{j.word}, highlight: -1, box: box}, p, j.short)
}

// arrow adds a bold arrow inside box b pointing at aim (when set) or
// along angle degrees.
func arrow(z *pen, b image.Rectangle, angle float64, aim *image.Point) {
	cx, cy := float64(b.Min.X+b.Max.X)/2, float64(b.Min.Y+b.Max.Y)/2
	a := angle * math.Pi / 180
	if aim != nil {
		a = math.Atan2(float64(aim.Y)-cy, float64(aim.X)-cx)
	}
	dx, dy := math.Cos(a), math.Sin(a)
	// Half its length: as far as the box reaches in that direction.
	half := 0.5 * math.Min(float64(b.Dx())/math.Max(math.Abs(dx), 1e-3), float64(b.Dy())/math.Max(math.Abs(dy), 1e-3))
	half = math.Min(half, math.Hypot(float64(b.Dx()), float64(b.Dy()))/2) * 0.92
	nx, ny := -dy, dx
	shaft, head, headLen := half*0.17, half*0.42, half*0.7
	tipX, tipY := cx+dx*half, cy+dy*half
	neckX, neckY := tipX-dx*headLen, tipY-dy*headLen
	tailX, tailY := cx-dx*half, cy-dy*half
	z.move(tailX+nx*shaft*0.7, tailY+ny*shaft*0.7)
	z.line(neckX+nx*shaft, neckY+ny*shaft)
	z.line(neckX+nx*head, neckY+ny*head)
	z.line(tipX, tipY)
	z.line(neckX-nx*head, neckY-ny*head)
	z.line(neckX-nx*shaft, neckY-ny*shaft)
	z.line(tailX-nx*shaft*0.7, tailY-ny*shaft*0.7)
	z.close()
}

// star adds a starburst of n points inscribed in the ellipse rx×ry.
func star(z *pen, cx, cy, rx, ry float64, n int) {
	for i := 0; i < 2*n; i++ {
		a := math.Pi*float64(i)/float64(n) - math.Pi/2
		k := 1.0
		if i%2 == 1 {
			k = 0.74
		}
		x, y := cx+rx*k*math.Cos(a), cy+ry*k*math.Sin(a)
		if i == 0 {
			z.move(x, y)
		} else {
			z.line(x, y)
		}
	}
	z.close()
}
