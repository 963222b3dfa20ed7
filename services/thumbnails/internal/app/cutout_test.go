package app_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	_ "image/png" // background-remove answers a PNG
	"testing"

	"hookline.dev/pkg/testkit"
	"hookline.dev/pkg/vision/dlib"
	"hookline.dev/services/thumbnails/internal/edits/matte"
)

// Issue 22: background-remove and background-replace of the astronaut
// through HTTP keep her neck and collar (the suit's dark turtleneck, close
// to nothing in colour the wall has, was cut off the head): over a strip
// under her chin as wide as her mouth and 0.3 face heights deep, the
// cut-out's alpha is at least 0.8, and the replaced picture keeps the
// source's colours there.
func TestBackgroundEditsKeepTheAstronautsNeck(t *testing.T) {
	h := newHarness(t)
	org := h.openAccount("pro")
	src := testkit.EvalPhoto(t, "astronaut.png")
	u := h.PutObject(fmt.Sprintf("orgs/%s/uploads/astronaut.png", org), "image/png", testkit.EvalPhotoBytes(t, "astronaut.png"))
	det, err := dlib.Open("")
	if err != nil {
		t.Fatal(err)
	}
	faces := det.Detect(src)
	if len(faces) == 0 || faces[0].Landmarks == nil {
		t.Fatal("no face on the astronaut")
	}
	band := matte.NeckBand(faces[0].Landmarks, 0.3)

	var out struct{ ImageURL string }
	h.Must(201, "POST", "/thumbnails/edit/background-remove", org, map[string]any{"imageUrl": u}).Into(t, &out)
	removed := fetchImage(t, h, out.ImageURL)
	low := 255.0
	for y := band.Min.Y; y < band.Max.Y; y++ {
		for x := band.Min.X; x < band.Max.X; x++ {
			_, _, _, a := removed.At(x, y).RGBA()
			low = min(low, float64(a>>8))
		}
	}
	if low < 0.8*255 {
		t.Errorf("background-remove: neck band %v alpha down to %.2f", band, low/255)
	}

	h.Must(201, "POST", "/thumbnails/edit/background-replace", org, map[string]any{"imageUrl": u, "backgroundPrompt": "a sunset beach"}).Into(t, &out)
	replaced := fetchImage(t, h, out.ImageURL)
	worst := 0.0
	for y := band.Min.Y; y < band.Max.Y; y++ {
		for x := band.Min.X; x < band.Max.X; x++ {
			worst = max(worst, channelDiff(replaced.At(x, y), src.At(x, y)))
		}
	}
	// At alpha ≥ 0.8 at most a fifth of the new background shows, plus
	// the light wrap and JPEG's error.
	if worst > 0.25*255 {
		t.Errorf("background-replace: neck band differs from the source by up to %.0f levels", worst)
	}
}

func fetchImage(t *testing.T, h *harness, u string) image.Image {
	t.Helper()
	st, b := h.Fetch(u)
	if st != 200 {
		t.Fatalf("GET %s: %d", u, st)
	}
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func channelDiff(a, b color.Color) float64 {
	ar, ag, ab, _ := a.RGBA()
	br, bg, bb, _ := b.RGBA()
	d := 0.0
	for _, p := range [3][2]uint32{{ar, br}, {ag, bg}, {ab, bb}} {
		d = max(d, abs(float64(p[0]>>8)-float64(p[1]>>8)))
	}
	return d
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
