package ffrender_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"hookline.dev/pkg/ai/nlp"
	"hookline.dev/pkg/testkit"
	"hookline.dev/services/clips/internal/captions"
	"hookline.dev/services/clips/internal/ffrender"
	"hookline.dev/services/clips/internal/mediatest"
)

// talkWithPauses is a talk with three 2 s silences and four "um"s, each
// um between two 0.1 s breaths.
var talkWithPauses = []mediatest.Phrase{
	{Text: "Welcome to the launch review", Pause: 0.25},
	{Text: "we built the rocket in two years", Pause: 2},
	{Text: "the engines passed every test", Pause: 0.1},
	{Text: "um", Pause: 0.1},
	{Text: "and the first flight went well", Pause: 2},
	{Text: "the landing was harder", Pause: 0.1},
	{Text: "um", Pause: 0.1},
	{Text: "than anyone expected", Pause: 0.25},
	{Text: "so we changed the legs", Pause: 0.1},
	{Text: "um", Pause: 0.1},
	{Text: "and the valves", Pause: 2},
	{Text: "next year", Pause: 0.1},
	{Text: "um", Pause: 0.1},
	{Text: "we fly again", Pause: 0.3},
}

// TestJumpCuts renders the talk with removeSilences, then with
// removeFillers too: each 2 s silence keeps 0.15 s (5.55 s removed), the
// ums go as well; the MP4 is as much shorter; the SRT has every word of
// the script but the ums; and every caption starts where its speech does
// in the cut audio (a phrase's first caption where the energy rises
// after the kept pause, within 150 ms).
func TestJumpCuts(t *testing.T) {
	mediatest.Require(t)
	dir := t.TempDir()
	wav, spoken := mediatest.Talk(t, dir, talkWithPauses, "en-us", 165)
	length := spoken[len(spoken)-1].End + 0.3
	src := mediatest.Video(t, dir, mediatest.VideoSpec{Width: 320, Height: 180, Scenes: []mediatest.Scene{{Colour: "testsrc2", Seconds: length}}, Audio: wav})
	var words []captions.Word
	ums := 0.0
	for _, w := range spoken {
		words = append(words, captions.Word{Start: w.Start, End: w.End, Text: w.Text})
		if w.Text == "um" {
			ums += w.End - w.Start
		}
	}
	r := &ffrender.Renderer{Preset: "ultrafast"}
	render := func(name string, fillers bool) ffrender.Result {
		job := ffrender.Job{Source: src, SrcW: 320, SrcH: 180, HasAudio: true, Start: 0, End: length, Width: 320, Height: 180,
			Dir: filepath.Join(dir, name), Text: captions.Spec{Style: captions.Clean, Words: words}, ProgressBar: true,
			RemoveSilences: true, RemoveFillers: fillers}
		if err := os.MkdirAll(job.Dir, 0o700); err != nil {
			t.Fatal(err)
		}
		res, err := r.Render(context.Background(), job, func(string, float64) {})
		if err != nil {
			t.Fatal(err)
		}
		if d := probe(t, res.Output).Duration; math.Abs(d-(length-res.SecondsRemoved)) > 0.12 {
			t.Errorf("%s: the MP4 lasts %.2f s, want %.2f - %.2f removed", name, d, length, res.SecondsRemoved)
		}
		return res
	}
	silences := render("silences", false)
	if want := 3 * (2 - 0.15); math.Abs(silences.SecondsRemoved-want) > 0.3 {
		t.Errorf("removeSilences removed %.2f s, want %.2f ± 0.3 (three 2 s pauses kept at 0.15 s)", silences.SecondsRemoved, want)
	}
	both := render("both", true)
	if want := 3*(2-0.15) + ums; math.Abs(both.SecondsRemoved-want) > 0.3 {
		t.Errorf("removeSilences+removeFillers removed %.2f s, want %.2f ± 0.3 (and the ums, %.2f s)", both.SecondsRemoved, want, ums)
	}
	t.Logf("removed: silences %.2f s; silences and fillers %.2f s (the four ums last %.2f s)", silences.SecondsRemoved, both.SecondsRemoved, ums)

	var script []mediatest.Word
	for _, w := range spoken {
		if w.Text != "um" {
			script = append(script, w)
		}
	}
	cues := readSRT(t, both.SRT)
	texts := make([]string, len(script))
	for i, w := range script {
		texts[i] = w.Text
	}
	if got, want := tokens(cues), nlp.Tokens(strings.Join(texts, " ")); !slices.Equal(got, want) {
		t.Fatalf("the SRT's words\n%v\nwant the script's\n%v", got, want)
	}
	db := audioLevels(t, both.Output)
	thr := levelThreshold(db)
	loud := func(from, to float64) (float64, bool) { // the first loud frame from..to
		for i := max(0, int(from*100)); i < len(db) && float64(i)/100 <= to; i++ {
			if db[i] > thr {
				return float64(i) / 100, true
			}
		}
		return 0, false
	}
	k := 0
	for _, c := range cues {
		first := script[k].First
		k += len(nlp.Tokens(c.text))
		if !first {
			if _, ok := loud(c.start, c.start+0.15); !ok {
				t.Errorf("cue %q at %.2f s: no speech within 150 ms", c.text, c.start)
			}
			continue
		}
		// The energy rises after the kept pause (0.1 s quiet, then loud)
		// within 150 ms of the start.
		rise := -1.0
		if c.start < 0.15 && db[0] > thr { // the clip opens on speech
			rise = 0
		}
		for i := max(1, int((c.start-0.15)*100)); rise < 0 && i < len(db) && float64(i)/100 <= c.start+0.15; i++ {
			if db[i] > thr && quietBefore(db, i, thr) {
				rise = float64(i) / 100
			}
		}
		if rise < 0 {
			t.Errorf("cue %q at %.2f s: the speech does not start within 150 ms", c.text, c.start)
		}
	}
	if examples := testkit.ExamplesDirIfAsked(t); examples != "" {
		// The waveform before (the source) and after the cuts, to scale.
		run(t, "ffmpeg", "-v", "error", "-y", "-i", src, "-i", both.Output, "-filter_complex",
			fmt.Sprintf("[0:a]showwavespic=s=1200x160:scale=cbrt:colors=0x3080ff[a];[1:a]apad=whole_dur=%.2f,showwavespic=s=1200x160:scale=cbrt:colors=0xffa020[b];[a][b]vstack", length),
			"-frames:v", "1", filepath.Join(examples, "jumpcut-waveforms.png"))
	}
}

type cue struct {
	start, end float64
	text       string
}

// readSRT reads an SRT file's cues.
func readSRT(t *testing.T, file string) []cue {
	t.Helper()
	b, err := os.ReadFile(file) //nolint:gosec // G304: the test's own file
	if err != nil {
		t.Fatal(err)
	}
	var out []cue
	for _, block := range strings.Split(strings.TrimSpace(string(b)), "\n\n") {
		lines := strings.Split(block, "\n")
		if len(lines) < 3 {
			t.Fatalf("bad SRT block %q", block)
		}
		from, to, _ := strings.Cut(lines[1], " --> ")
		out = append(out, cue{start: srtTime(t, from), end: srtTime(t, to), text: strings.Join(lines[2:], " ")})
	}
	return out
}

// tokens are the words of cues, in order.
func tokens(cues []cue) []string {
	var out []string
	for _, c := range cues {
		out = append(out, nlp.Tokens(c.text)...)
	}
	return out
}

func srtTime(t *testing.T, s string) float64 {
	var h, m, sec, ms int
	if _, err := fmt.Sscanf(strings.TrimSpace(s), "%d:%d:%d,%d", &h, &m, &sec, &ms); err != nil {
		t.Fatalf("SRT time %q: %v", s, err)
	}
	return float64(h*3600+m*60+sec) + float64(ms)/1000
}

// audioLevels is the loudness (dBFS) of file's audio per 10 ms.
func audioLevels(t *testing.T, file string) []float64 {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "ffmpeg", "-v", "error", "-i", file, "-vn", "-ac", "1", "-ar", "16000", "-f", "s16le", "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	var db []float64
	for i := 0; i+320 <= len(out); i += 320 {
		sum := 0.0
		for k := i; k < i+320; k += 2 {
			v := float64(int16(binary.LittleEndian.Uint16(out[k:]))) / 32768 //nolint:gosec // G115: a sample's bits
			sum += v * v
		}
		db = append(db, 10*math.Log10(sum/160+1e-10))
	}
	return db
}

// levelThreshold is a level 30 dB under the audio's peaks: speech above.
func levelThreshold(db []float64) float64 {
	s := slices.Clone(db)
	slices.Sort(s)
	return s[len(s)*95/100] - 30
}

// quietBefore reports whether the 0.1 s before frame i are quiet.
func quietBefore(db []float64, i int, thr float64) bool {
	for k := max(0, i-10); k < i; k++ {
		if db[k] > thr {
			return false
		}
	}
	return i >= 10
}
