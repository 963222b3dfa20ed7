package ffrender_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hookline.dev/services/clips/internal/captions"
	"hookline.dev/services/clips/internal/ffrender"
	"hookline.dev/services/clips/internal/media"
	"hookline.dev/services/clips/internal/mediatest"
	"hookline.dev/services/clips/internal/render"
)

// countingFFmpeg is an ffmpeg that appends its arguments to a log, one
// line a run, before running the real one.
func countingFFmpeg(t *testing.T, dir string) (bin string, runs func() []string) {
	t.Helper()
	log := filepath.Join(dir, "ffmpeg.log")
	bin = filepath.Join(dir, "ffmpeg")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho \"$*\" >> "+log+"\nexec ffmpeg \"$@\"\n"), 0o700); err != nil { //nolint:gosec // G306: a script to run
		t.Fatal(err)
	}
	return bin, func() []string {
		b, err := os.ReadFile(log) //nolint:gosec // G304: our temp file
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		_ = os.Remove(log)
		return strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(b)), " ", "_"))
	}
}

// TestPreparedSamplesStandForTracking: a render of a source whose faces
// were sampled during its preparation (media.Analyze with a sampler)
// runs ffmpeg once, for the encode, and its crop path follows the
// speaker as one tracked at render time does, within a few pixels; its
// loudness is normalised by one gain from the loudness measured in
// preparation rather than by loudnorm, to the same −14 LUFS.
func TestPreparedSamplesStandForTracking(t *testing.T) {
	mediatest.Require(t)
	dir := t.TempDir()
	r, model := speakerRenderer(t)
	talk, samples := twoPersonTalk(t, r, model, 0)
	info := probe(t, talk.File)
	var bin string
	var runs func() []string
	bin, runs = countingFFmpeg(t, dir)
	r.FFmpeg = media.FFmpeg{Bin: bin}
	// The crop path (source pixels), the ffmpeg runs and the loudness do
	// not depend on the output's size: a small one spares the encodes.
	job := ffrender.Job{Source: talk.File, SrcW: info.Width, SrcH: info.Height, HasAudio: true, Start: 1.5, End: talk.Seconds - 0.5,
		Width: 270, Height: 480, Layout: render.LayoutSpeaker, Text: captions.Spec{Style: captions.Bold, Words: words("one two three", 0.5, 0.4)}}

	job.Dir = filepath.Join(dir, "decoded")
	decoded := renderJob(t, r, job)
	if n := runs(); decoded.Tracking != ffrender.Decoded || len(n) != 3 || !strings.Contains(n[2], "loudnorm") {
		t.Fatalf("without samples: tracking %q in ffmpeg runs %v, want decoded in 3 (frames, sound, encode with loudnorm)", decoded.Tracking, n)
	}
	job.Dir, job.Samples = filepath.Join(dir, "prepared"), samples
	prepared := renderJob(t, r, job)
	if n := runs(); prepared.Tracking != ffrender.Prepared || len(n) != 1 || strings.Contains(n[0], "loudnorm") || !strings.Contains(n[0], "volume=") {
		t.Fatalf("with samples: tracking %q in ffmpeg runs %v, want prepared in the encode alone, normalised by one gain", prepared.Tracking, n)
	}
	// Either way the clip comes out at −14 LUFS.
	for _, out := range []string{decoded.Output, prepared.Output} {
		if lufs := loudness(t, out); math.Abs(lufs+14) > 1 {
			t.Errorf("%s: integrated loudness %.1f LUFS, want -14 ± 1", out, lufs)
		}
	}
	// The decode may end a sample early, on the clip's last frame.
	if d := len(prepared.Crop) - len(decoded.Crop); d > 1 || d < -1 {
		t.Fatalf("%d crop points from the samples, %d from tracking", len(prepared.Crop), len(decoded.Crop))
	}
	far := 0
	for i, p := range prepared.Crop[:min(len(prepared.Crop), len(decoded.Crop))] {
		if d := p.X - decoded.Crop[i].X; d > 8 || d < -8 {
			far++
			t.Logf("%.2f s: x %d from the samples, %d from tracking", p.T, p.X, decoded.Crop[i].X)
		}
	}
	lo, hi := prepared.Crop[0].X, prepared.Crop[0].X
	for _, p := range prepared.Crop {
		lo, hi = min(lo, p.X), max(hi, p.X)
	}
	if hi-lo < info.Width/4 {
		t.Errorf("the crop from the samples stayed within x %d..%d: it did not go from one speaker to the other", lo, hi)
	}
	if far > len(prepared.Crop)/50 {
		t.Errorf("%d of %d crop points more than 8 px from render-time tracking's", far, len(prepared.Crop))
	}
}
