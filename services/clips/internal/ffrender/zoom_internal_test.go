package ffrender

import (
	"image"
	"strings"
	"testing"

	"hookline.dev/services/clips/internal/captions"
)

// splitPath is a crop path sampled every 0.25 s for 12 s, the face in the
// middle of a 404-px window, split in two halves from 4 s to 8 s.
func splitPath() []CropPoint {
	var path []CropPoint
	for i := range 48 {
		p := CropPoint{T: float64(i) / 4, X: 400, Face: true, Box: image.Rect(540, 250, 660, 400)}
		if p.T >= 4 && p.T < 8 {
			p.Halves = []Window{{X: 200, Y: 100, W: 400, H: 356}, {X: 700, Y: 100, W: 400, H: 356}}
		}
		path = append(path, p)
	}
	return path
}

// TestPunchInsLeaveSplitFramesAlone: a line worth a punch-in while the
// frame is split gets none (and is counted); the lines in the single
// window get theirs, which the filter zooms in their run only.
func TestPunchInsLeaveSplitFramesAlone(t *testing.T) {
	line := func(from float64, text string) []captions.Word {
		var out []captions.Word
		for i, w := range strings.Fields(text) {
			out = append(out, captions.Word{Start: from + 0.4*float64(i), End: from + 0.4*float64(i) + 0.35, Text: w})
		}
		return out
	}
	lines := [][]captions.Word{line(0.5, "rockets fly high"), line(5, "rockets land softly"), line(9, "rockets again soon")}
	path := splitPath()
	ps, split := planZooms(lines, captions.KeywordKeys([]string{"rockets"}), nil, path, 404, 720)
	if split != 1 || len(ps) != 2 || ps[0].From != 0.5 || ps[1].From != 9 {
		t.Fatalf("punch-ins %+v, %d left out for the split", ps, split)
	}
	for _, p := range ps {
		if splitDuring(path, p.From, p.To) || p.Zoom > zoomMax {
			t.Errorf("punch-in %+v", p)
		}
	}
	j := Job{SrcW: 1280, SrcH: 720, Width: 540, Height: 960}
	graph := reframeFilter(j, path, ps)
	runs := strings.Split(graph, ";[rs")
	if len(runs) != 4 || strings.Count(graph, "zoompan") != 2 || !strings.Contains(runs[1], "zoompan") || strings.Contains(runs[2], "zoompan") ||
		!strings.Contains(runs[3], "zoompan") || !strings.Contains(runs[2], "vstack") {
		t.Errorf("filter %s", graph)
	}
}

// TestFacesGrowWithThePunchIn: a face shown during a punch-in grows about
// the point held still, by the zoom then; one shown outside does not.
func TestFacesGrowWithThePunchIn(t *testing.T) {
	ps := []punch{{From: 1, To: 3, Zoom: 1.1, PX: 100, PY: 200}}
	face := captions.FaceBox{Start: 2, End: 2.25, Box: image.Rect(50, 100, 150, 300), Features: image.Rect(60, 150, 140, 280)}
	later := face
	later.Start, later.End = 4, 4.25
	got := zoomFaces([]captions.FaceBox{face, later}, ps, 2, image.Rect(0, 0, 540, 960))
	// The point held, (100, 200) in the window's source pixels, is
	// (200, 400) in the output's; the box grows by 1.1 about it.
	if want := image.Rect(35, 70, 145, 290); got[0].Box != want {
		t.Errorf("box %v, want %v", got[0].Box, want)
	}
	if got[1] != later {
		t.Errorf("a face after the punch-in changed: %+v", got[1])
	}
}
