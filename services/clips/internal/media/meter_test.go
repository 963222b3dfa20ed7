package media_test

import (
	"encoding/binary"
	"math"
	"testing"

	"hookline.dev/services/clips/internal/facetrack"
	"hookline.dev/services/clips/internal/media"
)

// tone is s16le PCM of a 200 Hz sine of amplitude amp (0..1) for sec
// seconds at rate, silent from silentFrom seconds on.
func tone(rate int, sec, amp, silentFrom float64) []byte {
	n := int(sec * float64(rate))
	b := make([]byte, 2*n)
	for i := range n {
		v := 0.0
		if float64(i)/float64(rate) < silentFrom {
			v = amp * math.Sin(2*math.Pi*200*float64(i)/float64(rate))
		}
		binary.LittleEndian.PutUint16(b[2*i:], uint16(int16(math.Round(v*32767)))) //nolint:gosec // G115: a sample's bits
	}
	return b
}

// The meter gives a sine's RMS level (amplitude/√2) at every sample up to
// the silence, −100 after it, however the PCM is chunked.
func TestMeterLoudness(t *testing.T) {
	pcm := tone(8000, 3, 0.5, 2)
	whole := media.SpeechMeter(8000)
	_, _ = whole.Write(pcm)
	chunked := media.SpeechMeter(8000)
	for rest := pcm; len(rest) > 0; {
		k := min(len(rest), 777) // odd: samples split between writes
		_, _ = chunked.Write(rest[:k])
		rest = rest[k:]
	}
	db, again := whole.Loudness(), chunked.Loudness()
	if len(db) != 3*facetrack.FPS || len(again) != len(db) {
		t.Fatalf("%d and %d samples for 3 s, want %d", len(db), len(again), 3*facetrack.FPS)
	}
	want := 20 * math.Log10(0.5/math.Sqrt2)
	for i, d := range db {
		if d != again[i] {
			t.Errorf("sample %d: %.3f whole, %.3f chunked", i, d, again[i])
		}
		switch at := float64(i) / facetrack.FPS; {
		case at < 2-facetrack.EnergyWindow && math.Abs(d-want) > 0.2:
			t.Errorf("%.2f s: %.2f dBFS, want %.2f", at, d, want)
		case at > 2+facetrack.EnergyWindow && d != -100:
			t.Errorf("%.2f s: %.2f dBFS in the silence", at, d)
		}
	}
	if e := facetrack.Energy(db); e[0] != 1 || e[len(e)-1] != 0 {
		t.Errorf("energy %v: want 1 in the tone, 0 in the silence", e)
	}
}

// sine is s16le PCM of a sine of f Hz and amplitude amp for sec seconds
// at rate.
func sine(rate int, f, sec, amp float64) []byte {
	b := make([]byte, 2*int(sec*float64(rate)))
	for i := range len(b) / 2 {
		v := amp * math.Sin(2*math.Pi*f*float64(i)/float64(rate))
		binary.LittleEndian.PutUint16(b[2*i:], uint16(int16(math.Round(v*32767)))) //nolint:gosec // G115: a sample's bits
	}
	return b
}

// The K-weighted meter at clips' 8 kHz reads BS.1770's reference: a
// 997 Hz sine at −20 dBFS is −23.0 LUFS; the silence after it and a
// whisper under the gates leave the clip's integrated loudness alone;
// a silent clip has none. (The blocks that straddle the tone's end pass
// the gates and pull the longer spans a little under.)
func TestIntegratedLoudness(t *testing.T) {
	m := media.LoudnessMeter(8000)
	_, _ = m.Write(sine(8000, 997, 5, 0.1))
	_, _ = m.Write(make([]byte, 2*8000*3))
	_, _ = m.Write(sine(8000, 997, 2, 0.001)) // −60 dBFS: under the relative gate
	_, _ = m.Write(make([]byte, 2*8000*2))
	s := &facetrack.Samples{}
	for _, db := range m.Loudness() {
		s.Weighted = append(s.Weighted, db-0.691)
	}
	if len(s.Weighted) != 120 {
		t.Fatalf("%d steps of loudness for 12 s, want 120", len(s.Weighted))
	}
	for _, span := range [][2]float64{{0, 5}, {0, 12}, {1, 10}} {
		if lufs, ok := s.Integrated(span[0], span[1]); !ok || math.Abs(lufs+23) > 0.2 {
			t.Errorf("%v s: %.2f LUFS (%v), want −23.0", span, lufs, ok)
		}
	}
	if lufs, ok := s.Integrated(10, 12); ok {
		t.Errorf("silence measured %.2f LUFS", lufs)
	}
	if _, ok := s.Integrated(5, 13); ok {
		t.Error("a span past the loudness measured")
	}
}
