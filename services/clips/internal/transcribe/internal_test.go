package transcribe

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"hookline.dev/pkg/media/videosite"
)

// The output of pocketsphinx_continuous -time yes on espeak-ng speech.
const sphinxOutput = `would you install solar panels on your roof
<s> 0.000 0.070 1.000000
[SPEECH] 0.080 0.180 0.415696
would 0.190 0.460 0.633844
you 0.470 0.590 0.996008
install 0.600 1.200 0.999300
<sil> 1.660 1.700 0.841878
++BREATH++ 1.700 1.750 0.5
your(2) 2.400 2.610 0.637021
</s> 3.130 3.560 1.000000
the weather
<s> 3.610 3.680 0.999600
the 3.690 3.800 0.9
weather 3.810 4.200 0.9
</s> 4.210 4.400 1.000000
<s> 5.000 5.100 1.000000
[NOISE] 5.100 5.500 0.2
</s> 5.500 5.600 1.000000
`

func TestParseSphinx(t *testing.T) {
	got, err := parseSphinx(strings.NewReader(sphinxOutput))
	if err != nil {
		t.Fatal(err)
	}
	want := []videosite.Segment{
		{Start: 0.19, End: 2.61, Text: "Would you install your.", Words: []videosite.Word{
			{Start: 0.19, End: 0.46, Text: "would", Confidence: 0.633844}, {Start: 0.47, End: 0.59, Text: "you", Confidence: 0.996008},
			{Start: 0.6, End: 1.2, Text: "install", Confidence: 0.9993}, {Start: 2.4, End: 2.61, Text: "your", Confidence: 0.637021},
		}},
		{Start: 3.69, End: 4.2, Text: "The weather.", Words: []videosite.Word{
			{Start: 3.69, End: 3.8, Text: "the", Confidence: 0.9}, {Start: 3.81, End: 4.2, Text: "weather", Confidence: 0.9},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

// TestSplit cuts 150 s of tone, silent for 0.3 s at 55 s and 118 s, into
// minute chunks: the cuts fall in the silences and the chunks add up to
// the original.
func TestSplit(t *testing.T) {
	dir := t.TempDir()
	const rate = 16000
	pcm := make([]byte, 2*150*rate)
	for i := range 150 * rate {
		s := float64(i) / rate
		if math.Abs(s-55) < 0.15 || math.Abs(s-118) < 0.15 {
			continue
		}
		binary.LittleEndian.PutUint16(pcm[2*i:], uint16(int16(8000*math.Sin(2*math.Pi*220*s))))
	}
	src := filepath.Join(dir, "src.wav")
	if err := writeWAV(src, rate, pcm); err != nil {
		t.Fatal(err)
	}
	chunks, err := split(src, dir, 60)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 3 || math.Abs(chunks[1].offset-55) >= 0.15 || math.Abs(chunks[2].offset-118) >= 0.15 {
		t.Fatalf("chunks %+v", chunks)
	}
	var joined []byte
	for _, c := range chunks {
		r, data, err := readWAV(c.path)
		if err != nil || r != rate {
			t.Fatal(r, err)
		}
		joined = append(joined, data...)
	}
	if !bytes.Equal(joined, pcm) {
		t.Error("the chunks do not add up to the original")
	}
	// Short audio is not copied.
	if err := writeWAV(src, rate, pcm[:2*70*rate]); err != nil {
		t.Fatal(err)
	}
	if chunks, err := split(src, dir, 60); err != nil || len(chunks) != 1 || chunks[0].path != src {
		t.Errorf("70 s: %+v %v", chunks, err)
	}
	if err := os.WriteFile(src, []byte("RIFF....WAVEjunk"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := split(src, dir, 60); err == nil {
		t.Error("a WAV without data split")
	}
}

// The dictionary keeps each word's lines, a variant listed apart from its
// word included, and a last line without its newline.
func TestDictionaryEntries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tiny.dict")
	if err := os.WriteFile(path, []byte("a AH\na's EY Z\na(2) EY\nab AE B\nab(2) EY B"), 0o600); err != nil {
		t.Fatal(err)
	}
	prons, err := (&SphinxAligner{Dict: path}).dictionary()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "a AH\na(2) EY\n", "a's": "a's EY Z\n", "ab": "ab AE B\nab(2) EY B\n"}
	if !reflect.DeepEqual(prons, want) {
		t.Fatalf("entries %q, want %q", prons, want)
	}
	if got := dictWords(prons, "A's,"); !reflect.DeepEqual(got, []string{"a's"}) {
		t.Fatalf("dictWords: %q", got)
	}
}
