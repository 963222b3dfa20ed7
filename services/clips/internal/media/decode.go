package media

import (
	"errors"
	"os/exec"
	"regexp"
	"strings"

	"hookline.dev/pkg/platform/textcheck"
)

// ErrUndecodable matches a *DecodeError.
var ErrUndecodable = errors.New("media: the video cannot be decoded")

// DecodeError is ffmpeg giving up on a file on its own: it exited with a
// status, neither killed nor cancelled. The input is at fault (a picture
// too large to allocate, a stream that is not what it says), so decoding
// it again gives the same answer.
type DecodeError struct {
	// Reason is ffmpeg's first complaint, fit to show a user; Detail the
	// tail of what it said, for the logs.
	Reason, Detail string
}

func (e *DecodeError) Error() string {
	return ErrUndecodable.Error() + ": " + e.Reason + " (ffmpeg: " + e.Detail + ")"
}

// Is makes errors.Is(err, ErrUndecodable) hold.
func (e *DecodeError) Is(target error) bool { return target == ErrUndecodable }

// decodeFailure reports an ffmpeg that exited with a status of its own:
// a process killed by a signal (the OOM killer, a shutdown) failed for
// reasons of this machine, which another attempt may not meet.
func decodeFailure(err error) bool {
	var exit *exec.ExitError
	return errors.As(err, &exit) && exit.Exited()
}

// firstLine keeps the first line ffmpeg writes, which names the cause;
// the lines after it are mostly consequences ("Error marking filters as
// finished").
type firstLine struct {
	b    []byte
	done bool
}

// firstLineMax bounds what firstLine keeps.
const firstLineMax = 300

func (f *firstLine) Write(p []byte) (int, error) {
	n := len(p)
	if !f.done {
		if i := strings.IndexByte(string(p), '\n'); i >= 0 {
			p, f.done = p[:i], true
		}
		f.b = append(f.b, p[:min(len(p), firstLineMax-len(f.b))]...)
		f.done = f.done || len(f.b) >= firstLineMax
	}
	return n, nil
}

// logPrefix is the "[h264 @ 0x55d0c0] " contexts ffmpeg puts before a
// message.
var logPrefix = regexp.MustCompile(`^(\s*\[[^\]]*\]\s*)+`)

// reason is the first line without its contexts, clean text (it names
// what the file holds, which is anyone's).
func (f *firstLine) reason() string {
	r := strings.TrimSpace(logPrefix.ReplaceAllString(textcheck.Clean(string(f.b), false), ""))
	if r == "" {
		return "ffmpeg could not read it"
	}
	return r
}
