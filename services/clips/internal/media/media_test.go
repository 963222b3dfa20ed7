package media_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/services/clips/internal/facetrack"
	"hookline.dev/services/clips/internal/media"
	"hookline.dev/services/clips/internal/mediatest"
)

// near reports whether xs holds a value within tol of x.
func near(xs []float64, x, tol float64) bool {
	for _, v := range xs {
		if math.Abs(v-x) <= tol {
			return true
		}
	}
	return false
}

// all reports whether every value of got is within tol of one of want
// and every want has one: the same events, nothing spurious.
func all(got, want []float64, tol float64) bool {
	if len(got) != len(want) {
		return false
	}
	for _, w := range want {
		if !near(got, w, tol) {
			return false
		}
	}
	return true
}

func scenes(spec ...any) []mediatest.Scene {
	var out []mediatest.Scene
	for i := 0; i+1 < len(spec); i += 2 {
		out = append(out, mediatest.Scene{Colour: spec[i].(string), Seconds: spec[i+1].(float64)})
	}
	return out
}

func TestAnalyzeFindsCutsBurstsAndSpeech(t *testing.T) {
	mediatest.Require(t)
	dir := t.TempDir()
	speech, spans := mediatest.Speech(t, dir, "Here is the first thing you need to know. And here is the second one.", "en-us+f2", 160)
	file := mediatest.Video(t, dir, mediatest.VideoSpec{
		Width: 320, Height: 180, Scenes: scenes("navy", 4.0, "testsrc2", 5.0, "orange", 4.0, "darkgreen", 5.0),
		Audio: speech, Bursts: []float64{14},
	})
	tools := media.Tools{}
	info, err := tools.Probe(context.Background(), file)
	if err != nil {
		t.Fatal(err)
	}
	if !info.HasVideo || !info.HasAudio || info.Width != 320 || info.Height != 180 || info.VideoCodec != "h264" ||
		info.AudioCodec != "aac" || math.Abs(info.FPS-25) > 0.01 || math.Abs(info.Duration-18) > 0.2 {
		t.Fatalf("info %+v", info)
	}
	var done []float64 // the share decoded, every 10 s of the 18
	sig, err := tools.Analyze(context.Background(), file, info, func(d float64) { done = append(done, d) })
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 1 || math.Abs(done[0]-10.0/18) > 0.02 {
		t.Errorf("progress reports %v, want one at 10 s of 18", done)
	}
	t.Logf("scenes %v peaks %v energy %.2f", sig.Scenes, sig.Peaks, sig.Energy)
	if !all(sig.Scenes, []float64{4, 9, 13}, 0.5) {
		t.Errorf("scenes %v, want 4, 9 and 13", sig.Scenes)
	}
	if !all(sig.Peaks, []float64{14}, 0.5) {
		t.Errorf("peaks %v, want one at 14", sig.Peaks)
	}
	if n := len(sig.Energy); sig.Step != 0.5 || math.Abs(float64(n)*sig.Step-18) > 1 {
		t.Fatalf("%d energy steps of %v s", n, sig.Step)
	}
	mean := func(a, b float64) float64 {
		s, n := 0.0, 0
		for i := int(a / sig.Step); i < int(b/sig.Step); i++ {
			s += sig.Energy[i]
			n++
		}
		return s / float64(n)
	}
	speaking := mean(spans[0].Start, spans[len(spans)-1].End)
	quiet := mean(spans[len(spans)-1].End+0.5, 13.5)
	if speaking <= quiet+0.2 {
		t.Errorf("energy while speaking %.2f, after the speech %.2f", speaking, quiet)
	}
}

// Steady motion (testsrc2), a cut between colours of nearly the same
// brightness and speech without noise give no spurious cuts or peaks.
func TestAnalyzeIgnoresMotionAndSpeech(t *testing.T) {
	mediatest.Require(t)
	dir := t.TempDir()
	speech, _ := mediatest.Speech(t, dir, "Would you install solar panels on your roof? I think that it is a good idea. The sun shines every day.", "en-us+f2", 125)
	// #b00000 and #006a00 have about the same luma; only chroma differs.
	file := mediatest.Video(t, dir, mediatest.VideoSpec{
		Width: 320, Height: 180, Scenes: scenes("testsrc2", 6.0, "#b00000", 3.0, "#006a00", 3.0),
		Audio: speech,
	})
	tools := media.Tools{}
	info, err := tools.Probe(context.Background(), file)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := tools.Analyze(context.Background(), file, info, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !all(sig.Scenes, []float64{6, 9}, 0.5) {
		t.Errorf("scenes %v, want 6 and 9", sig.Scenes)
	}
	if len(sig.Peaks) != 0 {
		t.Errorf("peaks %v in plain speech", sig.Peaks)
	}
}

func TestAnalyzeWithoutAudio(t *testing.T) {
	mediatest.Require(t)
	dir := t.TempDir()
	file := mediatest.Video(t, dir, mediatest.VideoSpec{Width: 160, Height: 90, Scenes: scenes("red", 2.0, "blue", 2.0), NoAudio: true})
	tools := media.Tools{}
	info, err := tools.Probe(context.Background(), file)
	if err != nil || info.HasAudio || !info.HasVideo {
		t.Fatalf("silent video: %+v %v", info, err)
	}
	sig, err := tools.Analyze(context.Background(), file, info, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sig.Energy != nil || sig.Peaks != nil || !all(sig.Scenes, []float64{2}, 0.5) {
		t.Errorf("signals %+v", sig)
	}
	if err := tools.ExtractWAV(context.Background(), file, filepath.Join(dir, "a.wav")); !errors.Is(err, media.ErrNoAudio) {
		t.Errorf("ExtractWAV of a silent video: %v", err)
	}
}

func TestProbeRejectsCorrupt(t *testing.T) {
	mediatest.Require(t)
	dir := t.TempDir()
	tools := media.Tools{}
	for _, path := range []string{mediatest.Corrupt(t, dir), filepath.Join(dir, "missing.mp4")} {
		if _, err := tools.Probe(context.Background(), path); !errors.Is(err, media.ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", path, err)
		}
	}
	if err := tools.ExtractWAV(context.Background(), mediatest.Corrupt(t, dir), filepath.Join(dir, "a.wav")); !errors.Is(err, media.ErrCorrupt) {
		t.Errorf("ExtractWAV of a corrupt file: %v", err)
	}
	if _, err := (media.Tools{FFmpeg: media.FFmpeg{ProbeBin: "/nonexistent/ffprobe"}}).Probe(context.Background(), mediatest.Corrupt(t, dir)); err == nil || errors.Is(err, media.ErrCorrupt) {
		t.Errorf("missing ffprobe: %v, want an error that is not ErrCorrupt", err)
	}
}

func TestExtractWAV(t *testing.T) {
	mediatest.Require(t)
	dir := t.TempDir()
	file := mediatest.Video(t, dir, mediatest.VideoSpec{Width: 160, Height: 90, Scenes: scenes("red", 2.0)})
	wav := filepath.Join(dir, "a.wav")
	tools := media.Tools{}
	if err := tools.ExtractWAV(context.Background(), file, wav); err != nil {
		t.Fatal(err)
	}
	info, err := tools.Probe(context.Background(), wav)
	if err != nil || !info.HasAudio || info.HasVideo || info.AudioCodec != "pcm_s16le" || math.Abs(info.Duration-2) > 0.1 {
		t.Fatalf("%+v %v", info, err)
	}
}

func TestAnalyzeCancelled(t *testing.T) {
	mediatest.Require(t)
	dir := t.TempDir()
	// The video is never decoded: a second of it is as good as an hour.
	file := mediatest.Video(t, dir, mediatest.VideoSpec{Width: 160, Height: 90, Scenes: scenes("testsrc2", 1.0)})
	tools := media.Tools{}
	info, err := tools.Probe(context.Background(), file)
	if err != nil {
		t.Fatal(err)
	}
	// An ffmpeg that notes each run: a cancelled analysis starts none.
	runs := filepath.Join(dir, "runs")
	ffmpeg := filepath.Join(dir, "ffmpeg")
	if err := os.WriteFile(ffmpeg, []byte("#!/bin/sh\necho run >> "+runs+"\nexec ffmpeg \"$@\"\n"), 0o700); err != nil { //nolint:gosec // G306: an executable test script
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (media.Tools{FFmpeg: media.FFmpeg{Bin: ffmpeg}}).Analyze(ctx, file, info, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Analyze: %v", err)
	}
	if b, err := os.ReadFile(runs); err == nil { //nolint:gosec // G304: the test's own file
		t.Errorf("cancelled Analyze ran ffmpeg %d times", strings.Count(string(b), "run"))
	}
}

// BenchmarkAnalyze10Min measures Analyze on a 10-minute 1280x720 H.264
// source (testsrc2 motion with two colour cuts, a tone and three noise
// bursts), generated once with ffmpeg -preset ultrafast:
//
//	cd services/clips && go test -run '^$' -bench Analyze10Min -benchtime 3x ./internal/media/
func BenchmarkAnalyze10Min(b *testing.B) { benchAnalyze10Min(b, media.Tools{}) }

// BenchmarkAnalyze10MinFaces is the same preparation with the faces
// renders follow sampled (as the clips worker prepares).
func BenchmarkAnalyze10MinFaces(b *testing.B) {
	det, err := vision.New()
	if err != nil {
		b.Fatal(err)
	}
	benchAnalyze10Min(b, media.Tools{Faces: &facetrack.Sampler{Faces: det}})
}

func benchAnalyze10Min(b *testing.B, tools media.Tools) {
	mediatest.Require(b)
	file := mediatest.Video(b, b.TempDir(), mediatest.VideoSpec{
		Width: 1280, Height: 720,
		Scenes: scenes("testsrc2", 200.0, "navy", 10.0, "testsrc2", 190.0, "orange", 10.0, "testsrc2", 190.0),
		Bursts: []float64{100, 300, 500},
	})
	info, err := tools.Probe(context.Background(), file)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		sig, err := tools.Analyze(context.Background(), file, info, nil)
		if err != nil {
			b.Fatal(err)
		}
		if !all(sig.Scenes, []float64{200, 210, 400, 410}, 0.5) || !all(sig.Peaks, []float64{100, 300, 500}, 0.5) {
			b.Fatalf("scenes %v peaks %v", sig.Scenes, sig.Peaks)
		}
	}
}
