package ffrender

import (
	"image"
	"math"
	"testing"

	"hookline.dev/services/clips/internal/facetrack"
	"hookline.dev/services/clips/internal/render"
)

// talkTracks are two faces side by side over n samples whose mouths
// move with energy while turns says they speak (turns[i] is the speaker
// at sample i, -1 for silence).
func talkTracks(turns []int) ([][]facetrack.Face, []float64) {
	frames := make([][]facetrack.Face, len(turns))
	energy := make([]float64, len(turns))
	boxes := [2]image.Rectangle{image.Rect(200, 200, 400, 400), image.Rect(880, 210, 1060, 390)}
	for i, who := range turns {
		// A syllable rhythm that the 4 Hz samples see as loud and soft.
		loud := 0.0
		if who >= 0 {
			loud = 0.4 + 0.6*math.Abs(math.Sin(float64(i)*1.3))
		}
		energy[i] = loud
		for k, b := range boxes {
			open := 0.01
			if k == who {
				open += 0.08 * loud
			}
			frames[i] = append(frames[i], facetrack.Face{Box: b.Add(image.Pt(i%3, 0)), Open: open})
		}
	}
	return frames, energy
}

func turnsOf(seconds ...float64) []int {
	var out []int
	for k, s := range seconds {
		for range int(s * trackFPS) {
			out = append(out, k%2)
		}
	}
	return out
}

func TestIdentifyKeepsTwoFacesApart(t *testing.T) {
	frames, _ := talkTracks(turnsOf(3, 3))
	// The detector misses the right face for two samples.
	frames[5] = frames[5][:1]
	frames[6] = frames[6][:1]
	tracks := identify(frames, nil)
	if len(tracks) != 2 {
		t.Fatalf("%d tracks, want 2", len(tracks))
	}
	for _, tr := range tracks {
		for i := range frames {
			if !tr.present(i) {
				t.Errorf("a track is missing at sample %d (the gap is not filled)", i)
			}
		}
	}
	// A scene cut ends the tracks: the faces after it are new people.
	if got := len(identify(frames, map[int]bool{12: true})); got != 4 {
		t.Errorf("%d tracks across a cut, want 4", got)
	}
}

func TestSpeakerLayoutFollowsTheMouthThatMovesWithTheSpeech(t *testing.T) {
	turns := turnsOf(6, 6, 6)
	frames, energy := talkTracks(turns)
	tracks := identify(frames, nil)
	shots := plan(render.LayoutSpeaker, tracks, energy, len(frames))
	right := 0
	for i, s := range shots {
		if s.split {
			t.Fatalf("split at %d under the speaker layout", i)
		}
		if s.follow >= 0 && tracks[s.follow].boxes[i].Min.X/600 == turns[i] {
			right++
		}
	}
	if right < len(turns)*9/10 {
		t.Errorf("followed the speaker in %d of %d samples", right, len(turns))
	}
	// Fill follows the largest face whoever speaks.
	for i, s := range plan(render.LayoutFill, tracks, energy, len(frames)) {
		if s.follow < 0 || tracks[s.follow].boxes[i].Min.X > 600 {
			t.Fatalf("fill left the larger face at %d", i)
		}
	}
}

func TestAutoSplitsOnlyQuickExchanges(t *testing.T) {
	// Long turns: followed one at a time.
	frames, energy := talkTracks(turnsOf(7, 7, 7))
	tracks := identify(frames, nil)
	for i, s := range plan(render.LayoutAuto, tracks, energy, len(frames)) {
		if s.split {
			t.Fatalf("auto split long turns at sample %d", i)
		}
	}
	// A quick exchange between two long turns: split around it only.
	turns := turnsOf(8, 2, 2, 2, 8)
	frames, energy = talkTracks(turns)
	tracks = identify(frames, nil)
	shots := plan(render.LayoutAuto, tracks, energy, len(frames))
	if shots[len(shots)/2].split != true {
		t.Error("the quick exchange is not split")
	}
	if shots[2].split || shots[len(shots)-3].split {
		t.Error("the long turns at the ends are split")
	}
	// Under split, both faces share the frame throughout.
	for i, s := range plan(render.LayoutSplit, tracks, energy, len(frames)) {
		if !s.split || s.pair[0] == s.pair[1] {
			t.Fatalf("sample %d not split in two faces: %+v", i, s)
		}
	}
}

func TestAlternations(t *testing.T) {
	talk := []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1}
	got := alternations(talk)
	if len(got) != 1 || got[0].from != 25-alternation || got[0].to != len(talk) || got[0].a != 0 || got[0].b != 1 {
		t.Errorf("alternations %+v", got)
	}
	if got := alternations([]int{0, 0, 0, 1, 1, 1}); len(got) != 0 {
		t.Errorf("one change is no exchange: %+v", got)
	}
}
