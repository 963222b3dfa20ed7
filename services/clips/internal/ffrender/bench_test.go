package ffrender_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/testkit"
	"hookline.dev/services/clips/internal/captions"
	"hookline.dev/services/clips/internal/facetrack"
	"hookline.dev/services/clips/internal/ffrender"
	"hookline.dev/services/clips/internal/media"
)

// benchSource is a 40 s 1920x1080 source with the sample face moving.
func benchSource(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	photo := filepath.Join(dir, "face.jpg")
	if err := os.WriteFile(photo, testkit.FacePhoto(b), 0o600); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(dir, "src1080.mp4")
	cmd := exec.CommandContext(b.Context(), "ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=30:d=40",
		"-loop", "1", "-i", photo, "-f", "lavfi", "-i", "sine=f=220:d=40",
		"-filter_complex", "[1:v]scale=-2:700[f];[0:v][f]overlay=x='100+900*(0.5-0.5*cos(t/5))':y=190:shortest=1[v]",
		"-map", "[v]", "-map", "2:a", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", "-t", "40", out)
	if o, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, o)
	}
	return out
}

var benchWords = func() []captions.Word {
	var ws []captions.Word
	for i := range 75 {
		ws = append(ws, captions.Word{Start: float64(i) * 0.4, End: float64(i)*0.4 + 0.35, Text: fmt.Sprintf("word%d", i)})
	}
	return ws
}()

// cpuSeconds is the processor time (user and system) this process and
// its finished children have used.
func cpuSeconds(b *testing.B) float64 {
	b.Helper()
	var self, children syscall.Rusage
	if err := errors.Join(syscall.Getrusage(syscall.RUSAGE_SELF, &self), syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)); err != nil {
		b.Fatal(err)
	}
	sec := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return sec(self.Utime) + sec(self.Stime) + sec(children.Utime) + sec(children.Stime)
}

// reportCPU reports the processor time per op from now until the
// returned func runs (after the loop): on a shared machine it moves far
// less than wall time with the other work.
func reportCPU(b *testing.B) func() {
	b.Helper()
	start := cpuSeconds(b)
	return func() { b.ReportMetric((cpuSeconds(b)-start)/float64(b.N), "cpu-s/op") }
}

// prepared is the bench source's faces and loudness sampled as its
// preparation samples them (not timed).
func prepared(b *testing.B, src string, det *vision.Detector) *facetrack.Samples {
	b.Helper()
	info, err := media.Tools{}.Probe(b.Context(), src)
	if err != nil {
		b.Fatal(err)
	}
	sig, err := media.Tools{Faces: &facetrack.Sampler{Faces: det}}.Analyze(b.Context(), src, info, nil)
	if err != nil {
		b.Fatal(err)
	}
	return sig.Faces
}

// The near-lossless reference every render benchmark measures its
// output against: the same render encoded by x264 at CRF refCRF (the
// peer's own command encoded so, for the peer).
const (
	refPreset = "ultrafast"
	refCRF    = 2
)

// reportQuality reports the SSIM of out against ref (ffmpeg's ssim
// filter, "All": Y, U and V weighted by size) times 10⁴, so that the
// benchmark's output keeps four digits, and out's size and bitrate, so
// that speed is compared at equal quality and size.
func reportQuality(b *testing.B, out, ref string) {
	b.Helper()
	o, err := exec.CommandContext(b.Context(), "ffmpeg", "-nostdin", "-nostats", "-i", out, "-i", ref, "-lavfi", "[0:v][1:v]ssim", "-f", "null", "-").CombinedOutput()
	if err != nil {
		b.Fatalf("%v %s", err, o)
	}
	m := ssimAll.FindSubmatch(o)
	if m == nil {
		b.Fatalf("no SSIM in %s", o)
	}
	ssim, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		b.Fatal(err)
	}
	info, err := media.Tools{}.Probe(b.Context(), out)
	if err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(out)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(ssim*1e4, "ssim-x1e4")
	b.ReportMetric(float64(st.Size())/1e6, "MB")
	b.ReportMetric(float64(st.Size())*8/1e3/info.Duration, "kbit/s")
}

var ssimAll = regexp.MustCompile(`SSIM .* All:([0-9.]+)`)

// benchRender renders 5–35 s of the bench source to 1080x1920 with
// captions, face-tracked reframing, a progress bar and loudness
// normalisation, with the job edited by opts; samples says whether the
// source's faces were sampled during its preparation; enc sets the
// renderer's encoder (nil: its defaults). The last output's quality is
// measured against the same job rendered near-losslessly.
func benchRender(b *testing.B, samples bool, enc func(*ffrender.Renderer), opts func(*ffrender.Job)) {
	src := benchSource(b)
	det, err := vision.New()
	if err != nil {
		b.Fatal(err)
	}
	var faces *facetrack.Samples
	if samples {
		faces = prepared(b, src, det)
	}
	render := func(r *ffrender.Renderer) string {
		job := ffrender.Job{Source: src, SrcW: 1920, SrcH: 1080, HasAudio: true, Start: 5, End: 35, Width: 1080, Height: 1920, Dir: b.TempDir(),
			ProgressBar: true, Text: captions.Spec{Style: captions.Bold, Words: benchWords}, Samples: faces}
		opts(&job)
		res, err := r.Render(context.Background(), job, func(string, float64) {})
		if err != nil {
			b.Fatal(err)
		}
		return res.Output
	}
	r := &ffrender.Renderer{Faces: det}
	if enc != nil {
		enc(r)
	}
	var out string
	cpu := reportCPU(b)
	for b.Loop() {
		out = render(r)
	}
	cpu()
	reportQuality(b, out, render(&ffrender.Renderer{Faces: det, Preset: refPreset, CRF: refCRF}))
}

// BenchmarkRender30s is a 30 s portrait render (1080x1920) from a 1080p
// source prepared with its faces sampled, with captions, face-tracked
// reframing, a progress bar and loudness normalisation.
func BenchmarkRender30s(b *testing.B) { benchRender(b, true, nil, func(*ffrender.Job) {}) }

// BenchmarkRender30sPeerQuality is BenchmarkRender30s encoded at about
// the hand command's SSIM: x264 veryfast at CRF 18 with variance AQ
// weighted by complexity, trellis and two references, which of the
// settings measured reached it at the smallest file on this panning crop
// (bench/RESULTS.md).
func BenchmarkRender30sPeerQuality(b *testing.B) {
	benchRender(b, true, func(r *ffrender.Renderer) { r.CRF, r.X264Params = 18, "aq-mode=2:trellis=1:ref=2" }, func(*ffrender.Job) {})
}

// BenchmarkRender30sUnprepared is the same render of a source prepared
// before faces were sampled: the render decodes the clip to track them.
func BenchmarkRender30sUnprepared(b *testing.B) { benchRender(b, false, nil, func(*ffrender.Job) {}) }

// BenchmarkRender30sOneThread is BenchmarkRender30s as a worker of two
// CPUs runs each of its two renders at once: the decoder, the filters and
// x264 on one thread each (Renderer.Threads 1).
func BenchmarkRender30sOneThread(b *testing.B) {
	benchRender(b, true, func(r *ffrender.Renderer) { r.Threads = 1 }, func(*ffrender.Job) {})
}

// BenchmarkRender30sCutsZoom is BenchmarkRender30s with removeSilences,
// removeFillers and autoZoom on.
func BenchmarkRender30sCutsZoom(b *testing.B) {
	benchRender(b, true, nil, func(j *ffrender.Job) { j.RemoveSilences, j.RemoveFillers, j.AutoZoom = true, true, true })
}

// BenchmarkHandFFmpeg30s is the peer: one hand-written ffmpeg command for
// the same cut, a fixed centre crop, scale, the same subtitles and encode
// settings (x264 veryfast, CRF 21, AAC 128k, +faststart), no tracking,
// progress bar or loudness pass. Its quality is measured against the same
// command encoded near-losslessly.
func BenchmarkHandFFmpeg30s(b *testing.B) { benchHand(b, false) }

// BenchmarkHandFFmpeg30sOneThread is the peer on one thread for its
// decoder, filters and x264, as BenchmarkRender30sOneThread.
func BenchmarkHandFFmpeg30sOneThread(b *testing.B) {
	benchHand(b, true)
}

// benchHand runs the peer's command; oneThread gives its decoder, filters
// and x264 one thread each.
func benchHand(b *testing.B, oneThread bool) {
	src := benchSource(b)
	dir := b.TempDir()
	ass := filepath.Join(dir, "c.ass")
	if err := os.WriteFile(ass, []byte(captions.ASS(captions.Spec{Width: 1080, Height: 1920, Style: captions.Bold, Words: benchWords})), 0o600); err != nil {
		b.Fatal(err)
	}
	var input, output []string
	if oneThread {
		input, output = []string{"-threads", "1"}, []string{"-filter_threads", "1", "-threads", "1"}
	}
	hand := func(out, preset string, crf int) {
		args := append([]string{"-v", "error", "-nostdin", "-y"}, input...)
		args = append(args, "-ss", "5", "-t", "30", "-i", src,
			"-vf", "crop=608:1080:656:0,scale=1080:1920,fps=30,subtitles=filename="+ass,
			"-c:v", "libx264", "-preset", preset, "-crf", strconv.Itoa(crf), "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart")
		args = append(append(args, output...), out)
		cmd := exec.CommandContext(b.Context(), "ffmpeg", args...)
		if o, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, o)
		}
	}
	out := filepath.Join(dir, "hand.mp4")
	cpu := reportCPU(b)
	for b.Loop() {
		hand(out, "veryfast", 21)
	}
	cpu()
	ref := filepath.Join(dir, "ref.mp4")
	hand(ref, refPreset, refCRF)
	reportQuality(b, out, ref)
}
