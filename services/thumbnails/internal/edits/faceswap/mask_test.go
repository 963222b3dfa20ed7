package faceswap

import (
	"image"
	"testing"
)

// The mask is whole in the middle of the face, half-way at the ellipse's
// edge, falls off monotonically outwards and is exactly zero at the box's
// corners (hair, ears and background stay the target's).
func TestFaceMaskIsAFeatheredEllipse(t *testing.T) {
	box := image.Rect(100, 80, 300, 280)
	m := faceMask(box, image.Rect(0, 0, 400, 400), nil)
	at := func(x, y float64) float32 {
		px, py := int(x)-m.rect.Min.X, int(y)-m.rect.Min.Y
		if px < 0 || py < 0 || px >= m.rect.Dx() || py >= m.rect.Dy() {
			return 0
		}
		return m.weight[py*m.rect.Dx()+px]
	}
	cx, cy := 100+maskCentreX*200, 80+maskCentreY*200
	if v := at(cx, cy); v < 0.999 {
		t.Errorf("weight %.3f at the centre", v)
	}
	// On the ellipse the hard mask's edge is blurred to about a half.
	for _, p := range [][2]float64{{cx + maskRadiusX*200, cy}, {cx, cy - maskRadiusY*200}, {cx, cy + maskRadiusY*200 - 1}} {
		if v := at(p[0], p[1]); v < 0.35 || v > 0.65 {
			t.Errorf("weight %.3f on the ellipse at %v", v, p)
		}
	}
	for _, p := range []image.Point{box.Min, {box.Max.X - 1, box.Min.Y}, {box.Min.X, box.Max.Y - 1}, box.Max.Sub(image.Pt(1, 1))} {
		if v := at(float64(p.X), float64(p.Y)); v != 0 {
			t.Errorf("weight %g at the box corner %v", v, p)
		}
	}
	// Along a ray from the centre the weight never rises.
	prev := float32(2)
	for x := int(cx); x < m.rect.Max.X; x++ {
		v := at(float64(x), cy)
		if v > prev+1e-6 {
			t.Fatalf("weight rises from %.4f to %.4f at x=%d", prev, v, x)
		}
		prev = v
	}
}

// A face at the picture's edge gives a mask clipped to the picture.
func TestFaceMaskIsClippedToThePicture(t *testing.T) {
	bounds := image.Rect(0, 0, 200, 150)
	m := faceMask(image.Rect(120, 40, 240, 160), bounds, nil)
	if !m.rect.In(bounds) || m.rect.Empty() || len(m.weight) != m.rect.Dx()*m.rect.Dy() {
		t.Errorf("mask %v (%d weights) for a picture %v", m.rect, len(m.weight), bounds)
	}
}
