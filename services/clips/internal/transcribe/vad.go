package transcribe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// span is a stretch of audio, in samples.
type span struct{ start, end int }

// The voice-activity split: 20 ms frames, speech where a frame's energy
// stands above the recording's noise floor by a quarter of the way to its
// loud speech (with 6 dB at least, so a clean recording's digital silence
// does not make its breaths speech). Pauses shorter than vadBridge stay
// inside the speech around them; stretches of sound shorter than
// vadMinSpeech are clicks. The floor is the 2nd percentile: a talk
// without a pause longer than a breath still has that many quiet frames.
// Each stretch keeps vadPad of audio either side (a word's soft onset and
// a trailing consonant), and stretches are joined while the result stays
// within maxSegment: the model hears whole sentences with their context,
// in as few runs as fit.
const (
	vadFrame     = 0.02 // seconds
	vadBridge    = 0.3
	vadMinSpeech = 0.1
	vadPad       = 0.2
	vadJoinGap   = 1.5 // a longer pause always ends a segment
	vadSilence   = -50 // dBFS: audio never louder has no speech
	maxSegment   = 20.0
)

// speechSpans splits 16-bit mono PCM at rate into segments of speech of
// at most maxSegment seconds each, in order, none overlapping.
func speechSpans(pcm []byte, rate int) []span {
	db, _ := levels(bytes.NewReader(pcm), rate) // a byte reader does not fail
	return speechIn(db, len(pcm)/2, rate)
}

// wavSpeechSpans is speechSpans of a WAV file, read as a stream.
func wavSpeechSpans(w *wavFile) ([]span, error) {
	db, err := levels(w.reader(), w.rate)
	if err != nil {
		return nil, err
	}
	return speechIn(db, w.samples, w.rate), nil
}

// levels reads 16-bit mono PCM at rate from r, a block at a time, and
// returns the energy of each vadFrame frame in dB: one number a frame,
// not the samples (an hour is 180,000 frames, 1.4 MB).
func levels(r io.Reader, rate int) ([]float64, error) {
	frame := int(vadFrame * float64(rate))
	buf := make([]byte, 2*frame*50) // a second at a time
	var db []float64
	for {
		n, err := io.ReadFull(r, buf)
		for f := 0; f+2*frame <= n; f += 2 * frame {
			var e float64
			for j := f; j < f+2*frame; j += 2 {
				v := float64(int16(binary.LittleEndian.Uint16(buf[j:]))) / 32768 //nolint:gosec // G115: reinterpreting s16le bits
				e += v * v
			}
			db = append(db, 10*math.Log10(e/float64(frame)+1e-10))
		}
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return db, nil
		case err != nil:
			return nil, fmt.Errorf("transcribe: reading audio: %w", err)
		}
	}
}

// speechIn finds the segments of speech of a recording of samples whose
// frames have the energies db.
func speechIn(db []float64, samples, rate int) []span {
	n := len(db)
	if n == 0 {
		return nil
	}
	frame := int(vadFrame * float64(rate))
	sorted := slices.Clone(db)
	slices.Sort(sorted)
	floor, loud := sorted[n/50], sorted[n*95/100]
	threshold := floor + max(6, (loud-floor)/4)
	voiced := make([]bool, n)
	for i, d := range db {
		// Audio as loud throughout as it ever gets (no pause in it, or a
		// level bed under the voice) is all recognised, unless silent.
		voiced[i] = d > threshold || loud-floor < 6 && loud > vadSilence
	}
	return segments(voiced, db, frame, samples, rate)
}

// segments turns frames of frame samples (at rate) each, voiced or not, into
// segments of at most maxSegment seconds (of samples in all): pauses
// under vadBridge bridged, sound under vadMinSpeech dropped, vadPad kept
// either side, neighbours joined while they fit. A stretch too long is cut
// at its frame of least quiet[i] (energy, or speech probability).
func segments(voiced []bool, quiet []float64, frame, samples, rate int) []span {
	n := len(voiced)
	sec := float64(frame) / float64(rate)
	var runs []span // in frames
	for i := 0; i < n; {
		if !voiced[i] {
			i++
			continue
		}
		j := i
		for j < n && voiced[j] {
			j++
		}
		if len(runs) > 0 && float64(i-runs[len(runs)-1].end)*sec < vadBridge {
			runs[len(runs)-1].end = j
		} else {
			runs = append(runs, span{i, j})
		}
		i = j
	}
	pad := int(vadPad / sec)
	maxFrames := int(maxSegment / sec)
	var out []span
	for _, r := range runs {
		if float64(r.end-r.start)*sec < vadMinSpeech {
			continue
		}
		r.start, r.end = max(0, r.start-pad), min(n, r.end+pad)
		if len(out) > 0 {
			last := &out[len(out)-1]
			r.start = max(r.start, last.end) // pads never overlap
			if float64(r.start-last.end)*sec < vadJoinGap && r.end-last.start <= maxFrames {
				last.end = r.end
				continue
			}
		}
		out = append(out, cutLong(quiet, r, maxFrames)...)
	}
	for i := range out {
		out[i].start *= frame
		out[i].end *= frame
	}
	if len(out) > 0 && out[len(out)-1].end == n*frame {
		out[len(out)-1].end = samples
	}
	return out
}

// cutLong cuts a stretch of speech longer than maxFrames at its quietest
// frame in the second half of each maxFrames, where a breath is likelier
// than in a word.
func cutLong(quiet []float64, r span, maxFrames int) []span {
	var out []span
	for r.end-r.start > maxFrames {
		at := r.start + maxFrames/2
		for i := at; i < r.start+maxFrames; i++ {
			if quiet[i] < quiet[at] {
				at = i
			}
		}
		out = append(out, span{r.start, at})
		r.start = at
	}
	return append(out, r)
}
