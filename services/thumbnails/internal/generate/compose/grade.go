package compose

import (
	"image"
	"math"
	"sync"

	"hookline.dev/pkg/media/imaging"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/layout"
)

// look is a colour grade: contrast and saturation multipliers, a
// brightness and warmth shift (-1..1), and how dark the corners go.
type look struct {
	contrast, saturation, brightness, warmth, vignette float64
}

var looks = map[layout.Grade]look{
	layout.GradePunchy: {contrast: 1.16, saturation: 1.25, vignette: 0.38},
	layout.GradeWarm:   {contrast: 1.1, saturation: 1.12, warmth: 0.35, vignette: 0.32},
	layout.GradeCool:   {contrast: 1.1, saturation: 1.08, warmth: -0.35, vignette: 0.32},
	layout.GradeMoody:  {contrast: 1.24, saturation: 0.85, brightness: -0.07, vignette: 0.55},
	layout.GradeClean:  {contrast: 1.04, saturation: 1.05, brightness: 0.02, vignette: 0.12},
}

// lookFor is the layout's grade, nudged towards a style's measured look
// (a bright, soft, muted or warm style pulls the grade its way).
func lookFor(g layout.Grade, st *engine.Style) look {
	l, ok := looks[g]
	if !ok {
		l = looks[layout.GradePunchy]
	}
	if st != nil {
		l.brightness += (st.Brightness - 0.5) * 0.25
		l.contrast += (st.Contrast - 0.5) * 0.3
		l.saturation *= 0.75 + 0.5*st.Saturation
		l.warmth += st.Warmth * 0.3
	}
	return l
}

// gradeCanvas applies l to the whole canvas in one pass: per-channel
// lookup tables for contrast, brightness and warmth, then saturation
// about each pixel's luma and the vignette, in fixed point.
func gradeCanvas(canvas *image.RGBA, l look, shift image.Point) {
	var lut [3][256]int32
	for ch := 0; ch < 3; ch++ {
		shift := l.brightness
		switch ch {
		case 0:
			shift += l.warmth * 0.08
		case 2:
			shift -= l.warmth * 0.08
		}
		for i := range lut[ch] {
			v := float64(i) / 255
			v = (v-0.5)*l.contrast + 0.5 + shift
			lut[ch][i] = int32(math.Round(imaging.Clamp01(v) * 255))
		}
	}
	sat := int32(l.saturation * 256)
	b := canvas.Bounds()
	vig := vignette(b.Dx(), b.Dy())
	vw := b.Dx() + 2*vignetteSlack
	shift.X = max(-vignetteSlack, min(vignetteSlack, shift.X))
	shift.Y = max(-vignetteSlack, min(vignetteSlack, shift.Y))
	strength := int32(l.vignette * 256)
	for y := 0; y < b.Dy(); y++ {
		row := canvas.Pix[y*canvas.Stride : y*canvas.Stride+b.Dx()*4]
		at := (y+vignetteSlack+shift.Y)*vw + vignetteSlack + shift.X
		vrow := vig[at : at+b.Dx()]
		for x := 0; x < b.Dx(); x++ {
			p := row[x*4 : x*4+3 : x*4+3]
			r, g, bl := lut[0][p[0]], lut[1][p[1]], lut[2][p[2]]
			lum := (54*r + 183*g + 19*bl) >> 8
			f := 256 - (strength*int32(vrow[x]))>>8
			p[0] = clamp8(((lum + (r-lum)*sat>>8) * f) >> 8)
			p[1] = clamp8(((lum + (g-lum)*sat>>8) * f) >> 8)
			p[2] = clamp8(((lum + (bl-lum)*sat>>8) * f) >> 8)
		}
	}
}

func clamp8(v int32) uint8 {
	if v < 0 {
		return 0
	}
	if v > 255 {
		return 255
	}
	return uint8(v)
}

var vignettes sync.Map // [2]int{w, h} -> []uint8

// vignetteSlack is how far (in pixels, each way) a render may shift the
// vignette: a seeded shift makes two seeds' pictures differ in nearly
// every pixel even when all their discrete choices agree (a variation on
// its parent's blurred picture has no background angle to turn).
const vignetteSlack = 48

// vignette is how far each pixel is into the corners (0 in the middle
// third, rising to 255 at the corners), for a w×h canvas centred in a
// map vignetteSlack wider on every side; computed once per canvas size.
func vignette(w, h int) []uint8 {
	key := [2]int{w, h}
	if v, ok := vignettes.Load(key); ok {
		return v.([]uint8)
	}
	vw, vh := w+2*vignetteSlack, h+2*vignetteSlack
	v := make([]uint8, vw*vh)
	for y := 0; y < vh; y++ {
		dy := (float64(y-vignetteSlack) - float64(h)/2) / (float64(h) / 2)
		for x := 0; x < vw; x++ {
			dx := (float64(x-vignetteSlack) - float64(w)/2) / (float64(w) / 2)
			d := math.Sqrt(dx*dx+dy*dy) / math.Sqrt2
			t := imaging.Clamp01((d - 0.35) / 0.65)
			v[y*vw+x] = uint8(math.Round(smooth(t) * 255))
		}
	}
	actual, _ := vignettes.LoadOrStore(key, v)
	return actual.([]uint8)
}
