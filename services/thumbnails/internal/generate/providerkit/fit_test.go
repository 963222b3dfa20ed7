package providerkit_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"

	"hookline.dev/services/thumbnails/internal/generate/providerfake"
	"hookline.dev/services/thumbnails/internal/generate/providerkit"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

func TestFitSizes(t *testing.T) {
	tests := []struct {
		name   string
		src    []byte
		aspect thumbnail.Aspect
	}{
		{"openai landscape PNG", providerfake.PNG(1536, 1024, "a"), thumbnail.Landscape},
		{"openai portrait JPEG", providerfake.JPEG(1024, 1536, "b"), thumbnail.Portrait},
		{"gemini landscape PNG", providerfake.PNG(1344, 768, "c"), thumbnail.Landscape},
		{"square into portrait", providerfake.JPEG(1024, 1024, "d"), thumbnail.Portrait},
		{"small upscaled", providerfake.PNG(320, 180, "e"), thumbnail.Landscape},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := providerkit.Fit(tt.src, tt.aspect)
			if err != nil {
				t.Fatal(err)
			}
			w, h := tt.aspect.Size()
			if res.Width != w || res.Height != h || res.ContentType != "image/jpeg" {
				t.Fatalf("got %dx%d %s, want %dx%d image/jpeg", res.Width, res.Height, res.ContentType, w, h)
			}
			img, err := jpeg.Decode(bytes.NewReader(res.Data))
			if err != nil {
				t.Fatalf("result is not a JPEG: %v", err)
			}
			if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
				t.Fatalf("decoded %v, want %dx%d", b, w, h)
			}
		})
	}
}

// TestFitCoverCrop checks that the crop keeps the centre: a square with
// red top and bottom bands outside the centred 16:9 window and green
// inside must come out all green.
func TestFitCoverCrop(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 1000, 1000))
	red, green := color.RGBA{255, 0, 0, 255}, color.RGBA{0, 255, 0, 255}
	// The 16:9 window of a 1000×1000 square is rows 219..781.
	for y := range 1000 {
		for x := range 1000 {
			c := green
			if y < 210 || y >= 790 {
				c = red
			}
			src.SetRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, src); err != nil {
		t.Fatal(err)
	}
	res, err := providerkit.Fit(buf.Bytes(), thumbnail.Landscape)
	if err != nil {
		t.Fatal(err)
	}
	img, err := jpeg.Decode(bytes.NewReader(res.Data))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []image.Point{{0, 0}, {1279, 0}, {640, 360}, {0, 719}, {1279, 719}} {
		r, g, _, _ := img.At(p.X, p.Y).RGBA()
		if r>>8 > 60 || g>>8 < 200 {
			t.Errorf("pixel %v is %d,%d: the crop kept a band outside the centre", p, r>>8, g>>8)
		}
	}
}

func TestFitRefusesBadPictures(t *testing.T) {
	var gifData bytes.Buffer
	if err := gif.Encode(&gifData, image.NewPaletted(image.Rect(0, 0, 4, 4), color.Palette{color.Black}), nil); err != nil {
		t.Fatal(err)
	}
	good := providerfake.PNG(64, 64, "x")
	tests := map[string][]byte{
		"empty":     nil,
		"text":      []byte("<html>rate limited</html>"),
		"gif":       gifData.Bytes(),
		"truncated": good[:len(good)/2],
		"huge":      hugePNGHeader(100_000, 100_000),
	}
	for name, data := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := providerkit.Fit(data, thumbnail.Landscape)
			if !errors.Is(err, providerkit.ErrBadPicture) {
				t.Fatalf("err = %v, want ErrBadPicture", err)
			}
		})
	}
}

// hugePNGHeader is a PNG signature and IHDR claiming w×h, with no pixels:
// what a hostile answer looks like.
func hugePNGHeader(w, h uint32) []byte {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8-bit RGBA
	chunk := append([]byte("IHDR"), ihdr...)
	out := []byte("\x89PNG\r\n\x1a\n")
	out = binary.BigEndian.AppendUint32(out, uint32(len(ihdr)))
	out = append(out, chunk...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(chunk))
}

func BenchmarkFit(b *testing.B) {
	src := providerfake.JPEG(1536, 1024, "bench")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := providerkit.Fit(src, thumbnail.Landscape); err != nil {
			b.Fatal(err)
		}
	}
}
