package compose

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/layout"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

func TestGenerateSizes(t *testing.T) {
	for _, a := range []thumbnail.Aspect{thumbnail.Landscape, thumbnail.Portrait} {
		t.Run(string(a), func(t *testing.T) {
			res := generate(t, engine.Request{Prompt: "Best budget camera for YouTube in 2025", Aspect: a, Seed: 1, Style: warmStyle(), Faces: []engine.Face{photoFace(t)}})
			w, h := a.Size()
			if res.Width != w || res.Height != h {
				t.Fatalf("result %d×%d, want %d×%d", res.Width, res.Height, w, h)
			}
			decode(t, res)
		})
	}
}

func TestSameSeedSameBytes(t *testing.T) {
	req := engine.Request{Prompt: "10 tricks every gamer should know", Aspect: thumbnail.Landscape, Seed: 42, Style: warmStyle(), Faces: []engine.Face{photoFace(t)}}
	a, b := generate(t, req), generate(t, req)
	if !bytes.Equal(a.Data, b.Data) {
		t.Fatal("one seed gave two different pictures")
	}
}

// meanDiff is the mean absolute difference per channel between two
// decoded pictures of the same size.
func meanDiff(t *testing.T, a, b engine.Result) float64 {
	t.Helper()
	ia, ib := decode(t, a), decode(t, b)
	ra, rb := image.NewRGBA(ia.Bounds()), image.NewRGBA(ib.Bounds())
	draw.Draw(ra, ra.Rect, ia, image.Point{}, draw.Src)
	draw.Draw(rb, rb.Rect, ib, image.Point{}, draw.Src)
	var sum int
	for i := range ra.Pix {
		d := int(ra.Pix[i]) - int(rb.Pix[i])
		if d < 0 {
			d = -d
		}
		sum += d
	}
	return float64(sum) / float64(len(ra.Pix))
}

func TestSeedsDiffer(t *testing.T) {
	face := photoFace(t)
	var results []engine.Result
	for seed := uint64(1); seed <= 6; seed++ {
		results = append(results, generate(t, engine.Request{Prompt: "How I grew my channel to 100k subscribers", Aspect: thumbnail.Landscape, Seed: seed, Faces: []engine.Face{face}}))
	}
	for i := range results {
		for j := i + 1; j < len(results); j++ {
			// Visibly different, not a few bits apart.
			if d := meanDiff(t, results[i], results[j]); d < 2 {
				t.Errorf("seeds %d and %d differ by %.2f per channel", i+1, j+1, d)
			}
		}
	}
}

func TestVariationsDiffer(t *testing.T) {
	e := newEngine(t)
	face := photoFace(t)
	parent := generate(t, engine.Request{Prompt: "My honest review of the new MacBook", Aspect: thumbnail.Portrait, Seed: 9, Faces: []engine.Face{face}})
	var vs []engine.Result
	for seed := uint64(100); seed < 105; seed++ {
		v, err := e.Vary(context.Background(), engine.Request{
			Prompt: "My honest review of the new MacBook", Tweak: "more dramatic", Aspect: thumbnail.Portrait,
			Seed: seed, Faces: []engine.Face{face}, Parent: &engine.Picture{Data: parent.Data},
		})
		if err != nil {
			t.Fatal(err)
		}
		if v.Width != 720 || v.Height != 1280 {
			t.Fatalf("variation %d×%d, want the parent's 720×1280", v.Width, v.Height)
		}
		vs = append(vs, v)
	}
	for i := range vs {
		if d := meanDiff(t, vs[i], parent); d < 2 {
			t.Errorf("variation %d differs from its parent by %.2f", i, d)
		}
		for j := i + 1; j < len(vs); j++ {
			if d := meanDiff(t, vs[i], vs[j]); d < 2 {
				t.Errorf("variations %d and %d differ by %.2f per channel", i, j, d)
			}
		}
	}
}

// Many variations of one parent, without faces and with the same tweak
// (the case where the fewest choices are continuous), are all different
// files: the discrete choices (layout, palette, wording, background) do
// collide between seeds (seeds 2 and 35 drew the same file before the
// seeded vignette shift), the shift does not.
func TestManyVariationsAreDistinct(t *testing.T) {
	e := newEngine(t)
	parent := generate(t, engine.Request{Prompt: "morning routine", Aspect: thumbnail.Portrait, Seed: 1})
	seen := map[[32]byte]uint64{}
	for seed := uint64(1); seed <= 40; seed++ {
		v, err := e.Vary(context.Background(), engine.Request{
			Prompt: "morning routine", Tweak: "more red", Aspect: thumbnail.Portrait,
			Seed: seed, Parent: &engine.Picture{Data: parent.Data},
		})
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(v.Data)
		if other, dup := seen[sum]; dup {
			t.Fatalf("seeds %d and %d drew the same picture", other, seed)
		}
		seen[sum] = seed
	}
}

// meanColor averages r of img.
func meanColor(img image.Image, r image.Rectangle) (float64, float64, float64) {
	var sr, sg, sb, n float64
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			sr, sg, sb, n = sr+float64(cr>>8), sg+float64(cg>>8), sb+float64(cb>>8), n+1
		}
	}
	return sr / n, sg / n, sb / n
}

func mustParse(t *testing.T, doc string) *layout.Layout {
	t.Helper()
	l, err := layout.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return &l
}

const greyPalette = `"palette": {"background": "#303030", "background2": "#404040", "primary": "#808080", "accent": "#a0a0a0", "text": "#ffffff", "stroke": "#000000"}`

// TestReferenceMakesTheBackground: a red reference picture turns a
// reference background red under a grey palette.
func TestReferenceMakesTheBackground(t *testing.T) {
	l := mustParse(t, `{"background": {"kind": "reference", "colors": ["background"]},
		"texts": [{"name": "headline", "box": [0.1, 0.05, 0.8, 0.2], "size": 0.1}], "grade": "clean", `+greyPalette+`}`)
	req := engine.Request{Prompt: "red", Aspect: thumbnail.Landscape, Seed: 3, Template: l}
	plain := decode(t, generate(t, req))
	req.References = []engine.Picture{flatPicture(t, 400, 300, color.RGBA{220, 20, 20, 255})}
	red := decode(t, generate(t, req))
	area := image.Rect(300, 400, 980, 600)
	r, g, b := meanColor(red, area)
	if r < g+60 || r < b+60 {
		t.Fatalf("background over a red reference is %.0f,%.0f,%.0f: not red", r, g, b)
	}
	pr, pg, pb := meanColor(plain, area)
	if pr > pg+10 || pr > pb+10 {
		t.Fatalf("without the reference the background is %.0f,%.0f,%.0f: the red came from elsewhere", pr, pg, pb)
	}
}

// greenFace is a green disc on a white ground: a "face" whose backdrop
// the cut-out removes.
func greenFace(t *testing.T) engine.Face {
	img := image.NewRGBA(image.Rect(0, 0, 300, 300))
	draw.Draw(img, img.Rect, image.White, image.Point{}, draw.Src)
	for y := 0; y < 300; y++ {
		for x := 0; x < 300; x++ {
			if (x-150)*(x-150)+(y-160)*(y-160) < 90*90 {
				img.Set(x, y, color.RGBA{20, 200, 40, 255})
			}
		}
	}
	return engine.Face{Name: "green", Crop: encodePicture(t, img)}
}

func TestFacesArePlaced(t *testing.T) {
	l := mustParse(t, `{"background": {"kind": "solid", "colors": ["background"]},
		"face": {"box": [0.5, 0.0, 0.5, 1.0], "shape": "cutout", "side": "right"},
		"texts": [{"name": "headline", "box": [0.02, 0.05, 0.4, 0.3], "size": 0.1}], "grade": "clean", `+greyPalette+`}`)
	one := decode(t, generate(t, engine.Request{Prompt: "face", Aspect: thumbnail.Landscape, Seed: 1, Template: l, Faces: []engine.Face{greenFace(t)}}))
	// The face is 720 px square at the right edge; its disc's centre:
	r, g, b := meanColor(one, image.Rect(900, 360, 1020, 460))
	if g < r+80 || g < b+80 {
		t.Fatalf("face centre is %.0f,%.0f,%.0f: the green face is not there", r, g, b)
	}
	// Its white backdrop is cut away: the slot's corner shows the grey
	// background, not white.
	r, g, b = meanColor(one, image.Rect(1180, 20, 1260, 80))
	if r > 150 || g > 150 || b > 150 {
		t.Fatalf("face corner is %.0f,%.0f,%.0f: the backdrop was not cut out", r, g, b)
	}
	two := decode(t, generate(t, engine.Request{Prompt: "face", Aspect: thumbnail.Landscape, Seed: 1, Template: l, Faces: []engine.Face{greenFace(t), greenFace(t)}}))
	// Two faces share the slot: both halves of it show green.
	for _, area := range []image.Rectangle{image.Rect(700, 500, 760, 560), image.Rect(1080, 500, 1140, 560)} {
		if r, g, b := meanColor(two, area); g < r+80 || g < b+80 {
			t.Errorf("two faces: %v is %.0f,%.0f,%.0f, want green", area, r, g, b)
		}
	}
}

func TestPromptWithoutKeywordsStillComposes(t *testing.T) {
	for _, p := range []string{"!!! ??? ...", "🔥🔥🔥", "the of and", ""} {
		res := generate(t, engine.Request{Prompt: p, Aspect: thumbnail.Landscape, Seed: 5})
		decode(t, res)
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newEngine(t).Generate(ctx, engine.Request{Prompt: "x", Aspect: thumbnail.Landscape})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestBadPictureIsAnError(t *testing.T) {
	_, err := newEngine(t).Generate(context.Background(), engine.Request{
		Prompt: "x", Aspect: thumbnail.Landscape, Faces: []engine.Face{{Crop: engine.Picture{Data: []byte("not an image")}}},
		Template: mustParse(t, `{"background": {"kind": "solid", "colors": ["background"]}, "face": {"box": [0.5, 0, 0.5, 1]},
			"texts": [{"name": "headline", "box": [0, 0, 0.5, 0.5], "size": 0.1}], `+greyPalette+`}`),
	})
	if err == nil {
		t.Fatal("a face that is not an image composed without error")
	}
}

// TestConcurrentRendersMatchSequential renders different requests in
// parallel (run with -race) and checks each against its sequential bytes.
func TestConcurrentRendersMatchSequential(t *testing.T) {
	face := photoFace(t)
	reqs := make([]engine.Request, 6)
	want := make([][]byte, len(reqs))
	for i := range reqs {
		reqs[i] = engine.Request{Prompt: fmt.Sprintf("Episode %d of the ultimate survival series", i), Aspect: []thumbnail.Aspect{thumbnail.Landscape, thumbnail.Portrait}[i%2], Seed: uint64(i), Faces: []engine.Face{face}, Style: warmStyle()}
		want[i] = generate(t, reqs[i]).Data
	}
	var wg sync.WaitGroup
	for round := 0; round < 2; round++ {
		for i := range reqs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := newEngine(t).Generate(context.Background(), reqs[i])
				if err != nil {
					t.Error(err)
					return
				}
				if !bytes.Equal(res.Data, want[i]) {
					t.Errorf("request %d rendered differently in parallel", i)
				}
			}()
		}
	}
	wg.Wait()
}

// seedRow is one template of the seed migration.
type seedRow struct {
	id, name, category, aspect, layout string
}

// readSeed extracts the rows of migrations/0002_templates.sql: every line
// that opens a tuple, its quoted fields in order.
func readSeed(t *testing.T) []seedRow {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "migrations", "0002_templates.sql"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []seedRow
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "('") {
			continue
		}
		f := sqlStrings(line)
		if len(f) != 6 {
			t.Fatalf("seed row with %d quoted fields: %.80s", len(f), line)
		}
		rows = append(rows, seedRow{id: f[0], name: f[1], category: f[2], aspect: f[4], layout: f[5]})
	}
	return rows
}

// sqlStrings lists the single-quoted SQL literals of line, unescaping ”.
func sqlStrings(line string) []string {
	var out []string
	for i := 0; i < len(line); i++ {
		if line[i] != '\'' {
			continue
		}
		var b strings.Builder
		for i++; i < len(line); i++ {
			if line[i] == '\'' {
				if i+1 < len(line) && line[i+1] == '\'' {
					b.WriteByte('\'')
					i++
					continue
				}
				break
			}
			b.WriteByte(line[i])
		}
		out = append(out, b.String())
	}
	return out
}

// TestSeededTemplatesRender parses every template of the seed migration
// and renders its preview and a remix in the other aspect, so that a typo
// in the seed fails here.
func TestSeededTemplatesRender(t *testing.T) {
	if testing.Short() {
		t.Skip("renders every seeded template twice: make test runs it")
	}
	rows := readSeed(t)
	categories := map[string]int{}
	ids := map[string]bool{}
	portrait := 0
	for _, r := range rows {
		categories[r.category]++
		if ids[r.id] {
			t.Errorf("duplicate id %s", r.id)
		}
		ids[r.id] = true
		if r.aspect == string(thumbnail.Portrait) {
			portrait++
		}
	}
	if len(rows) < 24 || len(categories) < 8 || portrait == 0 {
		t.Fatalf("seed has %d templates over %d categories (%d portrait), want ≥ 24 over ≥ 8 with some portrait", len(rows), len(categories), portrait)
	}
	e := newEngine(t)
	face := photoFace(t)
	for i, r := range rows {
		t.Run(strconv.Itoa(i)+"-"+r.name, func(t *testing.T) {
			l, err := layout.Parse([]byte(r.layout))
			if err != nil {
				t.Fatal(err)
			}
			if l.Aspect != r.aspect {
				t.Fatalf("layout aspect %s, row says %s", l.Aspect, r.aspect)
			}
			a := thumbnail.Aspect(r.aspect)
			prev, err := e.Preview(context.Background(), r.name, l, a)
			if err != nil {
				t.Fatal(err)
			}
			decode(t, prev)
			other := thumbnail.Landscape
			if a == thumbnail.Landscape {
				other = thumbnail.Portrait
			}
			remix := generate(t, engine.Request{Prompt: "I spent 24 hours building the ultimate setup", Aspect: other, Seed: uint64(i), Template: &l, Faces: []engine.Face{face}})
			if w, h := other.Size(); remix.Width != w || remix.Height != h {
				t.Fatalf("remix %d×%d", remix.Width, remix.Height)
			}
			decode(t, remix)
		})
	}
}

func BenchmarkGenerate(b *testing.B) {
	face := photoFace(b)
	req := engine.Request{Prompt: "I tested the 5 cheapest gaming laptops so you don't have to", Aspect: thumbnail.Landscape, Style: warmStyle(), Faces: []engine.Face{face}}
	e := newEngine(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req.Seed = uint64(i)
		if _, err := e.Generate(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGeneratePrompt draws what bench/run.sh thumbnails asks through
// the gateway (a prompt only), so the two figures give the overhead ratio.
func BenchmarkGeneratePrompt(b *testing.B) {
	e := newEngine(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := engine.Request{Prompt: fmt.Sprintf("I tested the %d cheapest gaming laptops so you don't have to (worker 0)", i%9+2), Aspect: thumbnail.Landscape, Seed: uint64(i)}
		if _, err := e.Generate(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVary(b *testing.B) {
	face := photoFace(b)
	req := engine.Request{Prompt: "I tested the 5 cheapest gaming laptops so you don't have to", Aspect: thumbnail.Landscape, Style: warmStyle(), Faces: []engine.Face{face}}
	e := newEngine(b)
	parent, err := e.Generate(context.Background(), req)
	if err != nil {
		b.Fatal(err)
	}
	req.Parent, req.Tweak = &engine.Picture{Data: parent.Data}, "even cheaper"
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req.Seed = uint64(i + 1)
		if _, err := e.Vary(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}
