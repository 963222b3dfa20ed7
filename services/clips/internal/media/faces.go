package media

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"io"
	"runtime"
	"sync"

	"hookline.dev/services/clips/internal/facetrack"
)

// sampleFaces reads grey frames w×h from r and sets into.Frames to the
// faces of each (in source pixels: the frames are scaled down by scale),
// searching GOMAXPROCS frames at once: the face search, not the decode,
// is most of the cost. A frame the same to the byte as the one before it
// (a still picture: slides, a podcast's cover, a paused camera) has the
// same faces, which are copied rather than searched again.
func sampleFaces(r io.Reader, w, h int, scale float64, s *facetrack.Sampler, into *facetrack.Samples) error {
	type frame struct {
		i   int
		img *image.Gray
	}
	workers := runtime.GOMAXPROCS(0)
	frames := make(chan frame, workers)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for f := range frames {
				faces := s.Frame(f.img, scale)
				mu.Lock()
				for len(into.Frames) <= f.i {
					into.Frames = append(into.Frames, nil)
				}
				into.Frames[f.i] = faces
				mu.Unlock()
			}
		})
	}
	var err error
	var prev *image.Gray
	var repeats []int // frames the same as the one before, in order
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := 0; ; i++ {
		if _, rerr := io.ReadFull(r, img.Pix); rerr != nil {
			if rerr != io.EOF && !errors.Is(rerr, io.ErrUnexpectedEOF) {
				err = fmt.Errorf("reading frames: %w", rerr)
			}
			break
		}
		if prev != nil && bytes.Equal(img.Pix, prev.Pix) {
			repeats = append(repeats, i)
			continue
		}
		frames <- frame{i, img}
		prev, img = img, image.NewGray(image.Rect(0, 0, w, h))
	}
	close(frames)
	wg.Wait()
	for _, i := range repeats {
		for len(into.Frames) <= i {
			into.Frames = append(into.Frames, nil)
		}
		into.Frames[i] = into.Frames[i-1]
	}
	return err
}
