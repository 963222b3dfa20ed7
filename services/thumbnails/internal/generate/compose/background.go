package compose

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"golang.org/x/image/vector"

	"hookline.dev/pkg/media/imaging"
	"hookline.dev/services/thumbnails/internal/generate/layout"
)

// ramp is a colour lookup over t in 0..1, so that per-pixel work is an
// index, not a blend.
type ramp [256]color.RGBA

func newRamp(cs ...color.RGBA) *ramp {
	var r ramp
	if len(cs) == 1 {
		cs = append(cs, cs[0])
	}
	seg := float64(len(cs) - 1)
	for i := range r {
		t := float64(i) / 255 * seg
		k := int(t)
		if k >= len(cs)-1 {
			k = len(cs) - 2
		}
		r[i] = mix(cs[k], cs[k+1], smooth(t-float64(k)))
	}
	return &r
}

func (r *ramp) at(t float64) color.RGBA {
	switch {
	case t <= 0:
		return r[0]
	case t >= 1:
		return r[255]
	}
	return r[int(t*255+0.5)]
}

func smooth(t float64) float64 { return t * t * (3 - 2*t) }

func setPix(p []uint8, c color.RGBA) { p[0], p[1], p[2], p[3] = c.R, c.G, c.B, 255 }

// paintBackground fills canvas with a generated background of kind bg.
// (A reference background is loaded by the caller; it falls back here to
// a gradient when there is no picture.)
func paintBackground(canvas *image.RGBA, bg layout.Background, p layout.Palette) {
	cs := make([]color.RGBA, len(bg.Colors))
	for i, r := range bg.Colors {
		cs[i] = p[r]
	}
	b := canvas.Bounds()
	w, h := float64(b.Dx()), float64(b.Dy())
	cx, cy := bg.CenterX*w, bg.CenterY*h
	switch bg.Kind {
	case layout.BgSolid:
		draw.Draw(canvas, b, image.NewUniform(cs[0]), image.Point{}, draw.Src)
	case layout.BgRadial:
		radial(canvas, newRamp(cs...), cx, cy, math.Hypot(math.Max(cx, w-cx), math.Max(cy, h-cy)))
	case layout.BgSplit:
		split(canvas, cs, cx, cy, bg.Angle)
	case layout.BgStripes:
		stripes(canvas, cs, bg.Angle)
	case layout.BgBurst:
		burst(canvas, cs, cx, cy)
	default: // gradient, and reference without a picture
		linear(canvas, newRamp(cs...), bg.Angle)
	}
}

// linear is a gradient along angle (degrees, 0: left to right) over the
// canvas's extent in that direction.
func linear(canvas *image.RGBA, r *ramp, angle float64) {
	b := canvas.Bounds()
	w, h := float64(b.Dx()), float64(b.Dy())
	dx, dy := math.Cos(angle*math.Pi/180), math.Sin(angle*math.Pi/180)
	extent := math.Abs(w*dx) + math.Abs(h*dy)
	for y := 0; y < b.Dy(); y++ {
		row := canvas.Pix[y*canvas.Stride:]
		t0 := ((-w/2)*dx+(float64(y)-h/2)*dy)/extent + 0.5
		step := dx / extent
		for x := 0; x < b.Dx(); x++ {
			setPix(row[x*4:], r.at(t0+float64(x)*step))
		}
	}
}

// radial is a glow from (cx, cy) out to radius.
func radial(canvas *image.RGBA, r *ramp, cx, cy, radius float64) {
	b := canvas.Bounds()
	for y := 0; y < b.Dy(); y++ {
		row := canvas.Pix[y*canvas.Stride:]
		dy := (float64(y) - cy) * (float64(y) - cy)
		for x := 0; x < b.Dx(); x++ {
			dx := float64(x) - cx
			setPix(row[x*4:], r.at(math.Sqrt(dx*dx+dy)/radius))
		}
	}
}

// split paints two halves on either side of a line through (cx, cy) at
// angle, with a band of the third colour (when given) along the cut.
func split(canvas *image.RGBA, cs []color.RGBA, cx, cy, angle float64) {
	a, c := cs[0], cs[len(cs)-1]
	band := 0.0
	var mid color.RGBA
	if len(cs) == 3 {
		c, mid, band = cs[1], cs[2], float64(canvas.Bounds().Dy())*0.025
	}
	// The normal of the cut line.
	nx, ny := math.Cos((angle+90)*math.Pi/180), math.Sin((angle+90)*math.Pi/180)
	b := canvas.Bounds()
	for y := 0; y < b.Dy(); y++ {
		row := canvas.Pix[y*canvas.Stride:]
		for x := 0; x < b.Dx(); x++ {
			d := (float64(x)-cx)*nx + (float64(y)-cy)*ny
			var col color.RGBA
			switch {
			case band > 0 && math.Abs(d) < band+0.5:
				col = mix(mid, edgeSide(d, a, c), imaging.Clamp01(math.Abs(d)-band+0.5))
			default:
				col = mix(a, c, imaging.Clamp01(d+0.5))
			}
			setPix(row[x*4:], col)
		}
	}
}

func edgeSide(d float64, a, c color.RGBA) color.RGBA {
	if d < 0 {
		return a
	}
	return c
}

// stripes are diagonal bands, each a tenth of the canvas's long side
// wide: the first colour alternating with a shade a third of the way to
// the second, so that the pattern stays behind the subject.
func stripes(canvas *image.RGBA, cs []color.RGBA, angle float64) {
	other := color.RGBA{255, 255, 255, 255}
	if len(cs) > 1 {
		other = cs[1]
	}
	a, c := cs[0], mix(cs[0], other, 0.3)
	// Two bands make one period: a ramp over it, with one pixel of blend
	// at each edge (the antialiasing), indexed by position.
	b := canvas.Bounds()
	width := float64(max(b.Dx(), b.Dy())) / 10
	var period [512]color.RGBA
	for i := range period {
		pos := float64(i) / float64(len(period)) * 2 * width
		switch {
		case pos < width-1:
			period[i] = a
		case pos < width:
			period[i] = mix(a, c, pos-(width-1))
		case pos < 2*width-1:
			period[i] = c
		default:
			period[i] = mix(c, a, pos-(2*width-1))
		}
	}
	nx, ny := math.Cos((angle+90)*math.Pi/180), math.Sin((angle+90)*math.Pi/180)
	scale := float64(len(period)) / (2 * width)
	for y := 0; y < b.Dy(); y++ {
		row := canvas.Pix[y*canvas.Stride:]
		t0 := (float64(y)*ny + 2*width*1000) * scale
		for x := 0; x < b.Dx(); x++ {
			setPix(row[x*4:], period[int(t0+float64(x)*nx*scale)%len(period)])
		}
	}
}

// burst is a comic sunburst: rays of the first two colours from (cx, cy)
// under a glow of the third (or the first, lightened).
func burst(canvas *image.RGBA, cs []color.RGBA, cx, cy float64) {
	b := canvas.Bounds()
	base, ray := cs[0], mix(cs[0], color.RGBA{255, 255, 255, 255}, 0.15)
	if len(cs) > 1 {
		ray = cs[1]
	}
	draw.Draw(canvas, b, image.NewUniform(base), image.Point{}, draw.Src)
	const rays = 18
	reach := float64(b.Dx() + b.Dy())
	rz := vector.NewRasterizer(b.Dx(), b.Dy())
	for i := 0; i < rays; i++ {
		a0 := 2 * math.Pi * float64(i) / rays
		a1 := a0 + math.Pi/rays
		rz.MoveTo(float32(cx), float32(cy))
		rz.LineTo(float32(cx+reach*math.Cos(a0)), float32(cy+reach*math.Sin(a0)))
		rz.LineTo(float32(cx+reach*math.Cos(a1)), float32(cy+reach*math.Sin(a1)))
		rz.ClosePath()
	}
	rz.Draw(canvas, b, image.NewUniform(ray), image.Point{})
	glow := mix(base, color.RGBA{255, 255, 255, 255}, 0.35)
	if len(cs) > 2 {
		glow = cs[2]
	}
	glowOver(canvas, glow, cx, cy, float64(b.Dy())*0.55)
}

// glowOver lightens the canvas towards c around (cx, cy), fading out at
// radius.
func glowOver(canvas *image.RGBA, c color.RGBA, cx, cy, radius float64) {
	b := canvas.Bounds()
	r := image.Rect(int(cx-radius), int(cy-radius), int(cx+radius)+1, int(cy+radius)+1).Intersect(b)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			d := math.Hypot(float64(x)-cx, float64(y)-cy) / radius
			if d >= 1 {
				continue
			}
			t := (1 - d) * (1 - d) * 0.85
			i := canvas.PixOffset(x, y)
			p := canvas.Pix[i : i+3 : i+3]
			p[0] = lerp8(p[0], c.R, t)
			p[1] = lerp8(p[1], c.G, t)
			p[2] = lerp8(p[2], c.B, t)
		}
	}
}

// tint lays c over the canvas with strength rising from 0 at the top to
// most at the bottom: a reference picture takes the palette's colour and
// the text over it keeps its contrast.
func tint(canvas *image.RGBA, c color.RGBA, most float64) {
	b := canvas.Bounds()
	for y := 0; y < b.Dy(); y++ {
		t := most * (0.35 + 0.65*float64(y)/float64(b.Dy()))
		row := canvas.Pix[y*canvas.Stride : y*canvas.Stride+b.Dx()*4]
		for x := 0; x < len(row); x += 4 {
			row[x] = lerp8(row[x], c.R, t)
			row[x+1] = lerp8(row[x+1], c.G, t)
			row[x+2] = lerp8(row[x+2], c.B, t)
		}
	}
}

func lerp8(a, b uint8, t float64) uint8 {
	return uint8(float64(a) + (float64(b)-float64(a))*t + 0.5)
}
