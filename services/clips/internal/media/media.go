// Package media probes and measures local video files by driving ffmpeg
// and ffprobe: stream facts (Probe), the signals clip scoring uses —
// loudness, laughter/applause-like bursts and scene cuts (Analyze) — and
// the 16 kHz mono WAV speech recognition reads (ExtractWAV).
//
// Every tool starts through FFmpeg, the one runner of clips' ffmpeg and
// ffprobe (the render engine's too), so cancelling the context kills it;
// stderr is kept only as a bounded tail for error messages. Meter is the
// one loudness meter of the sound ffmpeg decodes.
package media

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"

	"hookline.dev/services/clips/internal/facetrack"
)

// Tools probes and measures with FFmpeg's binaries. Faces, when set,
// samples the faces of a landscape video during Analyze.
type Tools struct {
	FFmpeg FFmpeg
	Faces  *facetrack.Sampler
}

// ErrCorrupt is returned (wrapped) when ffprobe cannot read a file, it
// has no audio or video stream, or its duration is zero.
var ErrCorrupt = errors.New("media: not a playable video")

// ErrNoAudio is returned (wrapped) by ExtractWAV for a file without sound.
var ErrNoAudio = errors.New("media: the video has no audio track")

// Info is what Probe learns about a file.
type Info struct {
	Duration               float64 // seconds
	Width, Height          int
	HasVideo, HasAudio     bool
	VideoCodec, AudioCodec string
	FPS                    float64
}

// Probe runs ffprobe on path. A file ffprobe rejects, or one without
// streams or duration, gives ErrCorrupt; a video without sound is not an
// error here (HasAudio is false and the caller decides).
func (t Tools) Probe(ctx context.Context, path string) (Info, error) {
	var stderr tail
	cmd := t.FFmpeg.ProbeCommand(ctx, "-print_format", "json", "-show_format", "-show_streams", local(path))
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return Info{}, fmt.Errorf("probing %s: %w", path, ctx.Err())
		}
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return Info{}, fmt.Errorf("running ffprobe: %w", err)
		}
		return Info{}, fmt.Errorf("probing %s: %w: %s", path, ErrCorrupt, stderr.String())
	}
	var doc ffprobeDoc
	if err := json.Unmarshal(out, &doc); err != nil {
		return Info{}, fmt.Errorf("probing %s: %w: reading ffprobe output: %w", path, ErrCorrupt, err)
	}
	var info Info
	info.Duration, _ = strconv.ParseFloat(doc.Format.Duration, 64)
	for _, s := range doc.Streams {
		d, _ := strconv.ParseFloat(s.Duration, 64)
		switch {
		case s.CodecType == "video" && !info.HasVideo && s.Disposition.AttachedPic == 0:
			info.HasVideo, info.VideoCodec, info.Width, info.Height = true, s.CodecName, s.Width, s.Height
			if info.FPS = rate(s.AvgFrameRate); info.FPS == 0 {
				info.FPS = rate(s.RFrameRate)
			}
		case s.CodecType == "audio" && !info.HasAudio:
			info.HasAudio, info.AudioCodec = true, s.CodecName
		default:
			continue
		}
		info.Duration = max(info.Duration, d)
	}
	if !info.HasVideo && !info.HasAudio {
		return Info{}, fmt.Errorf("probing %s: %w: no audio or video stream", path, ErrCorrupt)
	}
	if !(info.Duration > 0) {
		return Info{}, fmt.Errorf("probing %s: %w: zero duration", path, ErrCorrupt)
	}
	return info, nil
}

// local names path for ffmpeg as a local file, never a protocol URL
// ("http:", "pipe:") or an option.
func local(path string) string { return "file:" + path }

// rate parses an ffprobe frame rate such as "30000/1001"; 0 if unknown.
func rate(s string) float64 {
	num, den, ok := strings.Cut(s, "/")
	n, err1 := strconv.ParseFloat(num, 64)
	d, err2 := 1.0, error(nil)
	if ok {
		d, err2 = strconv.ParseFloat(den, 64)
	}
	if err1 != nil || err2 != nil || d == 0 {
		return 0
	}
	return n / d
}

// ExtractWAV writes the first audio track of src to dst as 16 kHz mono
// signed 16-bit WAV, the input speech recognition expects.
func (t Tools) ExtractWAV(ctx context.Context, src, dst string) error {
	info, err := t.Probe(ctx, src)
	if err != nil {
		return err
	}
	if !info.HasAudio {
		return fmt.Errorf("extracting audio of %s: %w", src, ErrNoAudio)
	}
	var stderr tail
	cmd := t.FFmpeg.Command(ctx, "-y", "-i", local(src),
		"-map", "0:a:0", "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", "-f", "wav", local(dst))
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return fmt.Errorf("extracting audio of %s: %w: %s", src, err, stderr.String())
	}
	return nil
}

// tail is an io.Writer keeping the last tailSize bytes written: enough of
// a tool's stderr to explain a failure, bounded however chatty it is.
type tail struct{ b []byte }

const tailSize = 2048

func (t *tail) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) > tailSize {
		p = p[len(p)-tailSize:]
	}
	t.b = append(t.b, p...)
	if over := len(t.b) - tailSize; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return n, nil
}

func (t *tail) String() string { return strings.TrimSpace(string(t.b)) }
