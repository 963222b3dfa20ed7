package media

import (
	"context"
	"os/exec"
)

// FFmpeg starts ffmpeg and ffprobe for every part of clips that probes,
// decodes, measures or encodes: the one place the binaries are named
// (HOOKLINE_FFMPEG, HOOKLINE_FFPROBE) and the flags every run shares.
// A run is quiet but for errors, and ffmpeg never reads stdin (a worker
// has none; a terminal's would be taken for commands). Each command runs
// under its context, so cancelling it kills the process.
type FFmpeg struct {
	// Bin and ProbeBin are ffmpeg and ffprobe; "" is the one on PATH.
	Bin, ProbeBin string
}

// Command is ffmpeg with args after the shared flags.
func (f FFmpeg) Command(ctx context.Context, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, or(f.Bin, "ffmpeg"), append([]string{"-v", "error", "-nostdin"}, args...)...) //nolint:gosec // G204: callers pass typed values and local paths (see local)
}

// ProbeCommand is ffprobe with args after the shared flags.
func (f FFmpeg) ProbeCommand(ctx context.Context, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, or(f.ProbeBin, "ffprobe"), append([]string{"-v", "error"}, args...)...) //nolint:gosec // G204: callers pass typed values and local paths (see local)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
