package transcribe

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// tones builds 16-bit audio of bursts (seconds of a 200 Hz tone) and
// pauses (negative seconds of faint noise).
func tones(parts ...float64) []byte {
	var out []byte
	for _, p := range parts {
		n := int(math.Abs(p) * moonshineRate)
		for i := range n {
			v := 0.0005 * math.Sin(float64(i)*1.7) // the room
			if p > 0 {
				v = 0.3 * math.Sin(2*math.Pi*200*float64(i)/moonshineRate)
			}
			out = binary.LittleEndian.AppendUint16(out, uint16(int16(v*32767))) //nolint:gosec // G115: within -1..1
		}
	}
	return out
}

func TestSpeechSpansBridgeShortPausesAndSplitLongOnes(t *testing.T) {
	spans := speechSpans(tones(-1, 2, -0.2, 2, -3, 1.5, -1), moonshineRate)
	sec := func(i int) float64 { return float64(i) / moonshineRate }
	if len(spans) != 2 {
		t.Fatalf("spans %v, want the first two bursts as one and the third after the 3 s pause", spans)
	}
	if math.Abs(sec(spans[0].start)-(1-vadPad)) > 0.03 || math.Abs(sec(spans[0].end)-(5.2+vadPad)) > 0.03 ||
		math.Abs(sec(spans[1].start)-(8.2-vadPad)) > 0.03 || math.Abs(sec(spans[1].end)-(9.7+vadPad)) > 0.03 {
		t.Errorf("spans %.2f–%.2f and %.2f–%.2f", sec(spans[0].start), sec(spans[0].end), sec(spans[1].start), sec(spans[1].end))
	}
}

func TestSpeechSpansJoinUpToTheLimitAndCutUnbrokenSpeech(t *testing.T) {
	// Bursts of 6 s with 1 s pauses join into segments of at most
	// maxSegment; 50 s without a pause is cut into pieces that fit.
	for _, audio := range [][]byte{tones(6, -1, 6, -1, 6, -1, 6, -1, 6), tones(-0.5, 50, -0.5)} {
		spans := speechSpans(audio, moonshineRate)
		covered := 0
		for i, s := range spans {
			if d := float64(s.end-s.start) / moonshineRate; d > maxSegment || d <= 0 {
				t.Errorf("span %d is %.1f s", i, d)
			}
			if i > 0 && s.start < spans[i-1].end {
				t.Errorf("span %d overlaps the one before", i)
			}
			covered += s.end - s.start
		}
		if len(spans) < 2 || float64(covered)/moonshineRate < float64(len(audio)/2)/moonshineRate-3 {
			t.Errorf("%d spans covering %.1f of %.1f s", len(spans), float64(covered)/moonshineRate, float64(len(audio)/2)/moonshineRate)
		}
	}
	if spans := speechSpans(tones(-3), moonshineRate); len(spans) != 0 {
		t.Errorf("silence gave spans %v", spans)
	}
}

func TestFillGapsPlacesUnalignedWordsBetweenTheirNeighbours(t *testing.T) {
	words := []string{"at", "22", "o'clock", "sharp", "Xq"}
	times := []Timing{{0.5, 0.7}, {}, {}, {2.0, 2.4}, {}}
	fillGaps(times, []bool{true, false, false, true, false}, words, 3)
	want := []Timing{{0.5, 0.7}, {0.7, 0.7 + 1.3*2/9}, {0.7 + 1.3*2/9, 2.0}, {2.0, 2.4}, {2.4, 3}}
	for i := range want {
		if math.Abs(times[i].Start-want[i].Start) > 1e-9 || math.Abs(times[i].End-want[i].End) > 1e-9 {
			t.Errorf("word %d %+v, want %+v", i, times[i], want[i])
		}
	}
}

// The split read from a file as a stream is the split of the same audio
// in memory, also when the data chunk claims more than the file holds
// (a writer that never went back to fill in the size).
func TestWAVSpeechSpansStreamed(t *testing.T) {
	audio := tones(-1, 2, -0.2, 2, -3, 1.5, -1, 25, -2)
	path := filepath.Join(t.TempDir(), "a.wav")
	if err := writeWAV(path, moonshineRate, audio); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(b[40:], 0xFFFFFFFF)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := openWAV(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Close() }()
	if w.samples != len(audio)/2 {
		t.Fatalf("%d samples, want %d", w.samples, len(audio)/2)
	}
	got, err := wavSpeechSpans(w)
	if err != nil {
		t.Fatal(err)
	}
	if want := speechSpans(audio, moonshineRate); !reflect.DeepEqual(got, want) || len(got) < 3 {
		t.Errorf("streamed %v, in memory %v", got, want)
	}
	pcm, err := w.pcm(got[1].start, got[1].end)
	if err != nil || !bytes.Equal(pcm, audio[2*got[1].start:2*got[1].end]) {
		t.Errorf("a segment's samples read from the file differ (%v)", err)
	}
}
