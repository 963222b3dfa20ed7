package ffrender

import (
	"fmt"
	"strings"

	"hookline.dev/services/clips/internal/censor"
)

// Censoring. The listed words' stretches (Job.Censored, seconds of the
// clip before any jump cut) are silenced in the speech: Mute leaves the
// silence, Bleep fills it with a 1 kHz sine. This runs on the source's
// audio before the jump cuts, so a cut carries the bleeps with the words
// it keeps. censorPad widens each stretch a little, since recognisers
// time a word's edges loosely and a syllable left over is still heard.
const (
	censorPad = 0.04
	bleepHz   = 1000
	// bleepGain lifts ffmpeg's sine (amplitude 1/8) to about -9 dBFS
	// before the loudness normalisation, near speech's own level.
	bleepGain = 2.8
)

// censorGraph is the part of the filtergraph that censors the speech
// [0:a] into [censored] (the ";" after it included), "" when there is
// nothing to censor.
func censorGraph(mode censor.Mode, spans []Span) string {
	if (mode != censor.Bleep && mode != censor.Mute) || len(spans) == 0 {
		return ""
	}
	var windows strings.Builder
	for i, s := range spans {
		if i > 0 {
			windows.WriteByte('+')
		}
		fmt.Fprintf(&windows, "between(t,%.3f,%.3f)", max(0, s.From-censorPad), s.To+censorPad)
	}
	muted := fmt.Sprintf("[0:a]aresample=48000,volume=volume=0:enable='%s'", windows.String())
	if mode == censor.Mute {
		return muted + "[censored];"
	}
	return muted + "[speech];" +
		fmt.Sprintf("sine=frequency=%d:sample_rate=48000,volume=volume=%.2f,volume=volume=0:enable='not(%s)'[bleep];", bleepHz, bleepGain, windows.String()) +
		"[speech][bleep]amix=inputs=2:duration=first:dropout_transition=0:normalize=0[censored];"
}
