package backdrop

import (
	"hash/fnv"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"slices"

	"golang.org/x/image/vector"

	"hookline.dev/services/thumbnails/internal/edits/plane"
)

// A background is drawn in layers: a base gradient (the sky, or a
// studio's backdrop), then each scene's elements from far to near (sun
// and stars, skylines and ridges, trees and water, then glows and
// flames). Everything is procedural and seeded by the canonical prompt,
// so a prompt always draws the same picture.

// stop is a gradient stop at t in 0..1 from the top.
type stop struct {
	t float64
	c color.RGBA
}

// look is a scene's drawing.
type look struct {
	// sky is the base gradient, top to bottom, used when the scene leads.
	sky []stop
	// mood ranks whose sky leads when a prompt names several scenes: a
	// time of day or a style (night, sunset, neon) outranks a place.
	mood int
	// depth orders the scenes' elements, far to near.
	depth int
	// accent is the colour of the scene's lights, unless the prompt gives
	// colours.
	accent color.RGBA
	// lights marks a scene that is mostly a dark backdrop for its lights
	// (neon, stars, flames): a prompt's colours colour the lights, not the
	// backdrop.
	lights bool
	draw   func(c *canvas)
}

func hex(v uint32) color.RGBA {
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255} //nolint:gosec // G115: bytes of a 24-bit value
}

func st(t float64, rgb uint32) stop { return stop{t, hex(rgb)} }

// horizon is where ground scenes meet the sky, as a fraction of the
// height: below the middle, as in a photo framed on a person.
const horizon = 0.64

var looks = map[Scene]look{
	Sunset: {
		sky:  []stop{st(0.0, 0x1e1347), st(0.25, 0x5b1f66), st(0.45, 0xc2366b), st(0.58, 0xff7a3d), st(horizon, 0xffc46b), st(0.8, 0xff8a4a), st(1.0, 0x7a2c45)},
		mood: 3, depth: 0, accent: hex(0xffd27a), draw: drawSun,
	},
	Night: {
		sky:  []stop{st(0.0, 0x03060f), st(0.6, 0x0d1a38), st(1.0, 0x1b2d55)},
		mood: 3, depth: 0, accent: hex(0xf4f1d0), lights: true, draw: drawNight,
	},
	Space: {
		sky:  []stop{st(0.0, 0x020207), st(0.5, 0x07081a), st(1.0, 0x0d0b24)},
		mood: 3, depth: 0, accent: hex(0x9b5de5), lights: true, draw: drawSpace,
	},
	Sky: {
		sky:   []stop{st(0.0, 0x2f7fd6), st(0.55, 0x8cc4f0), st(1.0, 0xd8eefb)},
		depth: 0, accent: hex(0xffffff), draw: drawClouds,
	},
	Mountains: {
		sky:   []stop{st(0.0, 0x7fa8d0), st(horizon, 0xe3edf5), st(1.0, 0xc9d6e2)},
		depth: 1, accent: hex(0xffffff), draw: drawMountains,
	},
	City: {
		sky:   []stop{st(0.0, 0x16243f), st(0.45, 0x3a4a78), st(0.75, 0xe08a5a), st(1.0, 0xf2b27a)},
		depth: 1, accent: hex(0xffd98a), draw: drawCity,
	},
	Desert: {
		sky:   []stop{st(0.0, 0x6fb1e0), st(horizon, 0xf6d9a8), st(1.0, 0xe9b77a)},
		depth: 1, accent: hex(0xfff1c9), draw: drawDunes,
	},
	Forest: {
		sky:   []stop{st(0.0, 0xa9cbd6), st(0.5, 0xdbe8df), st(1.0, 0x9fbf9d)},
		depth: 2, accent: hex(0xf5f0c8), draw: drawForest,
	},
	Ocean: {
		sky:   []stop{st(0.0, 0x4aa3e0), st(horizon, 0xcdeaf7), st(1.0, 0x1f6fa8)},
		depth: 2, accent: hex(0xffffff), draw: drawOcean,
	},
	Beach: {
		sky:   []stop{st(0.0, 0x3f9fe6), st(horizon, 0xd3eefa), st(1.0, 0xe8d3a6)},
		depth: 2, accent: hex(0xffffff), draw: drawBeach,
	},
	Snow: {
		sky:   []stop{st(0.0, 0x8ea6bf), st(horizon, 0xe1e9f0), st(1.0, 0xf4f7fa)},
		depth: 2, accent: hex(0xffffff), draw: drawSnow,
	},
	Studio: {
		sky:  []stop{st(0.0, 0x55595f), st(1.0, 0x1f2125)},
		mood: 1, depth: 3, accent: hex(0xffffff), draw: drawStudio,
	},
	Neon: {
		sky:  []stop{st(0.0, 0x0b0221), st(0.5, 0x2a0845), st(horizon, 0x7a1273), st(0.66, 0x1a0430), st(1.0, 0x0b0118)},
		mood: 3, depth: 0, accent: hex(0xff2bd6), lights: true, draw: drawNeon,
	},
	Fire: {
		sky:  []stop{st(0.0, 0x070000), st(0.5, 0x220400), st(1.0, 0x4a0c00)},
		mood: 2, depth: 3, accent: hex(0xff8a1f), lights: true, draw: drawFire,
	},
	Bokeh: {
		sky:  []stop{st(0.0, 0x1a1020), st(0.5, 0x3b1d35), st(1.0, 0x140a18)},
		mood: 1, depth: 3, accent: hex(0xffc46b), lights: true, draw: drawBokeh,
	},
}

// canvas is the picture being drawn and what the scenes share.
type canvas struct {
	img  *image.RGBA
	w, h int
	rng  *rand.Rand
	sky  []stop
	// dark tells lit elements (windows, stars) that they show.
	dark bool
	// accents are the colours for lights and glows.
	accents []color.RGBA
	// ground is set once a scene has drawn ground below the horizon, so
	// a later one draws in front of it rather than over it.
	ground bool
}

// Render draws the background at w×h.
func (b Background) Render(w, h int) *image.RGBA {
	c := &canvas{img: image.NewRGBA(image.Rect(0, 0, w, h)), w: w, h: h}
	hash := fnv.New64a()
	_, _ = hash.Write([]byte(b.String()))
	c.rng = rand.New(rand.NewPCG(hash.Sum64(), 0x6d617474)) //nolint:gosec // G404: a picture seeded for repeatability, not a secret
	if w == 0 || h == 0 {
		return c.img
	}

	// Unknown scenes (a Background built by hand) are skipped, and nothing
	// at all draws a plain studio.
	scenes := slices.DeleteFunc(slices.Clone(b.Scenes), func(s Scene) bool { _, ok := looks[s]; return !ok })
	if len(scenes) == 0 && len(b.Colours) == 0 {
		scenes = []Scene{Studio}
	}
	lead := -1
	for i, s := range scenes {
		if lead < 0 || looks[s].mood > looks[scenes[lead]].mood {
			lead = i
		}
	}
	switch {
	case len(scenes) > 0 && looks[scenes[lead]].lights:
		c.sky = looks[scenes[lead]].sky
	case len(b.Colours) == 1:
		col := b.Colours[0]
		c.sky = []stop{{0, mixRGBA(col, color.RGBA{255, 255, 255, 255}, 0.25)}, {0.55, col}, {1, mixRGBA(col, color.RGBA{0, 0, 0, 255}, 0.35)}}
	case len(b.Colours) > 1:
		for i, col := range b.Colours {
			c.sky = append(c.sky, stop{float64(i) / float64(len(b.Colours)-1), col})
		}
	default:
		c.sky = looks[scenes[lead]].sky
	}
	if len(b.Colours) > 0 {
		c.accents = b.Colours
	} else {
		for _, s := range scenes {
			c.accents = append(c.accents, looks[s].accent)
		}
	}
	c.dark = luminance(skyAt(c.sky, 0.3)) < 0.25

	if len(scenes) == 0 && len(b.Colours) == 1 {
		// One colour alone: a backdrop lit from the middle.
		c.radial(c.sky)
		return c.img
	}
	c.vertical(c.sky)
	slices.SortStableFunc(scenes, func(a, b Scene) int { return looks[a].depth - looks[b].depth })
	for _, s := range scenes {
		looks[s].draw(c)
	}
	return c.img
}

// skyAt is the gradient's colour at t.
func skyAt(st []stop, t float64) color.RGBA {
	if t <= st[0].t {
		return st[0].c
	}
	for i := 1; i < len(st); i++ {
		if t <= st[i].t {
			u := (t - st[i-1].t) / (st[i].t - st[i-1].t)
			return mixRGBA(st[i-1].c, st[i].c, smoothstep(u))
		}
	}
	return st[len(st)-1].c
}

func (c *canvas) vertical(st []stop) {
	for y := range c.h {
		col := skyAt(st, (float64(y)+0.5)/float64(c.h))
		row := c.img.Pix[y*c.img.Stride : y*c.img.Stride+4*c.w]
		for x := range c.w {
			row[4*x], row[4*x+1], row[4*x+2], row[4*x+3] = col.R, col.G, col.B, 255
		}
	}
}

// radial runs the gradient from the centre (t = 0) to the corners (1).
func (c *canvas) radial(st []stop) {
	cx, cy := float64(c.w)/2, float64(c.h)*0.45
	far := math.Hypot(cx, math.Max(cy, float64(c.h)-cy))
	for y := range c.h {
		for x := range c.w {
			t := math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy) / far
			col := skyAt(st, t)
			c.img.SetRGBA(x, y, col)
		}
	}
}

// blend mixes colour col into pixel (x, y) with opacity a.
func (c *canvas) blend(x, y int, col color.RGBA, a float64) {
	if x < 0 || y < 0 || x >= c.w || y >= c.h || a <= 0 {
		return
	}
	a = min(a, 1)
	p := c.img.Pix[y*c.img.Stride+4*x:]
	p[0] = uint8(float64(p[0]) + (float64(col.R)-float64(p[0]))*a + 0.5)
	p[1] = uint8(float64(p[1]) + (float64(col.G)-float64(p[1]))*a + 0.5)
	p[2] = uint8(float64(p[2]) + (float64(col.B)-float64(p[2]))*a + 0.5)
}

// add brightens pixel (x, y) by col scaled by a, as light does.
func (c *canvas) add(x, y int, col color.RGBA, a float64) {
	if x < 0 || y < 0 || x >= c.w || y >= c.h || a <= 0 {
		return
	}
	p := c.img.Pix[y*c.img.Stride+4*x:]
	p[0] = uint8(min(255, float64(p[0])+float64(col.R)*a))
	p[1] = uint8(min(255, float64(p[1])+float64(col.G)*a))
	p[2] = uint8(min(255, float64(p[2])+float64(col.B)*a))
}

// glow adds a light of radius r at (cx, cy) fading as a Gaussian, with
// peak intensity a.
func (c *canvas) glow(cx, cy, r float64, col color.RGBA, a float64) {
	x0, x1 := int(cx-3*r), int(cx+3*r)+1
	y0, y1 := int(cy-3*r), int(cy+3*r)+1
	for y := max(0, y0); y < min(c.h, y1); y++ {
		for x := max(0, x0); x < min(c.w, x1); x++ {
			d := math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy) / r
			c.add(x, y, col, a*math.Exp(-d*d/2))
		}
	}
}

// disc draws an antialiased disc with a soft edge of width soft pixels.
func (c *canvas) disc(cx, cy, r, soft float64, col color.RGBA, a float64) {
	soft = max(soft, 1)
	for y := max(0, int(cy-r-soft)); y < min(c.h, int(cy+r+soft)+1); y++ {
		for x := max(0, int(cx-r-soft)); x < min(c.w, int(cx+r+soft)+1); x++ {
			d := math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy)
			c.blend(x, y, col, a*(1-smoothstep((d-r+soft/2)/soft)))
		}
	}
}

// fill draws the closed polygon through pts in col, rasterizing only its
// bounding box.
func (c *canvas) fill(pts [][2]float64, col color.RGBA) {
	if len(pts) < 3 {
		return
	}
	lo, hi := pts[0], pts[0]
	for _, p := range pts {
		lo = [2]float64{min(lo[0], p[0]), min(lo[1], p[1])}
		hi = [2]float64{max(hi[0], p[0]), max(hi[1], p[1])}
	}
	box := image.Rect(int(math.Floor(lo[0])), int(math.Floor(lo[1])), int(math.Ceil(hi[0])), int(math.Ceil(hi[1]))).Intersect(c.img.Rect)
	if box.Empty() {
		return
	}
	ox, oy := float64(box.Min.X), float64(box.Min.Y)
	z := vector.NewRasterizer(box.Dx(), box.Dy())
	z.MoveTo(float32(pts[0][0]-ox), float32(pts[0][1]-oy))
	for _, p := range pts[1:] {
		z.LineTo(float32(p[0]-ox), float32(p[1]-oy))
	}
	z.ClosePath()
	z.Draw(c.img, box, image.NewUniform(col), image.Point{})
}

// ridge is a polygon from a height profile: y(t) for t in 0..1 across the
// width, closed along the bottom edge.
func (c *canvas) ridge(y func(t float64) float64, col color.RGBA) {
	n := max(2, c.w/4)
	pts := make([][2]float64, 0, n+3)
	for i := 0; i <= n; i++ {
		t := float64(i) / float64(n)
		pts = append(pts, [2]float64{t * float64(c.w), y(t)})
	}
	pts = append(pts, [2]float64{float64(c.w), float64(c.h)}, [2]float64{0, float64(c.h)})
	c.fill(pts, col)
}

func (c *canvas) accent(i int) color.RGBA { return c.accents[i%len(c.accents)] }

// noise is value noise on a seeded lattice: smooth random values in
// 0..1, summed over octaves by fbm into clouds, nebulae and flames.
type noise struct {
	perm [256]uint8
	val  [256]float64
}

func newNoise(rng *rand.Rand) *noise {
	n := &noise{}
	for i := range n.perm {
		n.perm[i] = uint8(i) //nolint:gosec // G115: i < 256
		n.val[i] = rng.Float64()
	}
	rng.Shuffle(len(n.perm), func(i, j int) { n.perm[i], n.perm[j] = n.perm[j], n.perm[i] })
	return n
}

func (n *noise) lattice(x, y int) float64 {
	return n.val[n.perm[(int(n.perm[x&255])+y)&255]]
}

func (n *noise) value(x, y float64) float64 {
	x0, y0 := math.Floor(x), math.Floor(y)
	fx, fy := smoothstep(x-x0), smoothstep(y-y0)
	ix, iy := int(x0), int(y0)
	a := n.lattice(ix, iy) + (n.lattice(ix+1, iy)-n.lattice(ix, iy))*fx
	b := n.lattice(ix, iy+1) + (n.lattice(ix+1, iy+1)-n.lattice(ix, iy+1))*fx
	return a + (b-a)*fy
}

// fbm is fractal noise at (x, y) in lattice units: octaves of value noise,
// each twice as fine and half as strong, normalised to about 0..1.
func (n *noise) fbm(x, y float64, octaves int) float64 {
	sum, amp, norm := 0.0, 1.0, 0.0
	for range octaves {
		sum += amp * n.value(x, y)
		norm += amp
		amp /= 2
		x, y = x*2+17.3, y*2+9.1
	}
	return sum / norm
}

// field samples f on a grid a quarter of the canvas size and returns it
// upsampled: noise fields are smooth, so this costs a sixteenth.
func (c *canvas) field(f func(u, v float64) float64) plane.Plane {
	qw, qh := max(1, c.w/4), max(1, c.h/4)
	p := plane.New(qw, qh)
	for y := range qh {
		for x := range qw {
			p.V[y*qw+x] = float32(f((float64(x)+0.5)/float64(qw), (float64(y)+0.5)/float64(qh)))
		}
	}
	return plane.Resize(p, c.w, c.h)
}

func luminance(c color.RGBA) float64 {
	return (0.2126*float64(c.R) + 0.7152*float64(c.G) + 0.0722*float64(c.B)) / 255
}

// smoothstep eases t in 0..1 (clamped) with zero slope at both ends, so
// gradients and glows have no visible seams.
func smoothstep(t float64) float64 {
	t = min(max(t, 0), 1)
	return t * t * (3 - 2*t)
}

func drawSun(c *canvas) {
	// Off-centre: the subject usually stands in the middle.
	cx, cy := float64(c.w)*0.74, float64(c.h)*(horizon-0.02)
	r := float64(c.h) * 0.1
	c.glow(cx, cy, r*3.5, c.accent(0), 0.35)
	c.disc(cx, cy, r, 2, mixRGBA(c.accent(0), color.RGBA{255, 255, 255, 255}, 0.5), 0.95)
}

func drawNight(c *canvas) {
	c.stars(c.w*c.h/900, 0.75)
	cx, cy, r := float64(c.w)*0.8, float64(c.h)*0.18, float64(c.h)*0.06
	c.glow(cx, cy, r*2.5, c.accent(0), 0.18)
	c.disc(cx, cy, r, 1.5, c.accent(0), 1)
}

// stars scatters n stars over the top part of the sky above limit·h.
func (c *canvas) stars(n int, limit float64) {
	for range n {
		x, y := c.rng.Float64()*float64(c.w), c.rng.Float64()*float64(c.h)*limit
		b := 0.3 + 0.7*math.Pow(c.rng.Float64(), 3)
		c.add(int(x), int(y), color.RGBA{255, 255, 245, 255}, b)
		if b > 0.8 {
			c.glow(x, y, 1.5, color.RGBA{200, 210, 255, 255}, 0.35)
		}
	}
}

func drawSpace(c *canvas) {
	nz := newNoise(c.rng)
	cloud := c.field(func(u, v float64) float64 {
		return nz.fbm(u*5, v*5*float64(c.h)/float64(c.w), 5)
	})
	tint := c.field(func(u, v float64) float64 { return nz.fbm(u*2+40, v*2+40, 3) })
	warm := color.RGBA{230, 80, 160, 255}
	for y := range c.h {
		for x := range c.w {
			i := y*c.w + x
			d := smoothstep((float64(cloud.V[i]) - 0.4) / 0.35)
			col := mixRGBA(c.accent(0), warm, smoothstep(float64(tint.V[i])*1.6-0.3))
			c.add(x, y, col, 0.7*d)
		}
	}
	c.stars(c.w*c.h/500, 1)
}

func drawClouds(c *canvas) {
	nz := newNoise(c.rng)
	f := c.field(func(u, v float64) float64 {
		return nz.fbm(u*4, v*9*float64(c.h)/float64(c.w), 5)
	})
	for y := range c.h {
		// Clouds thin out towards the horizon.
		fade := 1 - smoothstep(float64(y)/float64(c.h)/0.8)
		for x := range c.w {
			d := smoothstep((float64(f.V[y*c.w+x]) - 0.5) / 0.25)
			c.blend(x, y, c.accent(0), 0.85*d*fade)
		}
	}
}

func drawMountains(c *canvas) {
	hz := float64(c.h) * horizon
	base := skyAt(c.sky, horizon)
	rock := hex(0x4a5a70)
	for layer := range 3 {
		depth := float64(layer) / 2 // 0 far .. 1 near
		col := mixRGBA(base, rock, 0.35+0.5*depth)
		peaks := c.profile(4+layer*2, 0.55)
		top := hz - float64(c.h)*(0.32-0.1*depth)
		bottom := hz + float64(c.h)*0.04*depth
		c.ridge(func(t float64) float64 { return bottom - (bottom-top)*peaks(t) }, col)
	}
	c.ground = true
}

// profile returns a random ridge line: a sum of bumps across 0..1 with
// values in about 0..1, jagged by amount jag.
func (c *canvas) profile(bumps int, jag float64) func(t float64) float64 {
	type bump struct{ at, width, height float64 }
	bs := make([]bump, bumps)
	for i := range bs {
		bs[i] = bump{c.rng.Float64(), 0.08 + 0.15*c.rng.Float64(), 0.4 + 0.6*c.rng.Float64()}
	}
	phase := c.rng.Float64() * 10
	return func(t float64) float64 {
		v := 0.0
		for _, b := range bs {
			d := math.Abs(t-b.at) / b.width
			v = max(v, b.height*math.Max(0, 1-d))
		}
		return min(1, v+jag*0.05*(math.Sin(t*90+phase)+math.Sin(t*37+2*phase)))
	}
}

func drawCity(c *canvas) {
	hz := float64(c.h) * (horizon + 0.1)
	base := skyAt(c.sky, horizon)
	for layer := range 2 {
		col := mixRGBA(base, hex(0x0b0f1c), 0.55+0.35*float64(layer))
		x := -c.rng.Float64() * 30
		for x < float64(c.w) {
			bw := float64(c.w) * (0.03 + 0.05*c.rng.Float64())
			bh := float64(c.h) * (0.12 + 0.3*c.rng.Float64()) * (1 - 0.35*float64(layer))
			top := hz - bh
			c.fill([][2]float64{{x, top}, {x + bw, top}, {x + bw, float64(c.h)}, {x, float64(c.h)}}, col)
			if layer == 1 {
				c.windows(x, top, bw, float64(c.h))
			}
			x += bw + float64(c.w)*0.004
		}
	}
	c.ground = true
}

// windows lights some windows of a building; more of them after dark.
func (c *canvas) windows(x0, top, bw, bottom float64) {
	size := max(2, bw/7)
	lit := 0.15
	if c.dark {
		lit = 0.45
	}
	for y := top + size; y+size < bottom; y += size * 2 {
		for x := x0 + size; x+size < x0+bw; x += size * 2 {
			if c.rng.Float64() > lit {
				continue
			}
			col := c.accent(c.rng.IntN(len(c.accents)))
			for yy := int(y); yy < int(y+size); yy++ {
				for xx := int(x); xx < int(x+size); xx++ {
					c.blend(xx, yy, col, 0.85)
				}
			}
		}
	}
}

func drawDunes(c *canvas) {
	hz := float64(c.h) * horizon
	sand := []color.RGBA{hex(0xe8b56e), hex(0xd99a52), hex(0xc47f3c)}
	for layer, col := range sand {
		depth := float64(layer)
		phase, freq := c.rng.Float64()*6, 1.5+c.rng.Float64()
		base := hz + float64(c.h)*0.08*depth
		c.ridge(func(t float64) float64 {
			return base - float64(c.h)*0.06*(1+math.Sin(t*freq*math.Pi*2+phase))/2
		}, mixRGBA(skyAt(c.sky, horizon), col, 0.6+0.2*depth))
	}
	c.ground = true
}

func drawForest(c *canvas) {
	hz := float64(c.h) * horizon
	base := skyAt(c.sky, horizon)
	green := hex(0x1f4a2c)
	for layer := range 3 {
		depth := float64(layer) / 2
		col := mixRGBA(base, green, 0.35+0.6*depth)
		treeH := float64(c.h) * (0.18 + 0.2*depth)
		ground := hz + float64(c.h)*0.12*depth
		// The forest floor of this layer, then trees standing on it.
		c.ridge(func(float64) float64 { return ground }, col)
		x := -c.rng.Float64() * treeH * 0.3
		for x < float64(c.w)+treeH*0.3 {
			th := treeH * (0.7 + 0.5*c.rng.Float64())
			tw := th * 0.38
			c.tree(x, ground+2, tw, th, col)
			x += tw * (0.45 + 0.4*c.rng.Float64())
		}
	}
	c.ground = true
}

// tree draws a fir of width w and height h standing at (x, ground).
func (c *canvas) tree(x, ground, w, h float64, col color.RGBA) {
	const tiers = 3
	for k := range tiers {
		f := float64(k) / tiers
		top := ground - h*(1-f*0.45)
		bottom := ground - h*(0.45-f*0.45)
		half := w / 2 * (0.55 + 0.45*(f+1/float64(tiers)))
		c.fill([][2]float64{{x, top}, {x + half, bottom}, {x - half, bottom}}, col)
	}
}

func drawOcean(c *canvas) {
	hz := float64(c.h) * horizon
	if c.ground {
		hz = float64(c.h) * 0.82 // in front of a skyline or ridges
	}
	c.sea(hz, float64(c.h))
}

// sea draws water from y0 to y1: the sky's horizon colour deepening
// towards the viewer, with bands of light on the waves.
func (c *canvas) sea(y0, y1 float64) {
	near := hex(0x0f4c81)
	far := mixRGBA(skyAt(c.sky, horizon), hex(0x2a7fb8), 0.6)
	nz := newNoise(c.rng)
	for y := int(y0); y < min(c.h, int(y1)); y++ {
		t := max(0, float64(y)+0.5-y0) / max(1, float64(c.h)-y0)
		col := mixRGBA(far, near, math.Sqrt(t))
		for x := range c.w {
			c.blend(x, y, col, 1)
			// Highlights: thin wave crests, longer far away.
			wv := nz.value(float64(x)/(8+40*(1-t)), float64(y)/(1.5+6*t))
			if wv > 0.78 {
				c.blend(x, y, c.accent(0), (wv-0.78)*2.5*(1-0.5*t))
			}
		}
	}
	c.ground = true
}

func drawBeach(c *canvas) {
	hz := float64(c.h) * horizon
	shore := hz + float64(c.h)*0.14
	c.sea(hz, shore+6)
	sand := hex(0xe6cf9c)
	nz := newNoise(c.rng)
	phase := c.rng.Float64() * 6
	edge := func(t float64) float64 { return shore + float64(c.h)*0.015*math.Sin(t*7+phase) }
	c.ridge(edge, sand)
	// Foam along the water's edge, and a grain in the sand.
	for x := range c.w {
		y := edge(float64(x) / float64(c.w))
		for dy := -3.0; dy <= 3; dy++ {
			c.blend(x, int(y+dy), color.RGBA{255, 255, 255, 255}, 0.6*(1-math.Abs(dy)/4))
		}
		for yy := int(y) + 3; yy < c.h; yy++ {
			g := nz.value(float64(x)/2, float64(yy)/2)
			c.blend(x, yy, hex(0xb89a64), 0.25*g)
		}
	}
	c.ground = true
}

func drawSnow(c *canvas) {
	hz := float64(c.h) * (horizon + 0.08)
	phase := c.rng.Float64() * 6
	c.ridge(func(t float64) float64 {
		return hz - float64(c.h)*0.05*(1+math.Sin(t*4+phase))/2
	}, hex(0xf7fafc))
	c.ground = true
	for range c.w * c.h / 1500 {
		x, y := c.rng.Float64()*float64(c.w), c.rng.Float64()*float64(c.h)
		r := 0.8 + 2.2*math.Pow(c.rng.Float64(), 2)
		c.disc(x, y, r, r*0.8, color.RGBA{255, 255, 255, 255}, 0.85)
	}
}

func drawStudio(c *canvas) {
	// A key light behind the subject and a vignette towards the corners.
	cx, cy := float64(c.w)/2, float64(c.h)*0.4
	far := math.Hypot(cx, float64(c.h)-cy)
	for y := range c.h {
		for x := range c.w {
			d := math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy) / far
			c.add(x, y, c.accent(0), 0.22*math.Exp(-d*d/0.18))
			c.blend(x, y, color.RGBA{0, 0, 0, 255}, 0.45*smoothstep((d-0.5)/0.6))
		}
	}
}

func drawNeon(c *canvas) {
	hz := float64(c.h) * horizon
	col := c.accent(0)
	second := hex(0x22e4ff)
	if len(c.accents) > 1 {
		second = c.accent(1)
	}
	c.glow(float64(c.w)/2, hz, float64(c.h)*0.25, col, 0.35)
	// A floor grid in perspective: horizontal lines closer together
	// towards the horizon, lines converging on a vanishing point.
	line := func(y float64, a float64) {
		for x := range c.w {
			for dy := -2; dy <= 2; dy++ {
				c.add(x, int(y)+dy, col, a*math.Exp(-float64(dy*dy)/2))
			}
		}
	}
	for k := 1; k < 14; k++ {
		t := math.Pow(float64(k)/13, 2)
		line(hz+(float64(c.h)-hz)*t, 0.5+0.4*t)
	}
	vx := float64(c.w) / 2
	for k := -12; k <= 12; k++ {
		bx := vx + float64(k)*float64(c.w)/8
		for y := int(hz); y < c.h; y++ {
			t := (float64(y) - hz) / (float64(c.h) - hz)
			x := vx + (bx-vx)*t
			for dx := -2; dx <= 2; dx++ {
				c.add(int(x)+dx, y, col, (0.3+0.5*t)*math.Exp(-float64(dx*dx)/2))
			}
		}
	}
	line(hz, 0.9)
	// A sun cut by bands, as synthwave draws it.
	cx, cy, r := float64(c.w)/2, hz-float64(c.h)*0.17, float64(c.h)*0.16
	for y := int(cy - r); y < int(hz); y++ {
		band := (float64(y) - (cy - r)) / (2 * r)
		if band > 0.55 && int((band-0.55)*40)%3 == 2 {
			continue
		}
		for x := int(cx - r); x <= int(cx+r); x++ {
			d := math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy)
			c.blend(x, y, mixRGBA(second, col, band), 1-smoothstep(d-r+1))
		}
	}
}

func drawFire(c *canvas) {
	nz := newNoise(c.rng)
	f := c.field(func(u, v float64) float64 {
		// Stretched upwards, so the noise reads as tongues of flame.
		return nz.fbm(u*7, v*2.5, 5)
	})
	ramp := []stop{{0, hex(0x000000)}, {0.35, hex(0x8a1200)}, {0.6, hex(0xe04a00)}, {0.8, c.accent(0)}, {1, hex(0xfff3b0)}}
	for y := range c.h {
		// Hotter towards the bottom.
		heat := math.Pow(float64(y)/float64(c.h), 1.4)
		for x := range c.w {
			v := min(1, max(0, float64(f.V[y*c.w+x])*1.3*heat+0.35*heat-0.1))
			c.blend(x, y, skyAt(ramp, v), smoothstep(v*3))
		}
	}
	// Embers.
	for range c.w * c.h / 4000 {
		x, y := c.rng.Float64()*float64(c.w), c.rng.Float64()*float64(c.h)*0.8
		c.glow(x, y, 1.2, c.accent(0), 0.8)
	}
}

func drawBokeh(c *canvas) {
	for range 28 {
		x, y := c.rng.Float64()*float64(c.w), c.rng.Float64()*float64(c.h)
		r := float64(c.h) * (0.025 + 0.07*c.rng.Float64())
		col := c.accent(c.rng.IntN(len(c.accents)))
		c.glow(x, y, r*0.9, col, 0.12)
		c.disc(x, y, r, r*0.15, mixRGBA(col, color.RGBA{255, 255, 255, 255}, 0.2), 0.35+0.3*c.rng.Float64())
	}
}
