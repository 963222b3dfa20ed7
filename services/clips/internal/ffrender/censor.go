package ffrender

import (
	"fmt"

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
// nothing to censor. The speech fades out over cutFade before each
// widened stretch and back in after it, and the bleep the other way, so
// neither clicks.
func censorGraph(mode censor.Mode, spans []Span) string {
	if (mode != censor.Bleep && mode != censor.Mute) || len(spans) == 0 {
		return ""
	}
	wide := make([]Span, len(spans))
	for i, s := range spans {
		wide[i] = Span{From: max(0, s.From-censorPad), To: s.To + censorPad}
	}
	gain := gainExpr(wide, cutFade)
	muted := fmt.Sprintf("[0:a]aresample=48000,asetnsamples=n=%d:p=0,volume='%s':eval=frame", audioGrain, gain)
	if mode == censor.Mute {
		return muted + "[censored];"
	}
	return muted + "[speech];" +
		fmt.Sprintf("sine=frequency=%d:sample_rate=48000:samples_per_frame=%d,volume='%.2f*(1-%s)':eval=frame[bleep];", bleepHz, audioGrain, bleepGain, gain) +
		"[speech][bleep]amix=inputs=2:duration=first:dropout_transition=0:normalize=0[censored];"
}
