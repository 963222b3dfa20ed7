package transcript

import (
	"fmt"
	"strings"
	"testing"

	"hookline.dev/pkg/media/videosite"
)

// BenchmarkBuildHourWithVocabulary builds an hour's transcript (10,800
// words in 900 sentences) with a full vocabulary of 100 terms: the work of
// every GET, PATCH and render of such a project.
func BenchmarkBuildHourWithVocabulary(b *testing.B) {
	words := strings.Fields("so today we are going to look at the new camera settings and why the autofocus keeps hunting in low light")
	var segs []videosite.Segment
	at := 0.0
	for s := range 900 {
		seg := videosite.Segment{Start: at}
		for k := range 12 {
			w := words[(s*12+k)%len(words)]
			seg.Words = append(seg.Words, videosite.Word{Start: at, End: at + 0.3, Text: w, Confidence: 0.9})
			at += 0.33
		}
		seg.End = at
		segs = append(segs, seg)
		at += 0.4
	}
	terms := make([]string, 100)
	for i := range terms {
		terms[i] = fmt.Sprintf("Brandname%02d", i)
	}
	terms[7], terms[8] = "Autofocus Pro", "Lumetri"
	b.ResetTimer()
	for b.Loop() {
		Build(segs, Edits{Vocabulary: terms})
	}
}
