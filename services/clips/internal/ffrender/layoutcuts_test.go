package ffrender_test

import (
	"image"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"hookline.dev/pkg/ai/nlp"
	"hookline.dev/services/clips/internal/captions"
	"hookline.dev/services/clips/internal/ffrender"
	"hookline.dev/services/clips/internal/mediatest"
	"hookline.dev/services/clips/internal/render"
)

// TestLayoutsWithJumpCutsAndPunchIns renders the two-person talk, 1.5 s
// of silence after each line, with removeSilences and autoZoom under the
// speaker and the split layouts. Both: the pauses are cut (the MP4 is as
// much shorter, every word is in the SRT) and the crop path lives in the
// cut video's time (increasing, inside its length, up to its end).
// Speaker: one window throughout, held on the talker whose line the SRT
// shows in ≥ 90 % of its samples, punch-ins of at most 1.15 at least 4 s
// apart, the followed face inside the zoomed window. Split: two halves
// at every sample, the left talker's face in the top window and the
// right one's in the bottom, no zoom, and a note that says why.
func TestLayoutsWithJumpCutsAndPunchIns(t *testing.T) {
	if testing.Short() {
		t.Skip("renders every layout with ffmpeg, minutes on two cores: make test runs it")
	}
	mediatest.Require(t)
	dir := t.TempDir()
	r, model := speakerRenderer(t)
	talk, samples := twoPersonTalk(t, r, model, 1.5)
	// The captions: each line's words spread over its turn; owner is
	// the talker of each word.
	var ws []captions.Word
	var owner []int
	script := strings.Join(talkLines, " ")
	for _, tn := range talk.Turns {
		fields := strings.Fields(tn.Text)
		per := (tn.End - tn.Start) / float64(len(fields))
		for i, f := range fields {
			ws = append(ws, captions.Word{Start: tn.Start + float64(i)*per, End: tn.Start + float64(i+1)*per - 0.02, Text: f})
			owner = append(owner, tn.Speaker)
		}
	}
	cw, h := float64(720*9/16), 720.0
	renderAs := func(layout render.Layout) (ffrender.Result, []cue, float64) {
		job := ffrender.Job{Source: talk.File, SrcW: 1280, SrcH: 720, HasAudio: true, Start: 0, End: talk.Seconds, Width: 540, Height: 960,
			Dir: filepath.Join(dir, string(layout)), Layout: layout, RemoveSilences: true, AutoZoom: true, Samples: samples,
			Text: captions.Spec{Style: captions.Bold, Words: ws, Keywords: []string{"rockets", "launch", "earth"}, Emphasis: true,
				Hook: "What a launch feels like", HookSeconds: 3}}
		res := renderJob(t, r, job)
		length := probe(t, res.Output).Duration
		if want := 5 * (1.5 - 0.15); res.SecondsRemoved < want-0.3 {
			t.Errorf("%s: %.2f s removed, want at least %.2f (five 1.5 s pauses kept at 0.15 s)", layout, res.SecondsRemoved, want)
		}
		if math.Abs(length-(talk.Seconds-res.SecondsRemoved)) > 0.12 {
			t.Errorf("%s: the MP4 lasts %.2f s, want %.2f - %.2f removed", layout, length, talk.Seconds, res.SecondsRemoved)
		}
		cues := readSRT(t, res.SRT)
		if got, want := tokens(cues), nlp.Tokens(script); !slices.Equal(got, want) {
			t.Errorf("%s: the SRT's words\n%v\nwant the script's\n%v", layout, got, want)
		}
		// The crop path is the cut video's.
		for k, p := range res.Crop {
			if p.T < 0 || p.T > length || (k > 0 && p.T <= res.Crop[k-1].T) {
				t.Fatalf("%s: crop point %d at %.3f s (before it %.3f s) in a video of %.2f s", layout, k, p.T, res.Crop[max(0, k-1)].T, length)
			}
		}
		if n := len(res.Crop); n == 0 || res.Crop[n-1].T < length-0.5 {
			t.Fatalf("%s: the crop path (%d points) stops before the video's end at %.2f s", layout, n, length)
		}
		t.Logf("%s: %.2f s removed, %.2f s left, %d crop points, notes %q", layout, res.SecondsRemoved, length, len(res.Crop), res.Notes)
		return res, cues, length
	}
	// speakerAt is the talker of the caption shown at t (the SRT's words
	// are the script's, in order), -1 between captions.
	speakerAt := func(cues []cue, t float64) int {
		k := 0
		for _, c := range cues {
			if t >= c.start && t <= c.end {
				return owner[k]
			}
			k += len(strings.Fields(c.text))
		}
		return -1
	}
	inside := func(face image.Rectangle, x0, y0, x1, y1 float64) bool {
		return float64(face.Min.X) >= x0-3 && float64(face.Max.X) <= x1+3 && float64(face.Min.Y) >= y0-3 && float64(face.Max.Y) <= y1+3
	}

	t.Run("speaker", func(t *testing.T) {
		res, cues, length := renderAs(render.LayoutSpeaker)
		speaking, followed := 0, 0
		var starts []float64
		peak, peakAt := 1.0, 0.0
		for k, p := range res.Crop {
			if p.Halves != nil {
				t.Fatalf("the speaker layout split the frame at %.2f s", p.T)
			}
			if p.Zoom < 1 || p.Zoom > 1.15+1e-9 {
				t.Errorf("zoom %.4f at %.2f s, want 1..1.15", p.Zoom, p.T)
			}
			if p.Zoom > 1.0001 && (k == 0 || res.Crop[k-1].Zoom <= 1.0001) {
				starts = append(starts, p.T)
			}
			if p.Zoom > peak {
				peak, peakAt = p.Zoom, p.T
			}
			x0, y0 := float64(p.X), float64(p.Y)
			x1, y1 := x0+cw/p.Zoom, y0+h/p.Zoom
			// The face followed (the talker nearest the tracked box) stays
			// inside the window, zoomed or not.
			if !p.Box.Empty() {
				near := 0
				if math.Abs(centreX(p.Box)-centreX(talk.Faces[1])) < math.Abs(centreX(p.Box)-centreX(talk.Faces[0])) {
					near = 1
				}
				if !inside(talk.Faces[near], x0, y0, x1, y1) {
					t.Errorf("at %.2f s (zoom %.3f) the followed face %v leaves the window %.0f,%.0f–%.0f,%.0f", p.T, p.Zoom, talk.Faces[near], x0, y0, x1, y1)
				}
			}
			who := speakerAt(cues, p.T)
			if who < 0 {
				continue
			}
			speaking++
			if c := centreX(talk.Faces[who]); c >= x0 && c <= x1 {
				followed++
			}
		}
		t.Logf("punch-ins start at %v s (peak %.3f at %.2f s); the crop held the talker of the caption in %d of %d samples", starts, peak, peakAt, followed, speaking)
		if len(starts) == 0 {
			t.Errorf("no punch-in in %.1f s of emphasised lines", length)
		}
		for k := 1; k < len(starts); k++ {
			if starts[k]-starts[k-1] < 4-0.25 {
				t.Errorf("punch-ins at %.2f and %.2f s: less than 4 s apart", starts[k-1], starts[k])
			}
		}
		if speaking < 30 || float64(followed) < 0.9*float64(speaking) {
			t.Errorf("the crop held the talker of the caption in %d of %d samples, want ≥ 90 %%", followed, speaking)
		}
		if len(starts) > 0 {
			frame(t, res.Output, peakAt, "speaker-jumpcut-zoom")
		}
	})

	t.Run("split", func(t *testing.T) {
		res, _, _ := renderAs(render.LayoutSplit)
		for _, p := range res.Crop {
			if len(p.Halves) != 2 {
				t.Fatalf("no split at %.2f s", p.T)
			}
			if p.Zoom != 1 {
				t.Errorf("zoom %.4f at %.2f s on a split frame", p.Zoom, p.T)
			}
			for side, w := range p.Halves {
				if w.X < 0 || w.Y < 0 || w.X+w.W > 1280 || w.Y+w.H > 720 {
					t.Fatalf("at %.2f s half %d %+v leaves the source", p.T, side, w)
				}
				if !inside(talk.Faces[side], float64(w.X), float64(w.Y), float64(w.X+w.W), float64(w.Y+w.H)) {
					t.Errorf("at %.2f s half %d %+v does not hold its face %v", p.T, side, w, talk.Faces[side])
				}
			}
		}
		if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, "autoZoom:") && strings.Contains(n, "split") }) {
			t.Errorf("notes %q: no word of the punch-ins left out of the split frame", res.Notes)
		}
		frame(t, res.Output, 5, "split-jumpcut")
	})
}
