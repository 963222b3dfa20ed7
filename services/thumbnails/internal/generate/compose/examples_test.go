package compose

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"hookline.dev/pkg/testkit"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// TestWriteExamples writes the example pictures reviewers look at
// (testdata/examples); run with HOOKLINE_WRITE_EXAMPLES=1.
func TestWriteExamples(t *testing.T) {
	dir := testkit.ExamplesDir(t)
	e := artEngine(t)
	face := photoFace(t)
	write := func(name string, r engine.Result) {
		decode(t, r)
		if len(r.Data) > 300<<10 {
			t.Errorf("%s is %d KB", name, len(r.Data)>>10)
		}
		if err := os.WriteFile(filepath.Join(dir, name), r.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gen := engine.Request{
		Prompt: "I tested the 5 cheapest gaming laptops so you don't have to",
		Aspect: thumbnail.Landscape, Seed: 7, Style: warmStyle(), Faces: []engine.Face{face},
	}
	first := generate(t, gen)
	write("generated-16x9.jpg", first)
	vary := gen
	vary.Seed, vary.Tweak = 15, "shocking results"
	vary.Parent = &engine.Picture{Data: first.Data}
	v, err := e.Vary(context.Background(), vary)
	if err != nil {
		t.Fatal(err)
	}
	write("variation.jpg", v)
	portrait := engine.Request{
		Prompt: "Morning routine of a productive developer in Tokyo",
		Aspect: thumbnail.Portrait, Seed: 3, Faces: []engine.Face{face},
	}
	write("generated-9x16.jpg", generate(t, portrait))
	// Issue 22: a saved face whose skin is close to the wall behind it,
	// drawn with its landmark-seeded cut-out.
	astronaut := astronautFace(t)
	for name, a := range map[string]thumbnail.Aspect{"saved-face-astronaut-16x9.jpg": thumbnail.Landscape, "saved-face-astronaut-9x16.jpg": thumbnail.Portrait} {
		write(name, generate(t, engine.Request{Prompt: "What it takes to fly the Space Shuttle", Aspect: a, Seed: 5, Faces: []engine.Face{astronaut}}))
	}
	remixes := map[string]string{
		"Boss Fight":    "Beating Elden Ring with only a fishing rod",
		"Money Moves":   "How I paid off $30,000 of debt in one year",
		"Guest Episode": "The future of AI agents with a startup founder",
	}
	for _, row := range readSeed(t) {
		prompt, ok := remixes[row.name]
		if !ok {
			continue
		}
		l := mustParse(t, row.layout)
		res := generate(t, engine.Request{Prompt: prompt, Aspect: thumbnail.Aspect(row.aspect), Seed: 11, Template: l, Faces: []engine.Face{face}})
		write("remix-"+row.category+".jpg", res)
		delete(remixes, row.name)
	}
	if len(remixes) > 0 {
		t.Fatalf("templates not in the seed: %v", remixes)
	}
	// Issue 33: descriptions drawn as asked, without and with a saved
	// face (the astronaut's).
	scenes := []struct {
		name, prompt string
		aspect       thumbnail.Aspect
	}{
		{"scene-readme", "Shocked creator pointing at a glowing laptop, bold yellow background", thumbnail.Landscape},
		{"scene-dark-accents", "Dark moody with red accents, a man holding a huge stack of cash", thumbnail.Landscape},
		{"scene-vs", "Cat vs dog, who is smarter? Split screen with yellow and blue", thumbnail.Landscape},
		{"scene-before-after", "Before and after of a messy bedroom, pastel pink background", thumbnail.Landscape},
		{"scene-text-right", "Pizza slice with melting cheese, bright red background, text on the right", thumbnail.Landscape},
		{"scene-number", `Stack of cash on a green background, headline "I QUIT MY JOB" at the top, $10,000`, thumbnail.Landscape},
		{"scene-concept", `YouTube thumbnail, close-up of a face with a strong, surprised expression on the left third, graphics card large and sharp on the right; saturated red and yellow palette, hard rim light, high energy; headline "GRAPHICS CARD?!" at the top-right`, thumbnail.Landscape},
		{"scene-portrait", "Shocked creator pointing at a glowing laptop, bold yellow background", thumbnail.Portrait},
	}
	for i, s := range scenes {
		req := engine.Request{Prompt: s.prompt, Aspect: s.aspect, Seed: uint64(21 + i)}
		write(s.name+".jpg", generate(t, req))
		req.Faces = []engine.Face{astronaut}
		write(s.name+"-face.jpg", generate(t, req))
	}
}
