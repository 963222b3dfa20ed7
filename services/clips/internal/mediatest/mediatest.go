// Package mediatest makes test media with the real tools: speech from a
// known script with espeak-ng (so the transcript and its timing are
// known), and H.264/AAC videos of coloured scenes with that speech and
// applause-like noise bursts at chosen times, with ffmpeg.
package mediatest

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"hookline.dev/pkg/ai/nlp"
)

// Require fails the test when a tool is missing: media tests never skip.
func Require(t testing.TB) {
	t.Helper()
	for _, bin := range []string{"ffmpeg", "ffprobe", "espeak-ng", "pocketsphinx_continuous"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s is not installed: run scripts/deps.sh media", bin)
		}
	}
}

// Span is a sentence of a script and where it is spoken, in seconds.
type Span struct {
	Start, End float64
	Text       string
}

// espeak writes 16-bit mono PCM at this rate.
const speechRate = 22050

// gap is the silence between sentences.
const gap = 0.4

// Speech speaks script sentence by sentence with espeak-ng (voice e.g.
// "en-us+f2", wpm words per minute) into one WAV in dir, with gap seconds
// of silence between sentences, and returns its path and each sentence's
// span.
func Speech(t testing.TB, dir, script, voice string, wpm int) (string, []Span) {
	t.Helper()
	var pcm []byte
	var spans []Span
	silence := make([]byte, 2*int(gap*speechRate))
	for i, s := range nlp.Sentences(script) {
		part := filepath.Join(dir, fmt.Sprintf("sentence-%03d.wav", i))
		run(t, "espeak-ng", "-v", voice, "-s", fmt.Sprint(wpm), "-w", part, s.Text)
		data := wavData(t, part)
		start := float64(len(pcm)) / 2 / speechRate
		pcm = append(pcm, data...)
		spans = append(spans, Span{Start: start, End: float64(len(pcm)) / 2 / speechRate, Text: s.Text})
		pcm = append(pcm, silence...)
	}
	out := filepath.Join(dir, "speech.wav")
	writeWAV(t, out, pcm, speechRate)
	return out, spans
}

// Apart joins two of Speech's recordings, a then b, with pause seconds of
// silence between, into one WAV in dir: audio much longer than what is
// said. It returns the WAV's path and the spans of both, b's moved to
// where it now starts.
func Apart(t testing.TB, dir, a string, aSpans []Span, b string, bSpans []Span, pause float64) (string, []Span) {
	t.Helper()
	pcm := append(wavData(t, a), make([]byte, 2*int(pause*speechRate))...)
	at := float64(len(pcm)) / 2 / speechRate
	spans := slices.Clone(aSpans)
	for _, s := range bSpans {
		spans = append(spans, Span{Start: s.Start + at, End: s.End + at, Text: s.Text})
	}
	out := filepath.Join(dir, "apart.wav")
	writeWAV(t, out, append(pcm, wavData(t, b)...), speechRate)
	return out, spans
}

// wavData returns the PCM of a WAV file's data chunk.
func wavData(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path) //nolint:gosec // G304: a test's own file
	if err != nil {
		t.Fatal(err)
	}
	for i := 12; i+8 <= len(b); {
		id, size := string(b[i:i+4]), int(binary.LittleEndian.Uint32(b[i+4:]))
		if id == "data" {
			return b[i+8 : min(len(b), i+8+size)]
		}
		i += 8 + size + size%2
	}
	t.Fatalf("%s: no data chunk", path)
	return nil
}

func writeWAV(t testing.TB, path string, pcm []byte, rate int) {
	t.Helper()
	h := make([]byte, 44)
	copy(h, "RIFF")
	binary.LittleEndian.PutUint32(h[4:], uint32(36+len(pcm))) //nolint:gosec // test audio is small
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1)              // PCM
	binary.LittleEndian.PutUint16(h[22:], 1)              // mono
	binary.LittleEndian.PutUint32(h[24:], uint32(rate))   //nolint:gosec // a sample rate
	binary.LittleEndian.PutUint32(h[28:], uint32(2*rate)) //nolint:gosec // a byte rate
	binary.LittleEndian.PutUint16(h[32:], 2)
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], uint32(len(pcm))) //nolint:gosec // test audio is small
	if err := os.WriteFile(path, append(h, pcm...), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Scene is a stretch of one picture: an ffmpeg colour ("navy", "#ff8800")
// or "testsrc2" (a moving test pattern).
type Scene struct {
	Colour  string
	Seconds float64
}

// VideoSpec describes a test video.
type VideoSpec struct {
	Width, Height int
	Scenes        []Scene
	// Audio is a WAV to use as the sound track ("" is a quiet tone); it is
	// cut or padded with silence to the scenes' length.
	Audio string
	// Bursts are the start times of loud white-noise bursts (applause-like)
	// of BurstSeconds each (default 1.5).
	Bursts       []float64
	BurstSeconds float64
	// NoAudio leaves the sound track out.
	NoAudio bool
}

// Video makes an H.264/AAC MP4 in dir from spec and returns its path.
func Video(t testing.TB, dir string, spec VideoSpec) string {
	t.Helper()
	if spec.Width == 0 {
		spec.Width, spec.Height = 640, 360
	}
	if spec.BurstSeconds == 0 {
		spec.BurstSeconds = 1.5
	}
	total := 0.0
	var args, chains, labels []string
	for i, s := range spec.Scenes {
		src := fmt.Sprintf("color=c=%s:s=%dx%d:r=25:d=%.3f", s.Colour, spec.Width, spec.Height, s.Seconds)
		if s.Colour == "testsrc2" {
			src = fmt.Sprintf("testsrc2=s=%dx%d:r=25:d=%.3f", spec.Width, spec.Height, s.Seconds)
		}
		args = append(args, "-f", "lavfi", "-i", src)
		labels = append(labels, fmt.Sprintf("[%d:v]", i))
		total += s.Seconds
	}
	chains = append(chains, fmt.Sprintf("%sconcat=n=%d:v=1:a=0,format=yuv420p[v]", strings.Join(labels, ""), len(spec.Scenes)))
	maps := []string{"-map", "[v]"}
	if !spec.NoAudio {
		n := len(spec.Scenes)
		if spec.Audio != "" {
			args = append(args, "-i", spec.Audio)
		} else {
			args = append(args, "-f", "lavfi", "-i", fmt.Sprintf("sine=f=220:d=%.3f", total))
		}
		mix := []string{fmt.Sprintf("[%d:a]aresample=44100,volume=0.5,apad[a0]", n)}
		ins := "[a0]"
		for k, b := range spec.Bursts {
			args = append(args, "-f", "lavfi", "-i", fmt.Sprintf("anoisesrc=color=white:amplitude=0.9:d=%.3f", spec.BurstSeconds))
			ms := int(b * 1000)
			mix = append(mix, fmt.Sprintf("[%d:a]aresample=44100,adelay=%d|%d[b%d]", n+1+k, ms, ms, k))
			ins += fmt.Sprintf("[b%d]", k)
		}
		mix = append(mix, fmt.Sprintf("%samix=inputs=%d:duration=first:normalize=0,atrim=0:%.3f[a]", ins, 1+len(spec.Bursts), total))
		chains = append(chains, mix...)
		maps = append(maps, "-map", "[a]", "-c:a", "aac", "-b:a", "96k")
	}
	out := filepath.Join(dir, fmt.Sprintf("video-%d.mp4", rand.Int64())) //nolint:gosec // a test file name
	args = append([]string{"-v", "error", "-y"}, args...)
	args = append(args, "-filter_complex", strings.Join(chains, ";"))
	args = append(args, maps...)
	args = append(args, "-c:v", "libx264", "-preset", "ultrafast", "-t", fmt.Sprintf("%.3f", total), "-movflags", "+faststart", out)
	run(t, "ffmpeg", args...)
	return out
}

// Corrupt writes a file that starts like an MP4 and is not one.
func Corrupt(t testing.TB, dir string) string {
	t.Helper()
	b := []byte("\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom")
	for range 64 << 10 {
		b = append(b, byte(rand.IntN(256))) //nolint:gosec // noise
	}
	out := filepath.Join(dir, "corrupt.mp4")
	if err := os.WriteFile(out, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}

func run(t testing.TB, bin string, args ...string) {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), bin, args...).CombinedOutput() //nolint:gosec // G204: a test's own command
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, out)
	}
}
