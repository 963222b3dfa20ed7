package faceswap

import (
	"image"
	"math"
	"testing"
)

// The chamfer distance is exact along the axes and within a few percent
// diagonally, and 0 outside.
func TestInsideDistance(t *testing.T) {
	const w, h = 41, 41
	inside := make([]bool, w*h)
	for y := 5; y < 36; y++ {
		for x := 5; x < 36; x++ {
			inside[y*w+x] = true
		}
	}
	d := insideDistance(inside, w, h)
	for _, c := range []struct {
		x, y int
		want float64
	}{{20, 20, 16}, {5, 20, 1}, {10, 20, 6}, {20, 35, 1}, {2, 2, 0}, {40, 20, 0}} {
		if got := float64(d[c.y*w+c.x]) / 3; math.Abs(got-c.want) > 0.05*c.want+1e-9 {
			t.Errorf("distance at (%d,%d) = %.2f, want %.0f", c.x, c.y, got, c.want)
		}
	}
}

// The mask of a real face is 0 outside the target's hull, 1 in the
// middle of the face, 0 inside the target's open mouth, and cut to the
// picture.
func TestFaceMaskOnTheAstronaut(t *testing.T) {
	s := scenes(t)["astronaut ← face photo"]
	l := s.tFace.Landmarks
	fw := l.FaceWidth()
	al := align(l, s.sFace.Landmarks)
	tHull := hullOf(l.Hull(maskForehead))
	work := tHull.bounds().Inset(-1)
	pts, ok := al.mesh.Grid(work)
	mouth := hullOf(l[60:68])
	m := faceMask(tHull, mouth, hullOf(s.sFace.Landmarks.Hull(maskForehead)), s.source.Rect, pts, ok, work, s.target.Rect, fw)
	at := func(z complex128) float32 {
		x, y := int(real(z))-m.rect.Min.X, int(imag(z))-m.rect.Min.Y
		if x < 0 || y < 0 || x >= m.rect.Dx() || y >= m.rect.Dy() {
			return 0
		}
		return m.weight[y*m.rect.Dx()+x]
	}
	for _, i := range []int{28, 30, 37, 44} { // nose, eyes
		if v := at(centre(l[i])); v != 1 {
			t.Errorf("weight %.3f at landmark %d", v, i)
		}
	}
	mx, my := l.Centroid(60, 68)
	if v := at(complex(mx, my)); v != 0 {
		t.Errorf("weight %.3f inside the open mouth", v)
	}
	for y := m.rect.Min.Y; y < m.rect.Max.Y; y++ {
		for x := m.rect.Min.X; x < m.rect.Max.X; x++ {
			z := complex(float64(x)+0.5, float64(y)+0.5)
			if !tHull.holds(z) && at(z) != 0 {
				t.Fatalf("weight %.3f at (%d,%d), outside the hull", at(z), x, y)
			}
		}
	}
	clipped := faceMask(tHull, mouth, hullOf(s.sFace.Landmarks.Hull(maskForehead)), s.source.Rect, pts, ok, work,
		image.Rect(0, 0, l[30].X, 512), fw)
	if clipped.rect.Max.X != l[30].X || len(clipped.weight) != clipped.rect.Dx()*clipped.rect.Dy() {
		t.Errorf("mask %v (%d weights) clipped at x=%d", clipped.rect, len(clipped.weight), l[30].X)
	}
}
