package app_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"testing"

	"hookline.dev/pkg/media/vision/dlib"
	"hookline.dev/pkg/testkit"
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

// discPicture is issue 33's picture: a disc of fine texture in every hue,
// centred at (cx, cy) with radius r, on a flat blue 640×360 frame, as a
// PNG, with the disc's mask.
func discPicture(t *testing.T, cx, cy, r float64) ([]byte, *image.RGBA, []bool) {
	t.Helper()
	const w, h = 640, 360
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	mask := make([]bool, w*h)
	for y := range h {
		for x := range w {
			c := color.RGBA{30, 90, 200, 255}
			if math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy) <= r {
				c = color.RGBA{uint8(40 + x%50), uint8(200 - y%60), uint8((x * y) % 256), 255} //nolint:gosec // G115: small
				mask[y*w+x] = true
			}
			img.SetRGBA(x, y, c)
		}
	}
	return pngOf(t, img), img, mask
}

func pngOf(t *testing.T, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pngAlpha says a PNG file's colour type carries an alpha channel (grey
// with alpha, 4, or RGBA, 6: the byte after the bit depth in IHDR).
func pngAlpha(b []byte) bool {
	return len(b) > 25 && bytes.HasPrefix(b, []byte("\x89PNG")) && (b[25] == 4 || b[25] == 6)
}

// Issue 33: a plain subject on a plain backdrop is cut out through HTTP:
// background-remove answers a PNG with an alpha channel whose subject is
// the disc (IoU ≥ 0.9), background-replace puts a new background behind
// the disc and keeps the disc. The disc off the middle came back as the
// picture unchanged, an RGB PNG, with applied ["background-remove"].
func TestBackgroundEditsCutAPlainSubject(t *testing.T) {
	h := newHarness(t)
	org := h.openAccount("pro")
	for name, d := range map[string][3]float64{"middle": {320, 180, 120}, "off the middle": {200, 150, 100}} {
		data, src, mask := discPicture(t, d[0], d[1], d[2])
		u := h.PutObject(fmt.Sprintf("orgs/%s/uploads/disc-%.0f-%.0f.png", org, d[0], d[1]), "image/png", data)

		var out struct {
			ImageURL    string
			Applied     []string
			CreditsCost int
		}
		h.Must(201, "POST", "/thumbnails/edit/background-remove", org, map[string]any{"imageUrl": u}).Into(t, &out)
		if len(out.Applied) != 1 || out.Applied[0] != "background-remove" || out.CreditsCost != 0 {
			t.Fatalf("%s: background-remove: %+v", name, out)
		}
		st, file := h.Fetch(out.ImageURL)
		if st != 200 || !pngAlpha(file) {
			t.Fatalf("%s: background-remove: %d, a PNG with an alpha channel: %v", name, st, pngAlpha(file))
		}
		cut := fetchImage(t, h, out.ImageURL)
		w := src.Rect.Dx()
		inter, union := 0, 0
		for i, m := range mask {
			_, _, _, a := cut.At(i%w, i/w).RGBA()
			if a >= 0x8000 && m {
				inter++
			}
			if a >= 0x8000 || m {
				union++
			}
		}
		if iou := float64(inter) / float64(union); iou < 0.9 {
			t.Errorf("%s: background-remove: IoU %.3f with the disc < 0.9", name, iou)
		} else {
			t.Logf("%s: background-remove: IoU %.4f", name, iou)
		}

		h.Must(201, "POST", "/thumbnails/edit/background-replace", org, map[string]any{"imageUrl": u, "backgroundPrompt": "red"}).Into(t, &out)
		if out.CreditsCost != 1 {
			t.Fatalf("%s: background-replace: %+v", name, out)
		}
		replaced := fetchImage(t, h, out.ImageURL)
		// Away from the outline: the background is no longer the blue,
		// the disc is itself (up to JPEG's error on its fine texture).
		var bgSame, bgCount, discDiff, discCount float64
		for i := range mask {
			x, y := i%w, i/w
			switch r := math.Hypot(float64(x)+0.5-d[0], float64(y)+0.5-d[1]); {
			case r > d[2]+8:
				bgCount++
				if channelDiff(replaced.At(x, y), src.At(x, y)) < 40 {
					bgSame++
				}
			case r < d[2]-8:
				discCount++
				discDiff += channelDiff(replaced.At(x, y), src.At(x, y))
			}
		}
		if bgSame > 0.02*bgCount {
			t.Errorf("%s: background-replace: %.1f%% of the background is still the blue", name, 100*bgSame/bgCount)
		}
		if m := discDiff / discCount; m > 12 {
			t.Errorf("%s: background-replace: the disc differs from the source by %.1f levels on average", name, m)
		} else {
			t.Logf("%s: background-replace: the disc within %.1f levels on average", name, m)
		}
	}
	h.settledInBilling(org)
	if b := h.balance(org); b != proCredits-2 {
		t.Fatalf("balance %d, want %d: background-replace paid, background-remove free", b, proCredits-2)
	}
}

// Issue 33: a picture with no subject to cut out (one flat colour) is
// 400 naming imageUrl from both background edits, never the picture
// unchanged as a success; background-replace's reservation is refunded
// and nothing is stored.
func TestBackgroundEditsWithoutASubject(t *testing.T) {
	h := newHarness(t)
	org := h.openAccount("pro")
	flat := image.NewRGBA(image.Rect(0, 0, 640, 360))
	for i := range flat.Pix {
		flat.Pix[i] = [4]uint8{120, 130, 140, 255}[i%4]
	}
	u := h.PutObject(fmt.Sprintf("orgs/%s/uploads/flat.png", org), "image/png", pngOf(t, flat))
	before := h.balance(org)
	for _, c := range []struct {
		path string
		body map[string]any
	}{
		{"/thumbnails/edit/background-remove", map[string]any{"imageUrl": u}},
		{"/thumbnails/edit/background-replace", map[string]any{"imageUrl": u, "backgroundPrompt": "a sunset beach"}},
	} {
		r := h.Must(400, "POST", c.path, org, c.body)
		if r.Code != "invalid_request" || r.Field("imageUrl") == "" {
			t.Errorf("%s: %s", c.path, r.Raw)
		}
	}
	h.settledInBilling(org)
	if b := h.balance(org); b != before {
		t.Fatalf("balance %d, want %d: nothing was done, nothing is charged", b, before)
	}
	// The cut runs after background-replace's credit is reserved (it is
	// the run's costliest step): its reservation is refunded.
	refunded := 0
	for _, it := range h.usage(org) {
		switch {
		case it.Operation == "thumbnails.background-replace" && it.Status == "refunded":
			refunded++
		default:
			t.Errorf("usage item %+v", it)
		}
	}
	if refunded != 1 {
		t.Errorf("%d refunded background-replace reservations, want 1", refunded)
	}
	var list []thumb
	h.Must(200, "GET", "/thumbnails?kind=edit", org, nil).Into(t, &list)
	if len(list) != 0 {
		t.Fatalf("%d edits stored", len(list))
	}
}
