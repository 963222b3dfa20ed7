package facetrack_test

import (
	"testing"

	"hookline.dev/services/clips/internal/facetrack"
)

// Slice re-bases the samples of a span to its start, nearest sample
// first, and refuses a span the samples do not cover.
func TestSlice(t *testing.T) {
	s := &facetrack.Samples{Frames: make([][]facetrack.Face, 40), Loudness: make([]float64, 40)}
	for i := range s.Loudness {
		s.Loudness[i] = float64(i)
	}
	frames, db, ok := s.Slice(2.1, 5)
	if !ok || len(frames) != 12 || db[0] != 8 || db[len(db)-1] != 19 {
		t.Fatalf("2.1–5 s: ok %v, %d frames, loudness %v", ok, len(frames), db)
	}
	if _, _, ok := s.Slice(8, 10.5); ok {
		t.Error("a span past the samples' end was sliced")
	}
	if _, _, ok := (*facetrack.Samples)(nil).Slice(0, 1); ok {
		t.Error("no samples sliced")
	}
}
