package imaging

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"testing"
)

// Dilate grows a dot into a disc of the radius; a wide outline, measured
// on a coarser grid, stays within a pixel of the exact rim.
func TestDilate(t *testing.T) {
	for _, c := range []struct {
		radius, slack float64
	}{{6, 0.5}, {30, 1.5}} {
		n := int(2*c.radius) + 21
		m := image.NewAlpha(image.Rect(0, 0, n, n))
		m.Pix[(n/2)*n+n/2] = 255
		d := Dilate(m, c.radius)
		for y := range n {
			for x := range n {
				r := math.Hypot(float64(x-n/2), float64(y-n/2))
				a := d.Pix[y*n+x]
				switch {
				case r <= c.radius-c.slack && a != 255:
					t.Fatalf("radius %.0f: (%d,%d) at %.1f px is %d, want covered", c.radius, x, y, r, a)
				case r >= c.radius+c.slack && a != 0:
					t.Fatalf("radius %.0f: (%d,%d) at %.1f px is %d, want empty", c.radius, x, y, r, a)
				}
			}
		}
	}
}

func TestBlurKeepsMass(t *testing.T) {
	m := image.NewAlpha(image.Rect(0, 0, 60, 60))
	for y := 20; y < 40; y++ {
		for x := 20; x < 40; x++ {
			m.Pix[y*60+x] = 255
		}
	}
	sum := func() (s int) {
		for _, v := range m.Pix {
			s += int(v)
		}
		return s
	}
	before := sum()
	Blur(m, 3)
	if after := sum(); math.Abs(float64(after-before)) > 0.01*float64(before) {
		t.Errorf("blur changed the mass from %d to %d", before, after)
	}
	if m.Pix[20*60+20] > 200 || m.Pix[30*60+30] < 250 || m.Pix[17*60+30] == 0 {
		t.Error("the blur did not soften the square's edge only")
	}
}

// BoxMean is the mean of each clipped window, computed directly.
func TestBoxMean(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const w, h, r = 17, 11, 3
	g := make([]float32, w*h)
	for i := range g {
		g[i] = float32(rng.IntN(256))
	}
	got := BoxMean(g, w, h, r)
	for y := range h {
		for x := range w {
			var sum, n float64
			for yy := max(0, y-r); yy <= min(h-1, y+r); yy++ {
				for xx := max(0, x-r); xx <= min(w-1, x+r); xx++ {
					sum += float64(g[yy*w+xx])
					n++
				}
			}
			if d := math.Abs(float64(got[y*w+x]) - sum/n); d > 1e-3 {
				t.Fatalf("(%d,%d): %.4f, want %.4f", x, y, got[y*w+x], sum/n)
			}
		}
	}
}

// A shadow falls down and to the right, soft, within the mask's bounds,
// and leaves the mask it is cast from as it was.
func TestShadow(t *testing.T) {
	for _, size := range []float64{20, 200} {
		m := image.NewAlpha(image.Rect(10, 20, 310, 320))
		square := image.Rect(110, 120, 210, 220)
		for y := square.Min.Y; y < square.Max.Y; y++ {
			for x := square.Min.X; x < square.Max.X; x++ {
				m.SetAlpha(x, y, color.Alpha{A: 255})
			}
		}
		before := append([]uint8(nil), m.Pix...)
		s := Shadow(m, size)
		if s.Rect != m.Rect {
			t.Fatalf("size %.0f: shadow bounds %v, mask %v", size, s.Rect, m.Rect)
		}
		for i := range before {
			if m.Pix[i] != before[i] {
				t.Fatalf("size %.0f: the mask changed", size)
			}
		}
		var sx, sy, mass float64
		soft := 0
		for y := s.Rect.Min.Y; y < s.Rect.Max.Y; y++ {
			for x := s.Rect.Min.X; x < s.Rect.Max.X; x++ {
				a := float64(s.AlphaAt(x, y).A)
				sx, sy, mass = sx+a*float64(x), sy+a*float64(y), mass+a
				if a > 10 && a < 245 {
					soft++
				}
			}
		}
		dx, dy := sx/mass-160, sy/mass-170
		if math.Abs(dx-0.05*size) > 1.5 || math.Abs(dy-0.07*size) > 1.5 {
			t.Errorf("size %.0f: the shadow's centre moved by (%.1f, %.1f)", size, dx, dy)
		}
		if soft < 100 {
			t.Errorf("size %.0f: %d soft pixels: the shadow is not blurred", size, soft)
		}
	}
}

// Paint gives the same colour on an opaque RGBA, an opaque NRGBA and any
// other image, and a valid premultiplied colour on a transparent RGBA.
func TestPaint(t *testing.T) {
	mask := image.NewAlpha(image.Rect(0, 0, 16, 1))
	for x := range 16 {
		mask.Pix[x] = uint8(x * 17)
	}
	c := color.NRGBA{250, 120, 10, 200}
	ground := color.NRGBA{20, 90, 200, 255}
	rgba := image.NewRGBA(image.Rect(-2, 0, 14, 1))
	nrgba := image.NewNRGBA(rgba.Rect)
	other := image.NewRGBA64(rgba.Rect)
	for x := -2; x < 14; x++ {
		rgba.Set(x, 0, ground)
		nrgba.Set(x, 0, ground)
		other.Set(x, 0, ground)
	}
	at := image.Pt(-4, 0)
	Paint(rgba, mask, at, c, 0.8)
	Paint(nrgba, mask, at, c, 0.8)
	Paint(other, mask, at, c, 0.8)
	for x := -2; x < 14; x++ {
		k := 0.0
		if x < 12 {
			k = float64(mask.Pix[x-at.X]) / 255 * 0.8 * 200 / 255
		}
		want := [3]float64{250*k + 20*(1-k), 120*k + 90*(1-k), 10*k + 200*(1-k)}
		for i, img := range []image.Image{rgba, nrgba, other} {
			r, g, b, a := img.At(x, 0).RGBA()
			for j, v := range [3]uint32{r >> 8, g >> 8, b >> 8} {
				if math.Abs(float64(v)-want[j]) > 1 || a != 0xffff {
					t.Fatalf("image %d at %d: %d,%d,%d,%d, want %.0f,%.0f,%.0f", i, x, r>>8, g>>8, b>>8, a>>8, want[0], want[1], want[2])
				}
			}
		}
	}
	clear := image.NewRGBA(mask.Rect)
	Paint(clear, mask, image.Point{}, c, 1)
	for x := range 16 {
		p := clear.RGBAAt(x, 0)
		if want := math.Round(float64(mask.Pix[x]) * 200 / 255); math.Abs(float64(p.A)-want) > 1 || p.R > p.A || p.G > p.A || p.B > p.A {
			t.Errorf("on a transparent picture at %d: %v, want alpha %.0f", x, p, want)
		}
	}
}
