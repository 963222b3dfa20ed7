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
	// KWeighted passes the sound through ITU-R BS.1770's K-weighting
	// before it is measured, so that a frame's power is its loudness
	// (LUFS = −0.691 + 10·log₁₀ power; see LoudnessMeter).
	KWeighted bool

	k     [2]biquad // the K-weighting's stages, set on the first write
	n     int       // samples seen
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
	if m.KWeighted && m.k[0].b0 == 0 {
		m.k = kWeighting(float64(m.Rate))
	}
	per := m.per()
	from, width := 0, per // of frame k, in samples from k·per
	if m.Window > 0 {
		half := int(math.Round(m.Window / 2 * float64(m.Rate)))
		from, width = -half, 2*half
	}
	for ; len(p) >= 2; p = p[2:] {
		v := float64(int16(binary.LittleEndian.Uint16(p))) / 32768 //nolint:gosec // G115: a sample's bits
		if m.KWeighted {
			v = m.k[1].filter(m.k[0].filter(v))
		}
		if k := (m.n - from) / per; m.n-from-k*per < width {
			for len(m.sums) <= k {
				m.sums, m.count = append(m.sums, 0), append(m.count, 0)
			}
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

// LoudnessMeter measures the K-weighted power of PCM at rate in frames
// of facetrack.LoudnessStep, the gating blocks' hop: what a render needs
// to normalise a clip's loudness in one pass (facetrack.Samples.Integrated).
func LoudnessMeter(rate int) *Meter {
	return &Meter{Rate: rate, Step: facetrack.LoudnessStep, KWeighted: true}
}

// biquad is a second-order IIR filter (direct form I, a0 = 1).
type biquad struct {
	b0, b1, b2, a1, a2 float64
	x1, x2, y1, y2     float64
}

func (f *biquad) filter(x float64) float64 {
	y := f.b0*x + f.b1*f.x1 + f.b2*f.x2 - f.a1*f.y1 - f.a2*f.y2
	f.x2, f.x1, f.y2, f.y1 = f.x1, x, f.y1, y
	return y
}

// kWeighting is BS.1770's two stages (a high shelf of about +4 dB above
// 1.7 kHz, then a high-pass at 38 Hz) designed for the sample rate rate,
// as libebur128 designs them for any rate. A rate that cuts the top of
// the band (clips' 8 kHz) reads a little quieter a sound with much above
// 4 kHz; speech has little there.
func kWeighting(rate float64) [2]biquad {
	const (
		shelfF, shelfGain, shelfQ = 1681.974450955533, 3.999843853973347, 0.7071752369554196
		passF, passQ              = 38.13547087602444, 0.5003270373238773
	)
	k := math.Tan(math.Pi * shelfF / rate)
	vh := math.Pow(10, shelfGain/20)
	vb := math.Pow(vh, 0.4996667741545416)
	a0 := 1 + k/shelfQ + k*k
	shelf := biquad{b0: (vh + vb*k/shelfQ + k*k) / a0, b1: 2 * (k*k - vh) / a0, b2: (vh - vb*k/shelfQ + k*k) / a0,
		a1: 2 * (k*k - 1) / a0, a2: (1 - k/shelfQ + k*k) / a0}
	k = math.Tan(math.Pi * passF / rate)
	a0 = 1 + k/passQ + k*k
	pass := biquad{b0: 1, b1: -2, b2: 1, a1: 2 * (k*k - 1) / a0, a2: (1 - k/passQ + k*k) / a0}
	return [2]biquad{shelf, pass}
}
