package media

import (
	"encoding/binary"
	"math"

	"hookline.dev/services/clips/internal/facetrack"
)

// Meter measures the loudness of s16le mono PCM written to it in any
// chunks, frame by frame: the one way clips reads loudness from the sound
// ffmpeg decodes (a source's energy and bursts, the speech around each
// face sample, a clip's pauses and emphasised lines). Frame k is the
// Window seconds centred on k·Step or, with Window 0, the Step seconds
// from k·Step.
type Meter struct {
	Rate   int     // samples a second
	Step   float64 // seconds from one frame to the next
	Window float64 // seconds of a frame centred on its time; 0: the step from it

	n     int // samples seen
	sums  []float64
	count []int
	odd   []byte // a sample split between writes
}

// SpeechMeter measures the loudness around each face sample
// (facetrack.EnergyWindow, facetrack.FPS times a second) of PCM at rate.
func SpeechMeter(rate int) *Meter {
	return &Meter{Rate: rate, Step: 1.0 / facetrack.FPS, Window: facetrack.EnergyWindow}
}

// Write takes PCM bytes; it never fails.
func (m *Meter) Write(p []byte) (int, error) {
	written := len(p)
	if len(m.odd) > 0 {
		p = append(m.odd, p...)
		m.odd = nil
	}
	per := m.per()
	from, width := 0, per // of frame k, in samples from k·per
	if m.Window > 0 {
		half := int(math.Round(m.Window / 2 * float64(m.Rate)))
		from, width = -half, 2*half
	}
	for ; len(p) >= 2; p = p[2:] {
		if k := (m.n - from) / per; m.n-from-k*per < width {
			for len(m.sums) <= k {
				m.sums, m.count = append(m.sums, 0), append(m.count, 0)
			}
			v := float64(int16(binary.LittleEndian.Uint16(p))) / 32768 //nolint:gosec // G115: a sample's bits
			m.sums[k] += v * v
			m.count[k]++
		}
		m.n++
	}
	m.odd = append(m.odd, p...)
	return written, nil
}

// per is the step in samples.
func (m *Meter) per() int { return max(1, int(math.Round(m.Step*float64(m.Rate)))) }

// Power is the mean square (full scale 1) of each frame up to the end of
// what was written, one a step begun; 0 for a frame without samples.
func (m *Meter) Power() []float64 {
	per := m.per()
	out := make([]float64, (m.n+per-1)/per)
	for i := range out {
		if i < len(m.sums) && m.count[i] > 0 {
			out[i] = m.sums[i] / float64(m.count[i])
		}
	}
	return out
}

// Loudness is Power in dBFS, at least −100 (digital silence).
func (m *Meter) Loudness() []float64 {
	db := m.Power()
	for i, p := range db {
		db[i] = math.Max(-100, 10*math.Log10(p+1e-12))
	}
	return db
}

// Seconds is how much sound was written.
func (m *Meter) Seconds() float64 { return float64(m.n) / float64(m.Rate) }
