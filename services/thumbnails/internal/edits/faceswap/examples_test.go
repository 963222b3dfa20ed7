package faceswap

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"

	"hookline.dev/pkg/testkit"
)

// TestWriteExamples writes the examples reviewers look at, from the
// evaluation photos and pigo's face photo; run with
// HOOKLINE_WRITE_EXAMPLES=1. Each is a strip: the target, the source and
// the result, the two faces enlarged side by side under it.
//
//   - face-swap.jpg: the face photo's face on the astronaut (she smiles
//     with her teeth showing; he does not, and her open mouth is kept);
//   - face-swap-reverse.jpg: the astronaut's face on the face photo;
//   - face-swap-camera.jpg: the face photo's face on the camera man, whose
//     profile the frontal face is folded onto;
//   - face-swap-tilted.jpg: the face photo's face on the astronaut
//     mirrored, tilted by 8° and enlarged.
func TestWriteExamples(t *testing.T) {
	dir := testkit.ExamplesDir(t, "edits")
	all := scenes(t)
	for file, name := range map[string]string{
		"face-swap.jpg":         "astronaut ← face photo",
		"face-swap-reverse.jpg": "face photo ← astronaut",
		"face-swap-camera.jpg":  "camera man ← face photo",
		"face-swap-tilted.jpg":  "tilted astronaut ← face photo",
	} {
		s := all[name]
		got := swap(t, s.target, s.tFace, s.source, s.sFace)
		writeJPEG(t, filepath.Join(dir, file), strip(s, got), 85)
	}
}

// strip lays out target, source and result at 360 px high, and under
// them the target's face and the result's, cropped around the target's
// landmarks and enlarged to 360 px high.
func strip(s scene, got *image.NRGBA) *image.NRGBA {
	const h = 360
	fit := func(img *image.NRGBA, r image.Rectangle, h int) *image.NRGBA {
		k := float64(h) / float64(r.Dy())
		w := int(float64(r.Dx()) * k)
		c := complex(float64(img.Rect.Dx())/2, float64(img.Rect.Dy())/2) - complex(float64(r.Min.X+r.Max.X)/2, float64(r.Min.Y+r.Max.Y)/2)
		return compose(img, w, h, placement{scale: k, at: complex(float64(w)/2, float64(h)/2) + complex(k, 0)*c}, [3]float64{1, 1, 1},
			func(int, int) color.NRGBA { return color.NRGBA{24, 24, 28, 255} })
	}
	top := []*image.NRGBA{fit(s.target, s.target.Rect, h), fit(s.source, s.source.Rect, h), fit(got, got.Rect, h)}
	face := s.tFace.Landmarks.Bounds()
	m := face.Dx() / 4
	face = image.Rect(face.Min.X-m, face.Min.Y-2*m, face.Max.X+m, face.Max.Y+m)
	bottom := []*image.NRGBA{fit(s.target, face, h), fit(got, face, h)}
	width := 0
	for _, p := range top {
		width += p.Rect.Dx()
	}
	out := image.NewNRGBA(image.Rect(0, 0, width, 2*h))
	draw.Draw(out, out.Rect, image.NewUniform(color.NRGBA{24, 24, 28, 255}), image.Point{}, draw.Src)
	x := 0
	for _, p := range top {
		draw.Draw(out, p.Rect.Add(image.Pt(x, 0)), p, image.Point{}, draw.Src)
		x += p.Rect.Dx()
	}
	x = (width - bottom[0].Rect.Dx() - bottom[1].Rect.Dx()) / 2
	for _, p := range bottom {
		draw.Draw(out, p.Rect.Add(image.Pt(x, h)), p, image.Point{}, draw.Src)
		x += p.Rect.Dx()
	}
	return out
}

func writeJPEG(t *testing.T, path string, img image.Image, quality int) {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > 200<<10 {
		t.Errorf("%s is %d KB", path, buf.Len()>>10)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil { //nolint:gosec // G306: examples are for reading
		t.Fatal(err)
	}
}
