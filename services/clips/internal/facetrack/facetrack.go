// Package facetrack samples the faces a video shows and the loudness of
// its speech, FPS times a second: where each face is (pigo boxes on a
// small grey copy of the frame), how open its mouth is where two or more
// faces share the frame (the landmarks that tell who is speaking), and
// the dBFS of the sound around each sample (media.SpeechMeter).
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
