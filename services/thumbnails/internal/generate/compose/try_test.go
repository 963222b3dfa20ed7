package compose

import (
	"context"
	"os"
	"fmt"
	"testing"

	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

func TestTry(t *testing.T) {
	e := artEngine(t)
	face := photoFace(t)
	os.MkdirAll("/tmp/i33out", 0o755)
	for i, p := range []string{
		"Shocked creator pointing at a glowing laptop, bold yellow background",
		"I tried living on $1 a day in Tokyo",
		"dark moody with red accents, a man holding a huge stack of cash",
		"iPhone vs Android, which phone should you buy",
		"a cat sleeping on a pizza, pastel pink background, text on the right", "Before and after of a messy bedroom, text on the left", "Cash vs credit card, split screen, green and purple", "Man holding a giant clock, stressed face, yellow background, headline at the top left", "$10,000 in cash on a table, red background, shocked face", `Close-up of a face, red background, headline "IT BROKE?!" at the top-right`,
	} {
		for _, f := range []bool{false, true} {
			req := engine.Request{Prompt: p, Aspect: thumbnail.Landscape, Seed: uint64(i + 1)}
			if f {
				req.Faces = []engine.Face{face}
			}
			r, err := e.Generate(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("/tmp/i33out/%d-%v.jpg", i, f)
			os.WriteFile(name, r.Data, 0o644)
			fmt.Println(name, r.Applied)
		}
	}
}
