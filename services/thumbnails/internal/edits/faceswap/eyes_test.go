package faceswap

import (
	"image"
	"image/color"
	"math"
	"testing"
)

// The pupils of the face photo, measured by hand on a 6× enlargement.
var photoPupils = [2]complex128{complex(114.2, 184.2), complex(205, 183)}

func TestFindEyesOnThePhoto(t *testing.T) {
	p := photo(t)
	f := detectOne(t, p)
	e := findEyes(p, f.Rect)
	if !e.found {
		t.Fatal("no eyes found on the face photo")
	}
	box := f.Rect
	midY := float64(box.Min.Y+box.Max.Y) / 2
	for _, z := range []complex128{e.left, e.right} {
		if !image.Pt(int(real(z)), int(imag(z))).In(box) || imag(z) >= midY {
			t.Errorf("eye at %.1f is not in the upper half of the face %v", z, box)
		}
	}
	if real(e.left) >= real(e.right) {
		t.Errorf("left eye %.1f is not left of the right one %.1f", e.left, e.right)
	}
	for i, got := range []complex128{e.left, e.right} {
		if d := cmplxAbs(got - photoPupils[i]); d > 0.02*float64(box.Dx()) {
			t.Errorf("eye %d at %.1f, %.1f px from the pupil at %.1f", i, got, d, photoPupils[i])
		}
	}
}

// Tilted, mirrored, scaled and tinted copies of the photo: the eyes found
// are the pupils' known positions in the copy, to within 3% of the face
// box, so the eye line's angle follows the tilt.
func TestFindEyesFollowsTheFace(t *testing.T) {
	p := photo(t)
	grey := func(int, int) color.NRGBA { return color.NRGBA{90, 90, 100, 255} }
	for _, c := range []struct {
		name  string
		place placement
		tint  [3]float64
	}{
		{"small, tilted left", placement{scale: 0.5, angle: -0.15}, [3]float64{1, 1, 1}},
		{"mirrored, tilted right, blue", placement{mirror: true, scale: 0.7, angle: 0.15}, [3]float64{0.8, 0.95, 1.25}},
		{"large, dim", placement{scale: 1.6, angle: 0.07}, [3]float64{0.6, 0.6, 0.6}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, h := int(340*c.place.scale)+40, int(420*c.place.scale)+40
			c.place.at = complex(float64(w)/2, float64(h)/2)
			img := compose(p, w, h, c.place, c.tint, grey)
			f := detectOne(t, img)
			e := findEyes(img, f.Rect)
			if !e.found {
				t.Fatal("eyes not found")
			}
			toScene := c.place.toScene(p.Rect.Dx(), p.Rect.Dy())
			left, right := toScene(photoPupils[0]), toScene(photoPupils[1])
			if real(left) > real(right) {
				left, right = right, left
			}
			tol := 0.03 * float64(f.Rect.Dx())
			if d := math.Max(cmplxAbs(e.left-left), cmplxAbs(e.right-right)); d > tol {
				t.Errorf("eyes at %.1f and %.1f, want %.1f and %.1f (off by %.1f px, tolerance %.1f)", e.left, e.right, left, right, d, tol)
			}
		})
	}
}

// Boxes without eyes fall back to the usual positions instead of
// inventing a tilted or squeezed pair.
func TestFindEyesFallsBackWithoutEyes(t *testing.T) {
	box := image.Rect(20, 30, 220, 230)
	for name, paint := range map[string]func(x, y int) color.NRGBA{
		"flat":     func(int, int) color.NRGBA { return color.NRGBA{180, 140, 120, 255} },
		"gradient": func(x, y int) color.NRGBA { return color.NRGBA{uint8(x), uint8(y), 100, 255} },
		"noise": func(x, y int) color.NRGBA {
			v := uint8(120 + (x*7919+y*104729)%7)
			return color.NRGBA{v, v, v, 255}
		},
	} {
		img := image.NewNRGBA(image.Rect(0, 0, 240, 260))
		for y := range 260 {
			for x := range 240 {
				img.SetNRGBA(x, y, paint(x, y))
			}
		}
		e := findEyes(img, box)
		if e.found {
			t.Errorf("%s: found eyes at %.1f and %.1f", name, e.left, e.right)
		}
		want := complex(float64(box.Min.X)+eyeLeftX*float64(box.Dx()), float64(box.Min.Y)+eyeY*float64(box.Dy()))
		if cmplxAbs(e.left-want) > 0.5 {
			t.Errorf("%s: fallback left eye %.1f, want %.1f", name, e.left, want)
		}
	}
}

func TestAlignMapsEyesOntoEyes(t *testing.T) {
	tBox, sBox := image.Rect(100, 100, 300, 300), image.Rect(10, 20, 110, 120)
	tEyes := eyePair{left: complex(162, 184), right: complex(238, 180), found: true}
	sEyes := eyePair{left: complex(41, 62), right: complex(79, 63), found: true}
	s := align(tEyes, tBox, sEyes, sBox)
	if d := cmplxAbs(s.apply(sEyes.left)-tEyes.left) + cmplxAbs(s.apply(sEyes.right)-tEyes.right); d > 1e-9 {
		t.Errorf("eyes land %.3g px from the target's", d)
	}
	// An implausible pair (a blob on the cheek) falls back to the boxes.
	sEyes.right = complex(79, 95)
	s = align(tEyes, tBox, sEyes, sBox)
	if c := s.apply(rectCentre(sBox)); cmplxAbs(c-rectCentre(tBox)) > 1e-9 || s.a != 2 {
		t.Errorf("box fallback maps the source centre to %.1f with factor %v", c, s.a)
	}
	// So does a face whose eyes were not found.
	sEyes = eyePair{left: sEyes.left, right: complex(79, 63)}
	if s := align(tEyes, tBox, sEyes, sBox); s.a != 2 {
		t.Errorf("without source eyes the factor is %v, want the boxes' 2", s.a)
	}
}
