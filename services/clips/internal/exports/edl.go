package exports

import (
	"fmt"
	"strings"
)

// EDL is the cut as a CMX 3600 edit decision list: one cut event per kept
// piece on video and both audio channels (AA/V), the source in and out
// points against the record in and out points, the record side starting
// at 00:00:00:00 so it reads as the MP4's own time; non-drop timecode at
// the render's rate. The reel is AX (a file, not a tape) and a comment
// names the source file and the piece. The end card is generated, so it
// is a comment rather than an event; so is the crop path, which CMX 3600
// cannot carry (the FCPXML has it).
func EDL(c Cut) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "TITLE: %s\nFCM: NON-DROP FRAME\n\n", ascii(c.Title, 60))
	tc := func(n int) string { return Timecode(n, c.FPS) }
	pieces := c.Pieces()
	for k, p := range pieces {
		fmt.Fprintf(&b, "%03d  AX       AA/V  C        %s %s %s %s\n", (k+1)%1000, tc(p.SrcIn), tc(p.SrcOut), tc(p.RecIn), tc(p.RecOut))
		fmt.Fprintf(&b, "* FROM CLIP NAME: %s %d\n* SOURCE FILE: %s\n\n", ascii(c.Title, 50), k+1, ascii(c.Source, 60))
	}
	if end := c.frame(c.EndCard); end > 0 {
		at := 0
		if n := len(pieces); n > 0 {
			at = pieces[n-1].RecOut
		}
		fmt.Fprintf(&b, "* END CARD (GENERATED): %s %s\n", tc(at), tc(at+end))
	}
	return []byte(b.String())
}

// ascii is s in printable ASCII on one line, at most n characters: EDL
// readers take nothing else.
func ascii(s string, n int) string {
	out := []byte{}
	for _, r := range s {
		if len(out) == n {
			break
		}
		if r < 0x20 || r > 0x7e {
			r = '_'
		}
		out = append(out, byte(r))
	}
	return string(out)
}
