// Package facetrack samples the faces a video shows and the loudness of
// its speech, FPS times a second: where each face is (pigo boxes on a
// small grey copy of the frame), how open its mouth is where two or more
// faces share the frame (the landmarks that tell who is speaking), and
// the dBFS of the sound around each sample (media.SpeechMeter) — and
// the sound's K-weighted loudness, for a render to normalise its clip's
// in one pass (Samples.Integrated).
//
// Preparation samples a whole source once, in the decode it makes for its
// scene cuts; a render reads its clip's slice (Samples.Slice) instead of
// decoding the clip again to track its faces.
package facetrack

import (
	"image"
	"math"
	"sort"

	"hookline.dev/pkg/media/vision"
)

// Sampling parameters: FPS samples a second, on frames Width pixels wide;
// the loudness of a sample is that of the EnergyWindow seconds around it.
const (
	FPS          = 4
	Width        = 480
	EnergyWindow = 0.12
	// LoudnessStep is the hop, in seconds, of the K-weighted loudness:
	// BS.1770's 0.4 s gating blocks overlap by three quarters.
	LoudnessStep = 0.1
)

// Face is a face found in one sample, in source pixels, with its mouth
// opening (NaN when not measured).
type Face struct {
	Box  image.Rectangle
	Open float64
}

// Samples are a video's faces and loudness sampled FPS times a second
// from its start: Frames[k] and Loudness[k] at k/FPS seconds.
type Samples struct {
	Frames [][]Face
	// Loudness is dBFS (−100 for silence); nil without sound.
	Loudness []float64
	// Weighted is the K-weighted loudness (ITU-R BS.1770, LUFS; −100
	// for silence) of each LoudnessStep from the start; nil without sound
	// or for a source sampled before it was measured.
	Weighted []float64
}

// Integrated is the integrated loudness (ITU-R BS.1770-4, LUFS) of
// start..end (seconds): the mean power of its 0.4 s blocks, gated at
// −70 LUFS and then 10 LU under the mean of those. ok is false when the
// loudness does not cover the span or all of it is gated out (silence).
func (s *Samples) Integrated(start, end float64) (lufs float64, ok bool) {
	if s == nil || end <= start {
		return 0, false
	}
	const perBlock = 4 // steps a block
	first, last := int(math.Round(start/LoudnessStep)), int(math.Round(end/LoudnessStep))
	if first < 0 || last > len(s.Weighted) || last-first < perBlock {
		return 0, false
	}
	power := func(lufs float64) float64 { return math.Pow(10, (lufs+0.691)/10) }
	var blocks []float64
	for k := first; k+perBlock <= last; k++ {
		var p float64
		for _, l := range s.Weighted[k : k+perBlock] {
			p += power(l)
		}
		blocks = append(blocks, p/perBlock)
	}
	gated := func(floor float64) (mean float64, n int) {
		for _, p := range blocks {
			if p > floor {
				mean += p
				n++
			}
		}
		if n == 0 {
			return 0, 0
		}
		return mean / float64(n), n
	}
	mean, n := gated(power(-70))
	if n == 0 {
		return 0, false
	}
	if mean, n = gated(mean * math.Pow(10, -1)); n == 0 {
		return 0, false
	}
	return -0.691 + 10*math.Log10(mean), true
}

// Slice is the samples of start..end (seconds), re-based to start: the
// sample nearest each of the clip's own sample times. ok is false when
// the samples do not cover the span (a source sampled before faces were
// kept, or cut short).
func (s *Samples) Slice(start, end float64) (frames [][]Face, loudness []float64, ok bool) {
	if s == nil || end <= start {
		return nil, nil, false
	}
	first := int(math.Round(start * FPS))
	n := int(math.Ceil((end - start) * FPS))
	if first < 0 || first+n > len(s.Frames)+1 {
		return nil, nil, false
	}
	n = min(n, len(s.Frames)-first)
	frames = s.Frames[first : first+n]
	if len(s.Loudness) >= first+n {
		loudness = s.Loudness[first : first+n]
	}
	return frames, loudness, true
}

// Landmarker places the 68 landmarks on a face in a box found by another
// detector (*dlib.Model).
type Landmarker interface {
	Landmarks(img image.Image, box image.Rectangle) *vision.Landmarks
}

// Sampler finds the faces of one grey frame.
type Sampler struct {
	Faces *vision.Detector
	// Landmarks, when set, measures the mouths of frames with two faces
	// or more (a lone face's mouth decides nothing).
	Landmarks Landmarker
}

// Frame is the faces of img, a frame scaled down by scale from the
// source's pixels.
func (s Sampler) Frame(img *image.Gray, scale float64) []Face {
	if s.Faces == nil {
		return nil
	}
	fs := s.Faces.Detect(img)
	out := make([]Face, 0, len(fs))
	for _, f := range fs {
		face := Face{Box: scaleRect(f.Rect, scale), Open: math.NaN()}
		if s.Landmarks != nil && len(fs) > 1 {
			if lm := s.Landmarks.Landmarks(img, f.Rect); lm != nil {
				face.Open = lm.MouthOpening()
			}
		}
		out = append(out, face)
	}
	return out
}

// Height is the height of a sampled frame of a w×h video (even).
func Height(w, h int) int {
	return int(math.Round(float64(h)*float64(Width)/float64(w)/2)) * 2
}

// scaleRect is r scaled by k.
func scaleRect(r image.Rectangle, k float64) image.Rectangle {
	return image.Rect(int(math.Round(float64(r.Min.X)*k)), int(math.Round(float64(r.Min.Y)*k)),
		int(math.Round(float64(r.Max.X)*k)), int(math.Round(float64(r.Max.Y)*k)))
}

// Energy maps loudness to 0..1 over the 40 dB below the loud parts (the
// 95th percentile): how much speech there is at each sample, for the
// mouths to be compared with.
func Energy(db []float64) []float64 {
	if len(db) == 0 {
		return nil
	}
	sorted := append([]float64(nil), db...)
	sort.Float64s(sorted)
	loud := sorted[len(sorted)*95/100]
	out := make([]float64, len(db))
	for i, d := range db {
		out[i] = math.Max(0, math.Min(1, (d-loud+40)/40))
	}
	return out
}
