package edits

import (
	"testing"

	"hookline.dev/pkg/media/imagecheck"
	"hookline.dev/services/thumbnails/internal/edits/adjust"
)

// bodies are a valid body of every op, grammar and provider runs alike.
var bodies = []struct {
	op       string
	body     values
	provider bool
}{
	{op: "edit", body: values{"imageUrl": "u", "prompt": "mirror"}},
	{op: "edit", body: values{"imageUrl": "u", "prompt": "turn him into a cat"}, provider: true},
	{op: "face-swap", body: values{"imageUrl": "u", "faceImageUrl": "f"}},
	{op: "background-remove", body: values{"imageUrl": "u"}},
	{op: "background-replace", body: values{"imageUrl": "u", "backgroundPrompt": "a sunset beach"}},
	{op: "color-enhance", body: values{"imageUrl": "u", "preset": "warm"}},
	{op: "upscale", body: values{"imageUrl": "u", "scale": "2x"}},
	{op: "filter", body: values{"imageUrl": "u", "filterPrompt": "sepia"}},
	{op: "combine", body: values{"imageUrl1": "a", "imageUrl2": "b", "prompt": "side by side"}},
}

// Every op says what its run holds, and it grows with the pictures: the
// service could not budget an op that forgot it.
func TestEveryOpEstimatesItsMemory(t *testing.T) {
	seen := map[string]bool{}
	for _, b := range bodies {
		seen[b.op] = true
		r, err := parse(lookup(t, b.op), b.body, b.provider)
		if err != nil {
			t.Fatalf("%s: %v", b.op, err)
		}
		small := make([]Picture, len(r.Sources))
		large := make([]Picture, len(r.Sources))
		for i := range r.Sources {
			small[i], large[i] = Picture{Width: 100, Height: 100}, Picture{Width: 1000, Height: 1000}
		}
		if s, l := r.Memory(small), r.Memory(large); s <= 0 || l <= s {
			t.Errorf("%s: %d bytes for 100×100 sources, %d for 1000×1000", b.op, s, l)
		}
	}
	for _, op := range All() {
		if !seen[string(op.Name())] {
			t.Errorf("%s has no body here", op.Name())
		}
	}
}

// The face a swap puts in is loaded for its check: an address in the
// request is checked and budgeted with the sources (at its size, so not
// here); a saved face's, whose address only the assets records give, is
// counted at the largest picture accepted.
func TestFaceSwapCountsTheFacePicture(t *testing.T) {
	r, err := parse(lookup(t, "face-swap"), values{"imageUrl": "u", "faceImageUrl": "f"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if r.Face == nil || r.Face.Source != (Source{Field: "faceImageUrl", URL: "f"}) || r.Memory([]Picture{{Width: 1, Height: 1}}) >= imagecheck.MaxDecodeBytes {
		t.Errorf("face %+v, memory %d", r.Face, r.Memory([]Picture{{Width: 1, Height: 1}}))
	}
	r, err = parse(lookup(t, "face-swap"), values{"imageUrl": "u", "faceId": "6f1c1d9e-0000-4000-8000-000000000000"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Memory([]Picture{{Width: 1, Height: 1}}); r.Face == nil || r.Face.URL != "" || got < imagecheck.MaxDecodeBytes {
		t.Errorf("face %+v, %d bytes, less than one face picture", r.Face, got)
	}
}

// An upscale's memory follows its result, which is capped: past the cap
// the run's own check refuses it (naming scale), not the budget.
func TestUpscaleMemoryStopsAtTheOutputCap(t *testing.T) {
	r, err := parse(lookup(t, "upscale"), values{"imageUrl": "u", "scale": "4x"}, false)
	if err != nil {
		t.Fatal(err)
	}
	atCap := r.Memory([]Picture{{Width: 1600, Height: 1600}})
	if huge := r.Memory([]Picture{{Width: 8000, Height: 5000}}); huge != atCap || huge > 4*adjust.MaxOutputPixels {
		t.Errorf("%d bytes for a 40 MP source, %d at the cap", huge, atCap)
	}
}
