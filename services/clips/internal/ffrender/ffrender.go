// Package ffrender turns a moment of a source video into a finished short:
// cut with its audio, reframed (portrait from landscape follows the face
// that is speaking, told by its mouth moving with the speech, on a
// smoothed, scene-cut-aware crop path, or stacks two faces that take
// turns in a split frame: speaker.go, split.go; landscape from
// portrait sits on a blurred fill), captioned from word timings with an
// optional hook title, progress bar and end card, loudness-normalised to
// −14 LUFS (one gain from the loudness measured in preparation) and
// encoded H.264/AAC with +faststart — in one ffmpeg pass whose -progress
// output drives the job's progress.
//
// The filtergraph is built here from typed values only: user text goes
// into the ASS script through captions.Escape, never into the graph.
package ffrender

import (
	"bufio"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"hookline.dev/pkg/media/fonts"
	"hookline.dev/pkg/media/vision"
	"hookline.dev/services/clips/internal/captions"
	"hookline.dev/services/clips/internal/censor"
	"hookline.dev/services/clips/internal/facetrack"
	"hookline.dev/services/clips/internal/media"
	"hookline.dev/services/clips/internal/render"
)

// Steps reported through Progress (ARCHITECTURE §6).
const (
	StepCutting    = "cutting"
	StepReframing  = "reframing"
	StepCaptioning = "captioning"
	StepEncoding   = "encoding"
)

// Job is one render.
type Job struct {
	// Source is the local source file; SrcW, SrcH its size.
	Source     string
	SrcW, SrcH int
	HasAudio   bool
	// Start and End are the moment, in seconds of the source.
	Start, End float64
	// Width and Height are the output size.
	Width, Height int
	// Scenes are the source's scene cuts (seconds of the source).
	Scenes []float64
	// Layout frames the faces of a portrait render from a landscape
	// source ("" is render.LayoutAuto).
	Layout render.Layout
	// Text is the captions, hook and end card (times from the clip's
	// start); its Width and Height are set from the job's.
	Text        captions.Spec
	ProgressBar bool
	// Frame, when set, is a border of this colour (0xRRGGBB) around the
	// picture; Logo, when set, is a local image fitted in a square in the
	// top-right corner for the whole clip, end card included, which the
	// hook and captions leave free (brand).
	Frame, Logo string
	// Footage are b-roll cutaways: a video file shown full-frame from
	// Start to End (seconds of the clip), under the captions.
	Footage []Footage
	// Music, when set, is an audio file looped under the speech, ducked
	// while someone speaks (sidechain compression keyed by the speech).
	Music string
	// EndCardSeconds extends the clip with a card when Text.EndCard is set.
	EndCardSeconds float64
	// RemoveSilences shortens the pauses, RemoveFillers takes out the
	// filler words (jump cuts, jumpcut.go); the captions, b-roll, progress
	// bar, SRT and crop path follow the cut.
	RemoveSilences, RemoveFillers bool
	// Cuts are stretches of the clip to cut besides (the words the creator
	// deleted from the transcript), seconds from its start, in order; they
	// join the jump cuts and are followed the same way.
	Cuts []Span
	// Spoken, when set, are the words as spoken, and Text.Words a
	// translation of them re-timed by sentence: the jump cuts are planned
	// from Spoken (its pauses and fillers), and the translated words
	// follow the cut squeezed, never left out for a cut middle.
	Spoken []captions.Word
	// AutoZoom punches in on the emphasised lines of a reframed clip
	// (zoom.go).
	AutoZoom bool
	// Censor bleeps or mutes the Censored stretches (seconds of the clip
	// before any jump cut: the listed words' timings) in the speech
	// (censor.go); the caller has masked those words in Text.
	Censor   censor.Mode
	Censored []Span
	// Samples, when set, are the source's faces and loudness sampled
	// during its preparation: the clip's slice of them stands for a
	// tracking decode of the clip.
	Samples *facetrack.Samples
	// Dir is scratch space for this job.
	Dir string
}

// Duration is the output's length before jump cuts: the moment plus the
// end card.
func (j Job) Duration() float64 {
	d := j.End - j.Start
	if strings.TrimSpace(j.Text.EndCard) != "" {
		d += j.EndCardSeconds
	}
	return d
}

// Footage is a b-roll cutaway.
type Footage struct {
	Start, End float64
	File       string
}

// Result is what a render made.
type Result struct {
	Output string // the MP4
	SRT    string // the captions
	VTT    string // the same captions as WebVTT
	Crop   []CropPoint
	// SecondsRemoved is what the jump cuts took out; Removed are the
	// stretches of the clip they took (seconds from the clip's start, on
	// the output's frame grid), for the edit decision lists.
	SecondsRemoved float64
	Removed        []Span
	// Duration is the MP4's length: the clip less the cuts, plus the end
	// card; FPS its frame rate.
	Duration float64
	FPS      int
	// Tracking says where the faces followed came from ("" when the
	// render did not track faces).
	Tracking Tracking
	// Notes say what the render left out of what was asked (for the
	// render's notes).
	Notes []string
}

// Renderer renders jobs. It is safe for concurrent use.
type Renderer struct {
	// FFmpeg starts the decodes and the encode.
	FFmpeg media.FFmpeg
	// Preset and CRF are x264's (default veryfast, 21); X264Params, when
	// set, are further x264 options (ffmpeg's -x264-params,
	// key=value:key=value).
	Preset     string
	CRF        int
	X264Params string
	// Threads is how many threads a render's decoder, filters and x264
	// each use (0: as many as ffmpeg and x264 choose for the machine's
	// processors): the worker gives each of its concurrent renders a share
	// of its CPUs, so renders side by side do not oversubscribe the cores.
	Threads int
	Faces   *vision.Detector
	// Landmarks, when set, measures mouths: without it every layout
	// follows the largest face.
	Landmarks facetrack.Landmarker
	// FontDir holds the caption fonts and their fontconfig cache, written
	// once per process ("" is a directory under the system's temp).
	FontDir string

	fontsOnce sync.Once
	fontsConf string
	fontsErr  error
}

// fontconfig writes the embedded fonts and a fontconfig file naming them
// once, and returns the file: libass finds fonts by family name through
// fontconfig (a fontsdir alone loads the files but does not match their
// names), and a cache kept between renders saves a font scan per render.
// The system's fonts stay for glyphs ours lack, but not its faces of our
// families: with fonts-inter installed, "Inter Display" would otherwise
// match the system's Regular rather than our Black.
func (r *Renderer) fontconfig() (string, error) {
	r.fontsOnce.Do(func() {
		dir := r.FontDir
		if dir == "" {
			dir = filepath.Join(os.TempDir(), fmt.Sprintf("hookline-fonts-%d", os.Getpid()))
		}
		if r.fontsErr = os.MkdirAll(dir, 0o700); r.fontsErr != nil {
			return
		}
		if r.fontsErr = fonts.WriteDir(dir); r.fontsErr != nil {
			return
		}
		files, err := os.ReadDir(dir)
		if r.fontsErr = err; err != nil {
			return
		}
		var ours, theirs strings.Builder
		for _, f := range files {
			if ext := filepath.Ext(f.Name()); ext == ".otf" || ext == ".ttf" {
				fmt.Fprintf(&ours, `<pattern><patelt name="file"><string>%s</string></patelt></pattern>`, xmlText(filepath.Join(dir, f.Name())))
			}
		}
		for _, family := range fonts.Families {
			fmt.Fprintf(&theirs, `<pattern><patelt name="family"><string>%s</string></patelt></pattern>`, xmlText(family))
		}
		conf := `<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig><dir>` + xmlText(dir) + `</dir><cachedir>` +
			xmlText(filepath.Join(dir, "cache")) + `</cachedir><include ignore_missing="yes">/etc/fonts/fonts.conf</include>` +
			`<selectfont><acceptfont>` + ours.String() + `</acceptfont><rejectfont>` + theirs.String() + `</rejectfont></selectfont></fontconfig>`
		r.fontsConf = filepath.Join(dir, "fonts.conf")
		r.fontsErr = os.WriteFile(r.fontsConf, []byte(conf), 0o600)
	})
	return r.fontsConf, r.fontsErr
}

// xmlText is s escaped for XML character data.
func xmlText(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// Progress is told the step in progress and the share done (0..1).
type Progress func(step string, done float64)

// safePath is what a path in the filtergraph may contain: ours only.
var safePath = regexp.MustCompile(`^[A-Za-z0-9/_.-]+$`)

// Render runs j.
func (r *Renderer) Render(ctx context.Context, j Job, progress Progress) (Result, error) {
	if !safePath.MatchString(j.Dir) {
		return Result{}, fmt.Errorf("renderer: scratch directory %q has characters the filtergraph cannot take", j.Dir)
	}
	if j.End-j.Start <= 0 || j.SrcW <= 0 || j.SrcH <= 0 || j.Width <= 0 || j.Height <= 0 {
		return Result{}, fmt.Errorf("renderer: invalid job: %.2f–%.2f of %dx%d to %dx%d", j.Start, j.End, j.SrcW, j.SrcH, j.Width, j.Height)
	}
	progress(StepCutting, 0)
	var res Result
	jumpCuts := j.RemoveSilences || j.RemoveFillers
	cutting := jumpCuts || len(j.Cuts) > 0
	// The clip's loudness, for the cuts and the punch-ins, is measured
	// while the faces are tracked.
	var measuring sync.WaitGroup
	var db []float64
	var dbErr error
	if j.HasAudio && (jumpCuts || j.AutoZoom) {
		measuring.Add(1)
		measured := j // a copy: j changes below while it is measured
		go func() {
			defer measuring.Done()
			db, dbErr = r.loudness(ctx, measured)
		}()
	}
	j.Text.Width, j.Text.Height = j.Width, j.Height
	if err := j.brand(); err != nil {
		return Result{}, err
	}
	portraitOut, portraitSrc := j.Height > j.Width, j.SrcH > j.SrcW
	var video string
	var path []CropPoint
	if portraitOut && !portraitSrc {
		progress(StepReframing, 0.02)
		var faces []captions.FaceBox
		var err error
		if path, faces, res.Tracking, err = r.track(ctx, j); err != nil {
			measuring.Wait()
			return res, err
		}
		j.Text.Faces = faces
	}
	if measuring.Wait(); dbErr != nil {
		return res, dbErr
	}
	var edit Edit
	if cutting {
		spoken := j.Text.Words
		if j.Spoken != nil {
			spoken = j.Spoken
		}
		edit = planCuts(spoken, db, j.End-j.Start, j.RemoveSilences, j.RemoveFillers).with(j.Cuts, j.End-j.Start)
		j = edit.apply(j)
		path = edit.Crop(path)
		db = edit.Loudness(db)
		res.SecondsRemoved, res.Removed = edit.Seconds(), edit.Removed
	}
	switch {
	case portraitOut && !portraitSrc:
		res.Crop = path
		var punches []punch
		if j.AutoZoom {
			var split int
			punches, split = planZooms(captions.Lines(j.Text.Words, j.Text.MaxWords()), captions.KeywordKeys(j.Text.Keywords), db, path, cropWidth(j), j.SrcH)
			res.Crop = zoomed(path, punches)
			j.Text.Faces = zoomFaces(j.Text.Faces, punches, float64(j.Width)/float64(cropWidth(j)), image.Rect(0, 0, j.Width, j.Height))
			if split > 0 {
				res.Notes = append(res.Notes, fmt.Sprintf("autoZoom: %d punch-in(s) left out where the frame is split in two halves", split))
			}
		}
		video = reframeFilter(j, path, punches)
	case !portraitOut && portraitSrc:
		video = fmt.Sprintf("split[a][b];[a]scale=%d:%d:force_original_aspect_ratio=increase,crop=%d:%d,boxblur=20:2[bg];"+
			"[b]scale=-2:%d[fg];[bg][fg]overlay=(W-w)/2:0,setsar=1", j.Width, j.Height, j.Width, j.Height, j.Height)
	default:
		video = fmt.Sprintf("scale=%d:%d:force_original_aspect_ratio=decrease,pad=%d:%d:(ow-iw)/2:(oh-ih)/2,setsar=1", j.Width, j.Height, j.Width, j.Height)
	}

	progress(StepCaptioning, 0.05)
	fcConf, err := r.fontconfig()
	if err != nil {
		return res, err
	}
	clip := j.End - j.Start - res.SecondsRemoved
	j.Text.EndStart, j.Text.EndSeconds = clip, j.EndCardSeconds
	if j.ProgressBar {
		j.Text.Bar = clip
	}
	assPath := filepath.Join(j.Dir, "captions.ass")
	if err := os.WriteFile(assPath, []byte(captions.ASS(j.Text)), 0o600); err != nil {
		return res, err
	}
	res.SRT = filepath.Join(j.Dir, "captions.srt")
	if err := os.WriteFile(res.SRT, []byte(captions.SRT(j.Text.Words, j.Text.MaxWords())), 0o600); err != nil {
		return res, err
	}
	res.VTT = filepath.Join(j.Dir, "captions.vtt")
	if err := os.WriteFile(res.VTT, []byte(captions.VTT(j.Text.Words, j.Text.MaxWords())), 0o600); err != nil {
		return res, err
	}

	total := j.Duration() - res.SecondsRemoved
	res.Duration, res.FPS = total, outFPS
	if len(edit.Removed) > 0 {
		video = edit.videoFilter() + "," + video
	} else if j.AutoZoom && portraitOut && !portraitSrc {
		video = fmt.Sprintf("fps=%d,", outFPS) + video // zoompan makes a frame of each it is given
	}
	graph := "[0:v]" + video
	if total > clip {
		graph += fmt.Sprintf(",tpad=stop_mode=add:stop_duration=%.3f:color=0x101014", total-clip)
	}
	graph += ",fps=30"
	inputs := append(r.threads("-threads"), "-ss", ff(j.Start), "-t", ff(j.End-j.Start), "-i", "file:"+j.Source)
	for k, f := range j.Footage {
		if !safePath.MatchString(f.File) {
			return res, fmt.Errorf("renderer: footage path %q has characters the command cannot take", f.File)
		}
		inputs = append(inputs, "-stream_loop", "-1", "-i", "file:"+f.File)
		graph += fmt.Sprintf("[v%d];[%d:v]scale=%d:%d:force_original_aspect_ratio=increase,crop=%d:%d,fps=30,setsar=1,setpts=PTS-STARTPTS+%.3f/TB[b%d];"+
			"[v%d][b%d]overlay=enable='between(t,%.3f,%.3f)':shortest=1", k, inputCount(inputs)-1, j.Width, j.Height, j.Width, j.Height, f.Start, k, k, k, f.Start, f.End)
	}
	// The frame and the progress bar are drawn by libass with the text.
	graph += fmt.Sprintf(",subtitles=filename=%s", assPath)
	if j.Logo != "" {
		if !safePath.MatchString(j.Logo) {
			return res, fmt.Errorf("renderer: logo path %q has characters the command cannot take", j.Logo)
		}
		inputs = append(inputs, "-loop", "1", "-framerate", "30", "-i", "file:"+j.Logo)
		// The logo fits its square, against the right edge of it.
		box := j.Text.Logo
		graph += fmt.Sprintf("[pic];[%d:v]scale=%d:%d:force_original_aspect_ratio=decrease:force_divisible_by=2,format=rgba[logo];[pic][logo]overlay=x=%d-w:y=%d:shortest=1",
			inputCount(inputs)-1, box.Dx(), box.Dy(), box.Max.X, box.Min.Y)
	}
	graph += "[v]"
	const norm = "aresample=48000,aformat=sample_fmts=fltp:channel_layouts=stereo"
	cut := ""
	if len(edit.Removed) > 0 {
		cut = edit.audioFilter() + ","
	}
	speech := fmt.Sprintf(";[0:a]%sapad,atrim=0:%.3f,%s", cut, total, norm)
	if censored := censorGraph(j.Censor, j.Censored); censored != "" {
		speech = fmt.Sprintf(";%s[censored]%sapad,atrim=0:%.3f,%s", censored, cut, total, norm)
	}
	if !j.HasAudio {
		speech = fmt.Sprintf(";anullsrc=r=48000:cl=stereo,atrim=0:%.3f", total)
	}
	if j.Music != "" {
		if !safePath.MatchString(j.Music) {
			return res, fmt.Errorf("renderer: music path %q has characters the command cannot take", j.Music)
		}
		inputs = append(inputs, "-stream_loop", "-1", "-i", "file:"+j.Music)
		idx := inputCount(inputs) - 1
		graph += speech + ",asplit=2[sp][key]" +
			fmt.Sprintf(";[%d:a]%s,atrim=0:%.3f,volume=0.35[mus]", idx, norm, total) +
			";[mus][key]sidechaincompress=threshold=0.02:ratio=12:attack=15:release=350[duck]" +
			";[sp][duck]amix=inputs=2:duration=first:normalize=0," + loudnorm + "," + norm + "[a]"
	} else if j.HasAudio {
		graph += speech + "," + normalise(j) + "," + norm + "[a]"
	} else {
		graph += speech + "[a]"
	}
	res.Output = filepath.Join(j.Dir, "clip.mp4")
	preset, crf := r.Preset, r.CRF
	if preset == "" {
		preset = "veryfast"
	}
	if crf == 0 {
		crf = 21
	}
	args := append(append(r.threads("-filter_complex_threads", "-y"), inputs...), "-filter_complex", graph, "-map", "[v]", "-map", "[a]", "-t", ff(total),
		"-c:v", "libx264", "-preset", preset, "-crf", strconv.Itoa(crf), "-pix_fmt", "yuv420p")
	if r.X264Params != "" {
		args = append(args, "-x264-params", r.X264Params)
	}
	args = append(append(args, r.threads("-threads")...),
		"-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart", "-progress", "pipe:1", "-nostats", res.Output)
	progress(StepEncoding, 0.1)
	if err := r.run(ctx, args, []string{"FONTCONFIG_FILE=" + fcConf}, func(done float64) { progress(StepEncoding, 0.1+0.85*done/total) }); err != nil {
		return res, err
	}
	return res, nil
}

// Loudness targets: −14 LUFS integrated, peaks under −1.5 dBFS;
// loudnorm reaches them measuring as it goes (resampling to 192 kHz to
// do so).
const (
	targetLUFS = -14.0
	peakDB     = -1.5
	loudnorm   = "loudnorm=I=-14:TP=-1.5:LRA=11"
)

// normalise is the filter that brings j's speech to targetLUFS: one gain
// from the clip's integrated loudness measured in preparation (its
// Samples), with a limiter that holds the peaks under peakDB; without
// that measure (a source prepared before it was kept), loudnorm.
func normalise(j Job) string {
	lufs, ok := j.Samples.Integrated(j.Start, j.End)
	if !ok {
		return loudnorm
	}
	return fmt.Sprintf("volume=%.2fdB,alimiter=limit=%.4f:level=0:latency=1", targetLUFS-lufs, math.Pow(10, peakDB/20))
}

// brand sets the frame and the logo's box of j's text: the frame is a
// border of a 40th of the width (at least 8 pixels); the logo fits a
// square of 16 % of the width, two borders in from the top-right corner.
func (j *Job) brand() error {
	border := max(8, j.Width/40)
	if j.Frame != "" {
		rgb, err := strconv.ParseUint(strings.TrimPrefix(j.Frame, "0x"), 16, 24)
		if err != nil || !strings.HasPrefix(j.Frame, "0x") {
			return fmt.Errorf("renderer: frame colour %q is not 0xRRGGBB", j.Frame)
		}
		j.Text.Frame = captions.Frame{RGB: uint32(rgb), Border: border}
	}
	if j.Logo != "" {
		side := j.Width * 16 / 100 / 2 * 2
		j.Text.Logo = image.Rect(j.Width-2*border-side, 2*border, j.Width-2*border, 2*border+side)
	}
	return nil
}

// threads is option and the renderer's thread count, then rest; only
// rest when the count is left to ffmpeg.
func (r *Renderer) threads(option string, rest ...string) []string {
	if r.Threads <= 0 {
		return rest
	}
	return append([]string{option, strconv.Itoa(r.Threads)}, rest...)
}

// inputCount is how many inputs (-i) args has.
func inputCount(args []string) int {
	n := 0
	for _, a := range args {
		if a == "-i" {
			n++
		}
	}
	return n
}

func ff(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }

// ErrFFmpeg is a failed encode.
var ErrFFmpeg = errors.New("renderer: ffmpeg failed")

// run runs ffmpeg, reading -progress from stdout (out_time_us, seconds
// of output done).
func (r *Renderer) run(ctx context.Context, args, env []string, done func(float64)) error {
	cmd := r.FFmpeg.Command(ctx, args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%w: %w", ErrFFmpeg, err)
	}
	last := time.Time{}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok || k != "out_time_us" || time.Since(last) < 500*time.Millisecond {
			continue
		}
		if us, err := strconv.ParseInt(v, 10, 64); err == nil && us > 0 {
			last = time.Now()
			done(float64(us) / 1e6)
		}
	}
	_, _ = io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 400 {
			msg = msg[len(msg)-400:]
		}
		return fmt.Errorf("%w: %w: %s", ErrFFmpeg, err, msg)
	}
	return nil
}
