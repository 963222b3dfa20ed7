package transcribe

import (
	"fmt"
	"strings"
	"testing"

	"hookline.dev/pkg/media/videosite"
	"hookline.dev/services/clips/internal/moments"
)

// matched marks the words of hyp that the best alignment with ref (the
// fewest substitutions, deletions and insertions) pairs with an equal
// word of ref.
func matched(ref, hyp []string) []bool {
	d := make([][]int, len(ref)+1)
	for i := range d {
		d[i] = make([]int, len(hyp)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ref); i++ {
		for j := 1; j <= len(hyp); j++ {
			sub := d[i-1][j-1]
			if ref[i-1] != hyp[j-1] {
				sub++
			}
			d[i][j] = min(sub, d[i-1][j]+1, d[i][j-1]+1)
		}
	}
	out := make([]bool, len(hyp))
	for i, j := len(ref), len(hyp); i > 0 && j > 0; {
		switch {
		case ref[i-1] == hyp[j-1] && d[i][j] == d[i-1][j-1]:
			out[j-1] = true
			i, j = i-1, j-1
		case d[i][j] == d[i-1][j-1]+1:
			i, j = i-1, j-1
		case d[i][j] == d[i-1][j]+1:
			i--
		default:
			j--
		}
	}
	return out
}

// TestThresholdsOnRealSpeech re-checks on recorded speech what was tuned
// on pocketsphinx and espeak: moments.MinConfidence (the confidence a word
// needs for titles, hooks, keywords and the content type) and the
// transcript quality built on it. Each row is a real recording with what
// its transcript must be; over all rows, the words Moonshine hears at
// MinConfidence or more must be right (the aligned reference word) at
// least 95 % of the time, and at least 80 % of the words must reach it, so
// that the threshold keeps the wrong words out without throwing away the
// talk.
func TestThresholdsOnRealSpeech(t *testing.T) {
	if testing.Short() {
		t.Skip("recognises two minutes of speech")
	}
	s := requireSpeech(t)
	dir := t.TempDir()
	all := prompts(t, s.eval, 1)
	text := map[string]string{}
	for _, p := range all {
		text[p.name] = p.text
	}
	sure, sureRight, words := 0, 0, 0
	for _, row := range []struct {
		name, what string
	}{
		{"demo-congrats", "a long explanation, names (Asterisk, PBX)"},
		{"demo-echotest", "a long explanation"},
		{"demo-moreinfo", "names and an address (www.asterisk.org)"},
		{"basic-pbx-ivr-main", "a menu with numbers and a company name"},
		{"conf-adminmenu-menu8", "digits between instructions"},
		{"priv-callee-options", "a list of choices with quoted words"},
		{"queue-periodic-announce", "a short announcement"},
		{"vm-msginstruct", "a run of short instructions"},
		{"dir-intro", "letters and key names"},
		{"tt-allbusy", "a joke in a flat voice"},
		{"vm-newuser", "a greeting with a product name"},
		{"ss-noservice", "a short sentence pair"},
	} {
		t.Run(row.name, func(t *testing.T) {
			segs := hearPrompt(t, s, row.name, promptWAV(t, s.eval, dir, row.name))
			var hyp []string
			var conf []float64
			for _, sg := range segs {
				for _, w := range sg.Words {
					for _, n := range normalWords(w.Text) {
						hyp, conf = append(hyp, n), append(conf, w.Confidence)
					}
				}
			}
			right := matched(normalWords(text[row.name]), hyp)
			for i := range hyp {
				words++
				if conf[i] >= moments.MinConfidence {
					sure++
					if right[i] {
						sureRight++
					}
				}
			}
			q := moments.Rank(moments.Input{Segments: segs}).Analysis.TranscriptQuality
			if q != moments.QualityHigh {
				t.Errorf("%s (%s): transcript quality %q: %s", row.name, row.what, q, heardWith(segs))
			}
		})
	}
	precision, share := float64(sureRight)/float64(max(1, sure)), float64(sure)/float64(max(1, words))
	t.Logf("%d words; %.1f %% at confidence %.2f or more, of which %.1f %% right", words, 100*share, moments.MinConfidence, 100*precision)
	if precision < 0.95 || share < 0.8 {
		t.Errorf("at MinConfidence %.2f: %.1f %% of the words kept, %.1f %% of them right; want ≥ 80 %% kept, ≥ 95 %% right",
			moments.MinConfidence, 100*share, 100*precision)
	}
}

// heardWith lists a transcript's words with their confidence.
func heardWith(segs []videosite.Segment) string {
	var b strings.Builder
	for _, s := range segs {
		for _, w := range s.Words {
			fmt.Fprintf(&b, "%s (%.2f) ", w.Text, w.Confidence)
		}
	}
	return b.String()
}
