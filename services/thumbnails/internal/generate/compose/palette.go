package compose

import (
	"image/color"
	"math"
	"math/rand/v2"
	"sort"

	"hookline.dev/pkg/media/imaging"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/layout"
)

// vivid are the palettes a request without brand, style or template
// colours draws from: dark, saturated backgrounds under a hot primary and
// a contrasting accent, the look that reads at thumbnail size.
var vivid = []layout.Palette{
	pal("#0d0630", "#5b0eeb", "#ff2e63", "#ffe600", "#ffffff", "#0b0b0b"),
	pal("#04101f", "#0077ff", "#00e0ff", "#ffd000", "#ffffff", "#000814"),
	pal("#1a0000", "#d00000", "#ff5400", "#ffea00", "#ffffff", "#0a0a0a"),
	pal("#001a12", "#00a86b", "#39ff14", "#ffffff", "#ffffff", "#00140d"),
	pal("#160028", "#ff006e", "#8338ec", "#ffbe0b", "#ffffff", "#0b0014"),
	pal("#111111", "#ff7b00", "#ffb700", "#ff0054", "#ffffff", "#000000"),
	pal("#03045e", "#0096c7", "#90e0ef", "#ff006e", "#ffffff", "#00010f"),
	pal("#2b0f00", "#ff4800", "#ffb627", "#00f5d4", "#ffffff", "#120600"),
}

func pal(bg, bg2, primary, accent, text, stroke string) layout.Palette {
	p := layout.Palette{}
	for role, hex := range map[layout.Role]string{
		layout.RoleBackground: bg, layout.RoleBackground2: bg2, layout.RolePrimary: primary,
		layout.RoleAccent: accent, layout.RoleText: text, layout.RoleStroke: stroke,
	} {
		c, err := layout.ParseHex(hex)
		if err != nil {
			panic(err) // a typo in the table above
		}
		p[role] = c
	}
	return p
}

// resolvePalette decides the colours: a brand's colours win, then a
// style's measured palette, then the layout's own palette (templates),
// else a vivid palette picked and rotated by the seed.
func resolvePalette(req engine.Request, l layout.Layout, builtin bool, rng *rand.Rand) layout.Palette {
	base := l.Palette
	if builtin || len(base) == 0 {
		base = vivid[rng.IntN(len(vivid))]
		if rng.IntN(2) == 1 {
			// Rotate: swap the hot colours, a cheap second look.
			base = clonePalette(base)
			base[layout.RolePrimary], base[layout.RoleAccent] = base[layout.RoleAccent], base[layout.RolePrimary]
		}
	}
	p := clonePalette(base)
	switch {
	case req.Brand != nil && len(req.Brand.Colors) > 0:
		fromColors(p, req.Brand.Colors)
	case req.Style != nil && len(req.Style.Palette) > 0:
		fromSwatches(p, req.Style.Palette)
	}
	return p
}

func clonePalette(p layout.Palette) layout.Palette {
	c := make(layout.Palette, len(p))
	for k, v := range p {
		c[k] = v
	}
	return c
}

// fromColors maps a brand's colours (primary first) onto the roles: the
// first is the primary, the second (or the first's complement) the
// accent, and the backgrounds are deep shades of the first, so that white
// text with a dark stroke stays readable whatever the brand's colours.
func fromColors(p layout.Palette, cs []color.RGBA) {
	primary := cs[0]
	accent := complement(primary)
	if len(cs) > 1 {
		accent = cs[1]
	}
	p[layout.RolePrimary] = primary
	p[layout.RoleAccent] = accent
	p[layout.RoleBackground] = shade(primary, 0.18)
	p[layout.RoleBackground2] = shade(primary, 0.6)
	if len(cs) > 2 {
		p[layout.RoleBackground2] = cs[2]
	}
	keepReadable(p)
}

// fromSwatches maps a style's dominant colours (heaviest first): the
// heaviest two become the background, the most saturated two the primary
// and accent.
func fromSwatches(p layout.Palette, sw []engine.Swatch) {
	p[layout.RoleBackground] = sw[0].Color
	p[layout.RoleBackground2] = sw[0].Color
	if len(sw) > 1 {
		p[layout.RoleBackground2] = sw[1].Color
	}
	bySat := make([]color.RGBA, len(sw))
	for i, s := range sw {
		bySat[i] = s.Color
	}
	sort.SliceStable(bySat, func(i, j int) bool { return saturation(bySat[i]) > saturation(bySat[j]) })
	p[layout.RolePrimary] = vivify(bySat[0])
	p[layout.RoleAccent] = complement(bySat[0])
	if len(bySat) > 1 && hueDistance(bySat[0], bySat[1]) > 20 {
		p[layout.RoleAccent] = vivify(bySat[1])
	}
	keepReadable(p)
}

// keepReadable fixes text and stroke to white on near-black or the
// reverse, whichever contrasts more with the background, and keeps the
// background dark enough to carry bright accents.
func keepReadable(p layout.Palette) {
	white, black := color.RGBA{255, 255, 255, 255}, color.RGBA{10, 10, 12, 255}
	p[layout.RoleText], p[layout.RoleStroke] = white, black
	bg, bg2 := p[layout.RoleBackground], p[layout.RoleBackground2]
	if imaging.Luma(bg.R, bg.G, bg.B) > 0.75*255 && imaging.Luma(bg2.R, bg2.G, bg2.B) > 0.75*255 {
		p[layout.RoleBackground] = shade(p[layout.RoleBackground], 0.85)
	}
}

// hsv returns hue in degrees, saturation and value in 0..1.
func hsv(c color.RGBA) (h, s, v float64) {
	r, g, b := float64(c.R)/255, float64(c.G)/255, float64(c.B)/255
	mx, mn := math.Max(r, math.Max(g, b)), math.Min(r, math.Min(g, b))
	v = mx
	if mx == 0 {
		return 0, 0, 0
	}
	s = (mx - mn) / mx
	d := mx - mn
	switch {
	case d == 0:
		h = 0
	case mx == r:
		h = math.Mod((g-b)/d, 6)
	case mx == g:
		h = (b-r)/d + 2
	default:
		h = (r-g)/d + 4
	}
	h *= 60
	if h < 0 {
		h += 360
	}
	return h, s, v
}

func fromHSV(h, s, v float64) color.RGBA {
	c := v * s
	x := c * (1 - math.Abs(math.Mod(h/60, 2)-1))
	m := v - c
	var r, g, b float64
	switch {
	case h < 60:
		r, g, b = c, x, 0
	case h < 120:
		r, g, b = x, c, 0
	case h < 180:
		r, g, b = 0, c, x
	case h < 240:
		r, g, b = 0, x, c
	case h < 300:
		r, g, b = x, 0, c
	default:
		r, g, b = c, 0, x
	}
	return color.RGBA{uint8(math.Round((r + m) * 255)), uint8(math.Round((g + m) * 255)), uint8(math.Round((b + m) * 255)), 255}
}

func saturation(c color.RGBA) float64 { _, s, v := hsv(c); return s * v }

func hueDistance(a, b color.RGBA) float64 {
	ha, _, _ := hsv(a)
	hb, _, _ := hsv(b)
	d := math.Abs(ha - hb)
	return math.Min(d, 360-d)
}

// vivify pushes a colour to thumbnail strength: saturated and bright.
func vivify(c color.RGBA) color.RGBA {
	h, s, v := hsv(c)
	if s < 0.15 {
		return c // a grey stays a grey: there is no hue to push
	}
	return fromHSV(h, math.Max(s, 0.75), math.Max(v, 0.9))
}

// complement is the opposite hue, vivid.
func complement(c color.RGBA) color.RGBA {
	h, s, _ := hsv(c)
	if s < 0.15 {
		return color.RGBA{255, 214, 0, 255} // no hue to oppose: yellow reads on grey
	}
	return fromHSV(math.Mod(h+180, 360), 0.85, 1)
}

// shade darkens c to the fraction f of its value.
func shade(c color.RGBA, f float64) color.RGBA {
	return color.RGBA{uint8(float64(c.R) * f), uint8(float64(c.G) * f), uint8(float64(c.B) * f), 255}
}

// mix blends a and b, t of b.
func mix(a, b color.RGBA, t float64) color.RGBA {
	l := func(x, y uint8) uint8 { return uint8(math.Round(float64(x)*(1-t) + float64(y)*t)) }
	return color.RGBA{l(a.R, b.R), l(a.G, b.G), l(a.B, b.B), 255}
}
