package exports_test

import (
	"encoding/xml"
	"strings"
	"testing"

	"hookline.dev/services/clips/internal/exports"
)

// cut is a 10 s clip at 62.5 s of a 1280x720 source with two jump cuts
// (1.0–1.5 s and 4.0–6.0 s), a 2 s end card and a crop path that moves
// once.
var cut = exports.Cut{Title: "Best <moment> & more", Source: "source.mp4", SrcW: 1280, SrcH: 720, OutW: 720, OutH: 1280, FPS: 30,
	Start: 62.5, End: 72.5, Removed: []exports.Span{{From: 1, To: 1.5}, {From: 4, To: 6}}, EndCard: 2,
	Crop: []exports.Window{{T: 0, X: 0, W: 405, H: 720}, {T: 5, X: 875, W: 405, H: 720}}}

func TestPiecesAreTheKeptStretchesOnTheFrameGrid(t *testing.T) {
	got := cut.Pieces()
	want := []exports.Piece{{SrcIn: 1875, SrcOut: 1905, RecIn: 0, RecOut: 30}, {SrcIn: 1920, SrcOut: 1995, RecIn: 30, RecOut: 105},
		{SrcIn: 2055, SrcOut: 2175, RecIn: 105, RecOut: 225}}
	if len(got) != len(want) {
		t.Fatalf("pieces %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("piece %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if n := cut.Frames(); n != 225+60 {
		t.Errorf("Frames = %d, want the 7.5 s kept and the 2 s card: 285", n)
	}
}

func TestEDL(t *testing.T) {
	edl := string(exports.EDL(cut))
	for _, line := range []string{
		"TITLE: Best <moment> & more",
		"001  AX       AA/V  C        00:01:02:15 00:01:03:15 00:00:00:00 00:00:01:00",
		"002  AX       AA/V  C        00:01:04:00 00:01:06:15 00:00:01:00 00:00:03:15",
		"003  AX       AA/V  C        00:01:08:15 00:01:12:15 00:00:03:15 00:00:07:15",
		"* END CARD (GENERATED): 00:00:07:15 00:00:09:15",
	} {
		if !strings.Contains(edl, line+"\n") {
			t.Errorf("the EDL lacks %q:\n%s", line, edl)
		}
	}
}

func TestFCPXML(t *testing.T) {
	b, err := exports.FCPXML(cut)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version string `xml:"version,attr"`
		Seq     struct {
			Duration string `xml:"duration,attr"`
			Clips    []struct {
				Offset   string `xml:"offset,attr"`
				Start    string `xml:"start,attr"`
				Duration string `xml:"duration,attr"`
				Keys     []struct {
					Time  string `xml:"time,attr"`
					Value string `xml:"value,attr"`
				} `xml:"adjust-transform>param>keyframeAnimation>keyframe"`
			} `xml:"spine>asset-clip"`
			Gap struct {
				Offset   string `xml:"offset,attr"`
				Duration string `xml:"duration,attr"`
			} `xml:"spine>gap"`
		} `xml:"library>event>project>sequence"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if doc.Version != "1.10" || doc.Seq.Duration != "285/30s" || len(doc.Seq.Clips) != 3 || doc.Seq.Gap.Offset != "225/30s" || doc.Seq.Gap.Duration != "60/30s" {
		t.Fatalf("document:\n%s", b)
	}
	if testing.Verbose() {
		t.Logf("%s", b)
	}
	c := doc.Seq.Clips[2]
	if c.Offset != "105/30s" || c.Start != "2055/30s" || c.Duration != "120/30s" {
		t.Errorf("third clip %+v", c)
	}
	// The window moves at 5 s of the render (frame 150, source frame
	// 2055+45): from the left edge (centre 202.5 px, 437.5 px or 60.76 % of the
	// height right of the source's centre) to the right edge.
	if len(c.Keys) != 2 || c.Keys[0].Value != "60.7639 0" || c.Keys[1].Time != "2100/30s" || c.Keys[1].Value != "-60.7639 0" {
		t.Errorf("third clip's keyframes %+v", c.Keys)
	}
	if !strings.Contains(string(b), `name="Best &lt;moment&gt; &amp; more 1"`) {
		t.Errorf("the title is not escaped:\n%s", b)
	}
}
