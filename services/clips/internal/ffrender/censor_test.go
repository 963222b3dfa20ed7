package ffrender_test

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"hookline.dev/services/clips/internal/captions"
	"hookline.dev/services/clips/internal/censor"
	"hookline.dev/services/clips/internal/ffrender"
	"hookline.dev/services/clips/internal/mediatest"
)

// swearing is a talk with two words of the built-in list ("shit",
// "bastard") among ordinary ones.
var swearing = []mediatest.Phrase{
	{Text: "we opened the box and found", Pause: 0.3},
	{Text: "nothing but shit inside it", Pause: 0.6},
	{Text: "the courier was a bastard about the refund", Pause: 0.3},
	{Text: "so we wrote to the company", Pause: 0.3},
}

// TestCensor renders the talk with censor bleep and with mute, the listed
// words' stretches given as the service finds them (censor.Builtin on
// the words): with bleep the MP4's audio over each listed word is a 1 kHz
// tone (its share of the energy there, by the Goertzel filter, near all
// of it, where the other words have little at 1 kHz); with mute it is
// near silence while the other words keep their level.
func TestCensor(t *testing.T) {
	mediatest.Require(t)
	dir := t.TempDir()
	wav, spoken := mediatest.Talk(t, dir, swearing, "en-us", 165)
	length := spoken[len(spoken)-1].End + 0.3
	src := mediatest.Video(t, dir, mediatest.VideoSpec{Width: 320, Height: 180, Scenes: []mediatest.Scene{{Colour: "testsrc2", Seconds: length}}, Audio: wav})
	var words []captions.Word
	texts := make([]string, len(spoken))
	for i, w := range spoken {
		words = append(words, captions.Word{Start: w.Start, End: w.End, Text: w.Text})
		texts[i] = w.Text
	}
	listed := censor.Builtin().Match(texts)
	var spans []ffrender.Span
	var bad, good []captions.Word
	for i, w := range words {
		if listed[i] {
			spans = append(spans, ffrender.Span{From: w.Start, To: w.End})
			bad = append(bad, w)
		} else if w.End-w.Start > 0.25 {
			good = append(good, w)
		}
	}
	if len(bad) != 2 {
		t.Fatalf("the list matched %v of the talk, want shit and bastard", bad)
	}
	r := &ffrender.Renderer{Preset: "ultrafast"}
	render := func(mode censor.Mode) []float64 {
		job := ffrender.Job{Source: src, SrcW: 320, SrcH: 180, HasAudio: true, Start: 0, End: length, Width: 320, Height: 180,
			Dir: filepath.Join(dir, string(mode)), Text: captions.Spec{Style: captions.Clean, Words: words}, Censor: mode, Censored: spans}
		if err := os.MkdirAll(job.Dir, 0o700); err != nil {
			t.Fatal(err)
		}
		res, err := r.Render(context.Background(), job, func(string, float64) {})
		if err != nil {
			t.Fatal(err)
		}
		return samples(t, res.Output)
	}
	// The middle of a word: recognisers' (and here the script's) word
	// edges are loose by a few tens of ms.
	inner := func(w captions.Word) ffrender.Span { return ffrender.Span{From: w.Start + 0.03, To: w.End - 0.03} }

	pcm := render(censor.Bleep)
	for _, w := range bad {
		share := toneShare(pcm, inner(w))
		t.Logf("bleep: %q %.2f–%.2f s: %.0f%% of the energy at 1 kHz", w.Text, w.Start, w.End, 100*share)
		if share < 0.8 {
			t.Errorf("bleep: %q at %.2f–%.2f s has %.0f%% of its energy at 1 kHz, want a tone over it (≥ 80%%)", w.Text, w.Start, w.End, 100*share)
		}
	}
	for _, w := range good {
		if share := toneShare(pcm, inner(w)); share > 0.3 {
			t.Errorf("bleep: %q at %.2f–%.2f s has %.0f%% of its energy at 1 kHz: the tone spilt over a word not listed", w.Text, w.Start, w.End, 100*share)
		}
	}

	pcm = render(censor.Mute)
	for _, w := range bad {
		db := rmsDB(pcm, inner(w))
		t.Logf("mute: %q %.2f–%.2f s: %.1f dBFS", w.Text, w.Start, w.End, db)
		if db > -50 {
			t.Errorf("mute: %q at %.2f–%.2f s is at %.1f dBFS, want near silence (< -50)", w.Text, w.Start, w.End, db)
		}
	}
	for _, w := range good {
		if db := rmsDB(pcm, inner(w)); db < -35 {
			t.Errorf("mute: %q at %.2f–%.2f s is at %.1f dBFS: a word not listed lost its sound", w.Text, w.Start, w.End, db)
		}
	}
}

// measureRate is the rate samples decodes at.
const measureRate = 16000

// samples is the audio of file, mono at measureRate, in [-1, 1].
func samples(t *testing.T, file string) []float64 {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", file, "-ac", "1", "-ar", "16000", "-f", "s16le", "-").Output()
	if err != nil {
		t.Fatalf("decoding %s: %v", file, err)
	}
	pcm := make([]float64, len(out)/2)
	for i := range pcm {
		pcm[i] = float64(int16(binary.LittleEndian.Uint16(out[2*i:]))) / 32768 //nolint:gosec // G115: a sample's bits
	}
	return pcm
}

func window(pcm []float64, s ffrender.Span) []float64 {
	a, b := max(0, int(s.From*measureRate)), min(len(pcm), int(s.To*measureRate))
	if b <= a {
		return nil
	}
	return pcm[a:b]
}

// toneShare is the share of the energy of pcm's stretch s that is at
// 1 kHz, by the Goertzel filter (a sine's power at one frequency,
// against the window's total).
func toneShare(pcm []float64, s ffrender.Span) float64 {
	x := window(pcm, s)
	if len(x) == 0 {
		return 0
	}
	w := 2 * math.Pi * 1000 / measureRate
	coeff := 2 * math.Cos(w)
	var s1, s2, energy float64
	for _, v := range x {
		s1, s2 = v+coeff*s1-s2, s1
		energy += v * v
	}
	power := s1*s1 + s2*s2 - coeff*s1*s2 // |X(1 kHz)|²
	if energy == 0 {
		return 0
	}
	// A sine of amplitude A over N samples has |X|² = (A·N/2)² and energy
	// A²·N/2: the share is |X|²·2/(N·energy).
	return power * 2 / (float64(len(x)) * energy)
}

// rmsDB is the level of pcm's stretch s in dBFS (-120 for silence).
func rmsDB(pcm []float64, s ffrender.Span) float64 {
	x := window(pcm, s)
	sum := 0.0
	for _, v := range x {
		sum += v * v
	}
	if len(x) == 0 || sum == 0 {
		return -120
	}
	return max(-120, 10*math.Log10(sum/float64(len(x))))
}
