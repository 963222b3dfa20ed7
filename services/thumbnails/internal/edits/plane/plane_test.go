package plane

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"testing"
)

func random(rng *rand.Rand, w, h int) Plane {
	p := New(w, h)
	for i := range p.V {
		p.V[i] = rng.Float32()
	}
	return p
}

// BoxMean is the mean of each clipped window, whatever the radius.
func TestBoxMeanIsTheWindowMean(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct{ w, h, r int }{{7, 5, 1}, {7, 5, 3}, {1, 9, 2}, {6, 1, 10}, {4, 4, 0}} {
		p := random(rng, c.w, c.h)
		got := BoxMean(p, c.r)
		for y := range c.h {
			for x := range c.w {
				var sum float64
				n := 0
				for v := max(0, y-c.r); v <= min(c.h-1, y+c.r); v++ {
					for u := max(0, x-c.r); u <= min(c.w-1, x+c.r); u++ {
						sum += float64(p.V[v*c.w+u])
						n++
					}
				}
				if d := math.Abs(float64(got.V[y*c.w+x]) - sum/float64(n)); d > 1e-5 {
					t.Fatalf("%dx%d r=%d at (%d,%d): %v, want %v", c.w, c.h, c.r, x, y, got.V[y*c.w+x], sum/float64(n))
				}
			}
		}
	}
}

// Resize keeps a plane of its own size, keeps a constant constant, and
// interpolates between samples.
func TestResize(t *testing.T) {
	p := random(rand.New(rand.NewPCG(3, 4)), 5, 4)
	same := Resize(p, 5, 4)
	for i, v := range p.V {
		if same.V[i] != v {
			t.Fatalf("same-size resize changed value %d: %v → %v", i, v, same.V[i])
		}
	}
	flat := New(3, 3)
	for i := range flat.V {
		flat.V[i] = 0.25
	}
	for _, v := range Resize(flat, 8, 5).V {
		if math.Abs(float64(v)-0.25) > 1e-6 {
			t.Fatalf("constant plane resized to %v", v)
		}
	}
	ramp := Plane{W: 2, H: 1, V: []float32{0, 1}}
	if got := Resize(ramp, 4, 1).V; got[0] != 0 || got[3] != 1 || got[1] <= 0 || got[2] <= got[1] || got[2] >= 1 {
		t.Errorf("2→4 ramp %v", got)
	}
}

func TestChannels(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 2, 1))
	img.SetRGBA(1, 0, color.RGBA{255, 51, 0, 255})
	c := Channels(img)
	if c[0].W != 2 || c[0].H != 1 || c[0].V[1] != 1 || c[1].V[1] != 0.2 || c[2].V[1] != 0 || c[0].V[0] != 0 {
		t.Errorf("channels %v", c)
	}
}
