package ffrender

import (
	"image"
	"math"
	"testing"

	"hookline.dev/services/clips/internal/captions"
)

func ws(spec ...any) []captions.Word {
	var out []captions.Word
	for i := 0; i+2 < len(spec); i += 3 {
		out = append(out, captions.Word{Start: spec[i].(float64), End: spec[i+1].(float64), Text: spec[i+2].(string)})
	}
	return out
}

// TestFillerPhrasesOnlyAlone: "you know" and "I mean" are fillers between
// pauses or punctuation, not inside a sentence; um and uh always are.
func TestFillerPhrasesOnlyAlone(t *testing.T) {
	words := ws(0.0, 0.3, "so", 0.6, 0.8, "you", 0.8, 1.0, "know", 1.4, 1.6, "I", 1.6, 1.9, "mean", 1.9, 2.2, "it", 2.3, 2.5, "uh", 2.5, 2.8, "yes,",
		2.8, 3.0, "you", 3.0, 3.2, "know,", 3.2, 3.5, "right")
	got := fillerWords(words)
	want := []bool{false, true, true, false, false, false, true, false, true, true, false}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%q: filler %v, want %v", words[i].Text, got[i], want[i])
		}
	}
}

// TestPlanFromWordsAlone: without audio the words tell the pauses; a long
// pause keeps 0.15 s, an um goes and the silence around it stays (0.3 s at
// the end is no long pause); the cuts are on the
// 1/30 s grid and the words are re-timed to the cut clip.
func TestPlanFromWordsAlone(t *testing.T) {
	words := ws(0.0, 1.0, "launch", 3.0, 3.5, "went", 3.6, 3.9, "um", 4.0, 4.5, "well")
	e := planCuts(words, nil, 4.8, true, true)
	if len(e.Removed) != 2 {
		t.Fatalf("removed %+v", e.Removed)
	}
	for _, r := range e.Removed {
		for _, b := range []float64{r.From, r.To} {
			if f := b * outFPS; math.Abs(f-math.Round(f)) > 1e-9 && b != 4.8 {
				t.Errorf("cut at %.4f s is off the frame grid", b)
			}
		}
	}
	// 2 s pause → 0.15 s; 0.1 + um + 0.1 → the 0.2 s of silence.
	if got, want := e.Seconds(), (2-0.15)+0.3; math.Abs(got-want) > 2.0/outFPS+1e-9 {
		t.Errorf("removed %.3f s, want %.3f (%+v)", got, want, e.Removed)
	}
	out := e.Words(words)
	if len(out) != 3 || out[0].Text != "launch" || out[2].Text != "well" {
		t.Fatalf("words %+v", out)
	}
	if gap := out[1].Start - out[0].End; math.Abs(gap-0.15) > 1.0/outFPS {
		t.Errorf("the long pause is now %.3f s", gap)
	}
	if gap := out[2].Start - out[1].End; math.Abs(gap-0.2) > 1.0/outFPS {
		t.Errorf("the pause around the um is now %.3f s", gap)
	}
	if end := e.Out(4.8); math.Abs(end-(4.8-e.Seconds())) > 1e-9 {
		t.Errorf("the clip ends at %.3f", end)
	}
	// A translation re-timed over the sentence "went um well" (3.0–4.5 s):
	// squeezed through the cut, no word lost for the cut um.
	tr := e.Squeezed(ws(3.0, 3.75, "fue", 3.75, 4.5, "bien"))
	if len(tr) != 2 || tr[0].Start != e.Out(3.0) || tr[1].End != e.Out(4.5) || tr[0].End != tr[1].Start {
		t.Errorf("translated words %+v (the cut %+v)", tr, e.Removed)
	}
	for _, r := range e.Removed {
		if inside := e.Squeezed(ws(r.From+0.01, r.To-0.01, "eh")); len(inside) != 0 {
			t.Errorf("a word wholly inside the cut %+v is kept: %+v", r, inside)
		}
	}
	// Only fillers: the long pause stays.
	if e := planCuts(words, nil, 4.8, false, true); len(e.Removed) != 1 || e.Seconds() > 0.5 {
		t.Errorf("fillers only: %+v", e.Removed)
	}
}

// TestCropFollowsTheCut: the samples in a cut go, the others move up.
func TestCropFollowsTheCut(t *testing.T) {
	e := Edit{Removed: []Span{{From: 1, To: 2}}}
	got := e.Crop([]CropPoint{{T: 0.5, X: 1}, {T: 1.5, X: 2}, {T: 2.5, X: 3}})
	if len(got) != 2 || got[0].T != 0.5 || got[1].T != 1.5 || got[1].X != 3 {
		t.Errorf("crop %+v", got)
	}
}

// TestCropAtACutKeepsTheLaterSample: two samples a cut brings to one
// time leave one point, the framing after the cut (its split halves
// too).
func TestCropAtACutKeepsTheLaterSample(t *testing.T) {
	e := Edit{Removed: []Span{{From: 1, To: 2}}}
	halves := []Window{{X: 1, W: 10, H: 10}, {X: 2, W: 10, H: 10}}
	got := e.Crop([]CropPoint{{T: 0.75, X: 1}, {T: 1, X: 2}, {T: 2, X: 3, Halves: halves}, {T: 2.25, X: 4, Halves: halves}})
	if len(got) != 3 || got[1].T != 1 || got[1].X != 3 || got[1].Halves == nil || got[2].T != 1.25 {
		t.Errorf("crop %+v", got)
	}
}

// TestFacesFollowTheCut: the faces the captions avoid move with the cut;
// one seen only inside a removed stretch goes, one across a cut shrinks.
func TestFacesFollowTheCut(t *testing.T) {
	e := Edit{Removed: []Span{{From: 1, To: 2}}}
	box := image.Rect(0, 0, 10, 10)
	got := e.Faces([]captions.FaceBox{{Start: 0.5, End: 0.75, Box: box}, {Start: 1.25, End: 1.5, Box: box}, {Start: 0.9, End: 2.1, Box: box}, {Start: 2.5, End: 2.75, Box: box}})
	want := [][2]float64{{0.5, 0.75}, {0.9, 1.1}, {1.5, 1.75}}
	if len(got) != len(want) {
		t.Fatalf("faces %+v", got)
	}
	for i, w := range want {
		if math.Abs(got[i].Start-w[0]) > 1e-9 || math.Abs(got[i].End-w[1]) > 1e-9 || got[i].Box != box {
			t.Errorf("face %d %+v, want %v", i, got[i], w)
		}
	}
	// apply re-times the job's faces with its words.
	j := e.apply(Job{Text: captions.Spec{Faces: []captions.FaceBox{{Start: 2.5, End: 2.75, Box: box}}}})
	if len(j.Text.Faces) != 1 || j.Text.Faces[0].Start != 1.5 {
		t.Errorf("applied faces %+v", j.Text.Faces)
	}
}

// Stretches the creator deleted join the jump cuts: on the frame grid,
// overlapping ones merged, and words, cutaways and times follow them all.
func TestDeletedWordsJoinTheJumpCuts(t *testing.T) {
	silences := Edit{Removed: []Span{{From: 1, To: 1.5}, {From: 4, To: 4.2}}}
	e := silences.with([]Span{{From: 3.01, To: 3.99}, {From: 1.4, To: 2.02}}, 6)
	want := []Span{{From: 1, To: 61.0 / 30}, {From: 3, To: 4.2}}
	if len(e.Removed) != len(want) {
		t.Fatalf("removed %v, want %v", e.Removed, want)
	}
	for i, r := range e.Removed {
		if math.Abs(r.From-want[i].From) > 1e-9 || math.Abs(r.To-want[i].To) > 1e-9 {
			t.Fatalf("removed %v, want %v", e.Removed, want)
		}
	}
	words := e.Words([]captions.Word{{Start: 0.2, End: 0.8, Text: "kept"}, {Start: 3.2, End: 3.8, Text: "deleted"}, {Start: 4.3, End: 4.6, Text: "after"}})
	if len(words) != 2 || words[1].Text != "after" || math.Abs(words[1].Start-(4.3-e.Seconds())) > 1e-9 {
		t.Fatalf("words %+v", words)
	}
	if got := (Edit{}).with(nil, 6); len(got.Removed) != 0 {
		t.Fatalf("nothing to cut: %v", got.Removed)
	}
}
