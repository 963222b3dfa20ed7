package openai_test

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/openai"
	"hookline.dev/services/thumbnails/internal/generate/providerfake"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// safeBand reads the margin the prompt's safe-area line asks for.
var safeBand = regexp.MustCompile(`losing (\d+) px at the top and \d+ px at the bottom; .* at least (\d+) px further in`)

// headlineModel draws as an obedient image model: a headline bar at the
// very top of the canvas, pushed down into the safe area when the prompt
// names one.
func headlineModel(w, h int, prompt string) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), &image.Uniform{color.RGBA{20, 30, 60, 255}}, image.Point{}, draw.Src)
	top := 16
	if m := safeBand.FindStringSubmatch(prompt); m != nil {
		lost, _ := strconv.Atoi(m[1])
		margin, _ := strconv.Atoi(m[2])
		top = lost + margin
	}
	// A headline: a yellow bar with dark "letters" cut into it, 120 px tall.
	draw.Draw(img, image.Rect(64, top, w-64, top+120), &image.Uniform{color.RGBA{255, 214, 0, 255}}, image.Point{}, draw.Src)
	for x := 96; x < w-96; x += 56 {
		draw.Draw(img, image.Rect(x, top+24, x+32, top+96), &image.Uniform{color.RGBA{10, 10, 10, 255}}, image.Point{}, draw.Src)
	}
	return img
}

// A 16:9 picture whose headline sits at the top keeps the whole
// headline: from gpt-image-1.5 (3:2, cropped: the prompt's safe area
// keeps the headline inside the band the crop keeps) and from the default
// gpt-image-2 (16:9, nothing cropped). The pictures are written to
// $HOOKLINE_LOOK_DIR (default: the test's temporary directory) as PNG for
// a person to look at.
func TestHeadlineAtTheTopSurvivesTheCrop(t *testing.T) {
	dir := os.Getenv("HOOKLINE_LOOK_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	for _, model := range []string{"gpt-image-1.5", ""} {
		t.Run(model, func(t *testing.T) {
			fake := providerfake.NewOpenAI(t)
			fake.Draw(headlineModel)
			c, err := openai.New(openai.Config{APIKey: fake.Key(), BaseURL: fake.URL(), Model: model})
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Generate(t.Context(), engine.Request{Prompt: "budget GPUs", Headline: "I TESTED EVERY GPU", Aspect: thumbnail.Landscape})
			if err != nil {
				t.Fatal(err)
			}
			providerfake.CheckThumbnail(t, res, thumbnail.Landscape)
			img, err := jpeg.Decode(bytes.NewReader(res.Data))
			if err != nil {
				t.Fatal(err)
			}
			var look bytes.Buffer
			if err := png.Encode(&look, img); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "headline-16x9-"+c.Model()+".png"), look.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			// The bar's rows are the yellow ones, read at x 66 (canvas x
			// about 80, between the bar's edge and its first letter); the
			// first must lie below the picture's edge, and all 120 canvas
			// rows must survive (scaled: 100 of 1024 → 720, 94 of 864 → 720).
			var rows []int
			for y := 0; y < img.Bounds().Dy(); y++ {
				r, g, b, _ := img.At(66, y).RGBA()
				if r>>8 > 200 && g>>8 > 170 && b>>8 < 80 {
					rows = append(rows, y)
				}
			}
			if len(rows) == 0 || rows[0] <= 0 {
				t.Fatalf("headline rows %v: the bar was cut at the top", rows)
			}
			if n := len(rows); n < 90 {
				t.Errorf("%d headline rows survive, want the whole bar", n)
			}
		})
	}
}
