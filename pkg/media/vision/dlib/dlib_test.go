package dlib_test

import (
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/media/vision/dlib"
	"hookline.dev/pkg/media/vision/dlib/dlibtest"
	"hookline.dev/pkg/testkit"
)

func open(t testing.TB) *dlib.Model { return dlibtest.Model(t) }

// TestEvalPhotos runs the detector on every evaluation photograph: the two
// portraits (astronaut, camera man) have one face with landmarks that lie
// on it; the cat, the cup, the plant and the rocket have none.
func TestEvalPhotos(t *testing.T) {
	m := open(t)
	want := map[string]int{"astronaut.png": 1, "camera.png": 1}
	out := testkit.ExamplesDirIfAsked(t, "vision")
	for _, name := range testkit.EvalPhotos(t) {
		t.Run(name, func(t *testing.T) {
			img := testkit.EvalPhoto(t, name)
			faces := m.Detect(img)
			if len(faces) != want[name] {
				t.Fatalf("%d faces, want %d: %+v", len(faces), want[name], faces)
			}
			for _, f := range faces {
				if f.Landmarks == nil {
					t.Fatal("a face without landmarks")
				}
				checkPlausible(t, f)
			}
			if out != "" && len(faces) > 0 {
				writeMarked(t, filepath.Join(out, "landmarks-"+name[:len(name)-len(filepath.Ext(name))]+".png"), img, faces)
			}
		})
	}
}

// checkPlausible checks the geometry a real face has: the landmarks' box
// overlaps the detection, the eyes lie above the mouth, the right eye
// (subject's) left of the left eye, the chin lowest.
func checkPlausible(t *testing.T, f vision.Face) {
	t.Helper()
	l := f.Landmarks
	if got := l.Bounds().Intersect(f.Rect); got.Dx()*got.Dy() < f.Rect.Dx()*f.Rect.Dy()/2 {
		t.Errorf("landmarks %v hardly overlap the face %v", l.Bounds(), f.Rect)
	}
	rx, ry := l.Centroid(vision.RightEyeStart, vision.RightEyeEnd)
	lx, ly := l.Centroid(vision.LeftEyeStart, vision.LeftEyeEnd)
	_, my := l.Centroid(vision.OuterLipsStart, vision.OuterLipsEnd)
	if rx >= lx || ry >= my || ly >= my || float64(l[8].Y) <= my {
		t.Errorf("implausible landmarks: eyes (%.0f,%.0f) (%.0f,%.0f), mouth y %.0f, chin %v", rx, ry, lx, ly, my, l[8])
	}
	if o := l.MouthOpening(); o < 0 || o > 0.5 {
		t.Errorf("mouth opening %.2f", o)
	}
}

// TestNoFaceInFlatPictures: nothing is found in flat, gradient or tiny
// pictures.
func TestNoFaceInFlatPictures(t *testing.T) {
	m := open(t)
	flat := image.NewRGBA(image.Rect(0, 0, 640, 360))
	draw.Draw(flat, flat.Bounds(), image.NewUniform(color.RGBA{120, 120, 120, 255}), image.Point{}, draw.Src)
	grad := image.NewGray(image.Rect(0, 0, 300, 300))
	for y := range 300 {
		for x := range 300 {
			grad.Pix[y*300+x] = uint8((x + y) * 255 / 600)
		}
	}
	for _, img := range []image.Image{flat, grad, image.NewRGBA(image.Rect(0, 0, 8, 8))} {
		if faces := m.Detect(img); len(faces) != 0 {
			t.Errorf("%v: found %d faces", img.Bounds(), len(faces))
		}
	}
}

// TestLandmarksInOffsetImage: a sub-image keeps absolute coordinates.
func TestLandmarksInOffsetImage(t *testing.T) {
	m := open(t)
	img := testkit.EvalPhoto(t, "astronaut.png")
	whole := m.Detect(img)
	if len(whole) != 1 {
		t.Fatalf("%d faces", len(whole))
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Bounds(), img, image.Point{}, draw.Src)
	sub := rgba.SubImage(image.Rect(100, 20, 400, 400))
	faces := m.Detect(sub)
	if len(faces) != 1 {
		t.Fatalf("%d faces in the sub-image", len(faces))
	}
	for i := range whole[0].Landmarks {
		d := whole[0].Landmarks[i].Sub(faces[0].Landmarks[i])
		if d.X*d.X+d.Y*d.Y > 9 {
			t.Fatalf("point %d: %v whole, %v in the sub-image", i, whole[0].Landmarks[i], faces[0].Landmarks[i])
		}
	}
}

func writeMarked(t *testing.T, path string, img image.Image, faces []vision.Face) {
	t.Helper()
	out := image.NewRGBA(img.Bounds())
	draw.Draw(out, out.Bounds(), img, img.Bounds().Min, draw.Src)
	green := color.RGBA{0, 255, 0, 255}
	for _, f := range faces {
		r := f.Rect
		for x := r.Min.X; x < r.Max.X; x++ {
			out.Set(x, r.Min.Y, green)
			out.Set(x, r.Max.Y-1, green)
		}
		for y := r.Min.Y; y < r.Max.Y; y++ {
			out.Set(r.Min.X, y, green)
			out.Set(r.Max.X-1, y, green)
		}
		for _, p := range f.Landmarks {
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					out.Set(p.X+dx, p.Y+dy, color.RGBA{255, 0, 0, 255})
				}
			}
		}
		for _, p := range f.Landmarks.Hull(0.35) {
			out.Set(p.X, p.Y, color.RGBA{255, 255, 0, 255})
		}
	}
	fh, err := os.Create(path) //nolint:gosec // G304: examples dir
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = fh.Close() }()
	if err := png.Encode(fh, out); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkDetect512(b *testing.B) {
	m := open(b)
	img := testkit.EvalPhoto(b, "astronaut.png")
	for b.Loop() {
		if len(m.Detect(img)) != 1 {
			b.Fatal("no face")
		}
	}
}

func BenchmarkLandmarks(b *testing.B) {
	m := open(b)
	img := testkit.EvalPhoto(b, "astronaut.png")
	f := m.Detect(img)[0]
	for b.Loop() {
		if m.Landmarks(img, f.Rect) == nil {
			b.Fatal("no landmarks")
		}
	}
}

// The detector comparison of pkg/media/vision's README: pigo against dlib on a
// tracking-sized grey frame (clips samples 480 px wide) and on the 512²
// astronaut photo.
func BenchmarkTrackFrame480(b *testing.B) {
	img := testkit.EvalPhoto(b, "astronaut.png")
	frame := image.NewGray(image.Rect(0, 0, 480, 270))
	draw.Draw(frame, image.Rect(104, 0, 374, 270), img, image.Pt(60, 40), draw.Src)
	p, err := vision.New()
	if err != nil {
		b.Fatal(err)
	}
	m := open(b)
	b.Run("pigo", func(b *testing.B) {
		for b.Loop() {
			p.Detect(frame)
		}
	})
	b.Run("dlib", func(b *testing.B) {
		for b.Loop() {
			m.Detect(frame)
		}
	})
	// A frame without a face: dlib looks twice (upsampled the second time).
	empty := image.NewGray(image.Rect(0, 0, 480, 270))
	draw.Draw(empty, empty.Bounds(), testkit.EvalPhoto(b, "rocket.jpg"), image.Point{}, draw.Src)
	b.Run("pigo-noface", func(b *testing.B) {
		for b.Loop() {
			p.Detect(empty)
		}
	})
	b.Run("dlib-noface", func(b *testing.B) {
		for b.Loop() {
			m.Detect(empty)
		}
	})
}
