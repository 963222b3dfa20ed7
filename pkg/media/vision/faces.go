// Package vision is the image analysis shared by the services
// (ARCHITECTURE §7): frontal face detection with the pure-Go pigo detector
// (github.com/esimov/pigo), tuned for user photos and thumbnails, square face
// crops (framed by the landmarks when the face has them), and saliency.
// Assets crops the face of a face upload that pkg/media/vision/dlib found;
// thumbnails uses the package for cut-outs, critique and text placement;
// clips uses pigo to track faces when reframing video.
package vision

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"math"
	"sort"
	"sync"

	pigo "github.com/esimov/pigo/core"
)

// facefinderCascade is pigo v1.4.6's frontal-face cascade, vendored so the
// binary does not need the module cache at run time (see cascade/README.md).
//
//go:embed cascade/facefinder
var facefinderCascade []byte

// Detection parameters. They were tuned against pigo's sample photo (a face
// must be found) and against flat, gradient and noise images (nothing may be
// found); see the tests.
const (
	// maxSide is the longest side, in pixels, an image is shrunk to before
	// the cascade runs. The cascade's cost grows with the pixel count and
	// faces worth a thumbnail are large, so detail beyond this buys nothing.
	maxSide = 720
	// minFaceFraction is the smallest face considered, as a fraction of the
	// shorter image side. Tiny faces make poor thumbnails and are where
	// false positives live.
	minFaceFraction = 0.08
	// minFacePixels is an absolute floor below which the cascade's 24×24
	// style features stop being meaningful.
	minFacePixels = 20
	// shiftFactor moves the window by 10% of its size per step; scaleFactor
	// grows it by 10% per scale. Together they trade a little speed for not
	// stepping over a face.
	shiftFactor = 0.1
	scaleFactor = 1.1
	// iouThreshold merges overlapping raw detections into one face.
	iouThreshold = 0.2
	// minScore is the least summed cluster score accepted as a face. pigo's
	// own tools use 5; the same value rejects the synthetic negatives while
	// the sample photo scores well above it.
	minScore = 5.0
)

// Face is one detected face, in the coordinates of the image passed to
// Detect.
type Face struct {
	// Rect is the square the cascade matched, clamped to the image bounds.
	// It spans roughly brows to chin, so crops add a margin around it.
	Rect image.Rectangle
	// Score is the detector's confidence: for pigo the cascade's score
	// summed over the merged raw detections; higher is more certain. Only
	// comparable between faces found by the same detector.
	Score float32
	// Landmarks are the face's 68 points when the detector places them
	// (pkg/media/vision/dlib); nil from pigo, which finds boxes only.
	Landmarks *Landmarks
}

// Finder finds faces: *Detector (pigo, boxes only) and *dlib.Model
// (boxes and landmarks) both are one.
type Finder interface {
	Detect(img image.Image) []Face
}

// Detector finds faces. The zero value is not usable; call New. A Detector
// only reads its cascade after construction, so one value may be shared by
// any number of goroutines.
type Detector struct {
	cls *pigo.Pigo
}

// unpackCascade parses the embedded cascade once per process: every Detector
// shares the same read-only trees, which are about 0.5 MB once expanded.
var unpackCascade = sync.OnceValues(func() (*pigo.Pigo, error) {
	if err := checkCascade(facefinderCascade); err != nil {
		return nil, err
	}
	return pigo.NewPigo().Unpack(facefinderCascade)
})

// ErrBadCascade reports that the embedded cascade is not a well-formed pigo
// cascade. It can only happen if the vendored file was damaged.
var ErrBadCascade = errors.New("vision: malformed cascade")

// checkCascade validates the cascade's layout before pigo reads it, because
// pigo's Unpack indexes the buffer without bounds checks and would panic on
// a truncated file.
func checkCascade(b []byte) error {
	const header = 16 // 8 reserved bytes, tree depth, tree count
	if len(b) < header {
		return fmt.Errorf("%w: %d bytes", ErrBadCascade, len(b))
	}
	depth := binary.LittleEndian.Uint32(b[8:])
	trees := binary.LittleEndian.Uint32(b[12:])
	if depth == 0 || depth > 16 || trees == 0 || trees > 1<<16 {
		return fmt.Errorf("%w: depth %d, trees %d", ErrBadCascade, depth, trees)
	}
	leaves := 1 << depth
	// Per tree: 4 signed bytes per inner node (leaves-1 nodes), one float32
	// prediction per leaf, one float32 threshold.
	perTree := 4*(leaves-1) + 4*leaves + 4
	if want := header + int(trees)*perTree; len(b) != want {
		return fmt.Errorf("%w: %d bytes, want %d", ErrBadCascade, len(b), want)
	}
	return nil
}

// New returns a Detector using the embedded frontal-face cascade.
// It returns an error wrapping ErrBadCascade if the cascade cannot be read.
func New() (*Detector, error) {
	cls, err := unpackCascade()
	if err != nil {
		return nil, err
	}
	return &Detector{cls: cls}, nil
}

// Detect returns the frontal faces in img, most confident first. It returns
// nil when there are none, or when the image is too small to hold a face of
// the minimum size. Large images are shrunk first (longest side 720 px) and
// the rectangles mapped back, so the result is in img's own coordinates.
func (d *Detector) Detect(img image.Image) []Face {
	if d == nil || d.cls == nil || img == nil {
		return nil
	}
	b := img.Bounds()
	sw, sh := b.Dx(), b.Dy()
	if sw <= 0 || sh <= 0 {
		return nil
	}
	w, h := sw, sh
	if longest := max(sw, sh); longest > maxSide {
		s := float64(maxSide) / float64(longest)
		w = max(1, int(math.Round(float64(sw)*s)))
		h = max(1, int(math.Round(float64(sh)*s)))
	}
	short := min(w, h)
	minSize := max(minFacePixels, int(float64(short)*minFaceFraction))
	if minSize > short {
		return nil
	}

	gray := luma(img, w, h)
	params := pigo.CascadeParams{
		MinSize:     minSize,
		MaxSize:     short,
		ShiftFactor: shiftFactor,
		ScaleFactor: scaleFactor,
		ImageParams: pigo.ImageParams{Pixels: gray, Rows: h, Cols: w, Dim: w},
	}
	raw := d.cls.RunCascade(params, 0)
	clusters := d.cls.ClusterDetections(raw, iouThreshold)

	fx := float64(sw) / float64(w)
	fy := float64(sh) / float64(h)
	var faces []Face
	for _, c := range clusters {
		if c.Q < minScore {
			continue
		}
		half := float64(c.Scale) / 2
		r := image.Rect(
			b.Min.X+int(math.Round((float64(c.Col)-half)*fx)),
			b.Min.Y+int(math.Round((float64(c.Row)-half)*fy)),
			b.Min.X+int(math.Round((float64(c.Col)+half)*fx)),
			b.Min.Y+int(math.Round((float64(c.Row)+half)*fy)),
		).Intersect(b)
		if r.Empty() {
			continue
		}
		faces = append(faces, Face{Rect: r, Score: c.Q})
	}
	// Ties are broken by position so equal inputs always give equal output.
	sort.Slice(faces, func(i, j int) bool {
		a, c := faces[i], faces[j]
		if a.Score != c.Score {
			return a.Score > c.Score
		}
		if a.Rect.Min.Y != c.Rect.Min.Y {
			return a.Rect.Min.Y < c.Rect.Min.Y
		}
		return a.Rect.Min.X < c.Rect.Min.X
	})
	return suppress(faces)
}

// suppress drops faces that overlap a more confident one. pigo's clustering
// merges raw detections around each seed independently, so one real face
// can leave several nested clusters behind; a face upload must report that
// face once. faces must be sorted by score, descending.
func suppress(faces []Face) []Face {
	kept := faces[:0]
next:
	for _, f := range faces {
		for _, k := range kept {
			inter := area(f.Rect.Intersect(k.Rect))
			union := area(f.Rect) + area(k.Rect) - inter
			smaller := min(area(f.Rect), area(k.Rect))
			// Overlapping by the clustering IoU, or mostly inside the other
			// box, means the same face seen at another scale.
			if float64(inter) > iouThreshold*float64(union) || 2*inter > smaller {
				continue next
			}
		}
		kept = append(kept, f)
	}
	return kept
}

func area(r image.Rectangle) int {
	return r.Dx() * r.Dy()
}

// Gray returns img's BT.601 luma box-filtered to w×h, row-major; see luma.
func Gray(img image.Image, w, h int) []uint8 {
	return luma(img, w, h)
}

// luma returns img's BT.601 luma (the weighting pigo's cascade was trained
// on) box-filtered to w×h, row-major. Shrinking while converting avoids ever
// holding a full-resolution grey copy of a large photo. Transparent pixels
// count as composited over black.
func luma(img image.Image, w, h int) []uint8 {
	b := img.Bounds()
	sw, sh := b.Dx(), b.Dy()
	out := make([]uint8, w*h)
	if w == sw && h == sh {
		for y := range sh {
			rowLuma(img, b.Min.Y+y, out[y*w:(y+1)*w])
		}
		return out
	}

	// Each source pixel lands in exactly one destination cell; the cell is
	// the plain mean of its pixels. With integer cell boundaries the error
	// is at most one source pixel per cell, invisible to the cascade.
	colCell := make([]int, sw)
	for x := range colCell {
		colCell[x] = x * w / sw
	}
	colCount := make([]uint32, w)
	for _, c := range colCell {
		colCount[c]++
	}
	sums := make([]uint32, w*h)
	rowCount := make([]uint32, h)
	row := make([]uint8, sw)
	for y := range sh {
		cy := y * h / sh
		rowCount[cy]++
		rowLuma(img, b.Min.Y+y, row)
		acc := sums[cy*w : (cy+1)*w]
		for x, v := range row {
			acc[colCell[x]] += uint32(v)
		}
	}
	for cy := range h {
		for cx := range w {
			n := rowCount[cy] * colCount[cx]
			if n == 0 {
				continue
			}
			out[cy*w+cx] = uint8((sums[cy*w+cx] + n/2) / n) //nolint:gosec // G115: rounded mean of n 8-bit samples, at most 255
		}
	}
	return out
}

// rowLuma writes the luma of image row y (absolute coordinate) into dst,
// which has one entry per column of img's bounds. The common decoder output
// types are read directly; anything else goes through the colour model.
func rowLuma(img image.Image, y int, dst []uint8) {
	b := img.Bounds()
	switch m := img.(type) {
	case *image.YCbCr:
		// JPEG's Y channel already is full-range BT.601 luma.
		off := m.YOffset(b.Min.X, y)
		copy(dst, m.Y[off:off+len(dst)])
	case *image.Gray:
		off := m.PixOffset(b.Min.X, y)
		copy(dst, m.Pix[off:off+len(dst)])
	case *image.RGBA:
		p := m.Pix[m.PixOffset(b.Min.X, y):]
		for x := range dst {
			i := 4 * x
			dst[x] = luma8(uint32(p[i]), uint32(p[i+1]), uint32(p[i+2]))
		}
	case *image.NRGBA:
		p := m.Pix[m.PixOffset(b.Min.X, y):]
		for x := range dst {
			i := 4 * x
			a := uint32(p[i+3])
			r := (uint32(p[i])*a + 127) / 255
			g := (uint32(p[i+1])*a + 127) / 255
			bb := (uint32(p[i+2])*a + 127) / 255
			dst[x] = luma8(r, g, bb)
		}
	default:
		for x := range dst {
			r, g, bb, _ := img.At(b.Min.X+x, y).RGBA()
			dst[x] = luma8(r>>8, g>>8, bb>>8)
		}
	}
}

// luma8 is BT.601 luma of 8-bit (premultiplied) components, rounded.
func luma8(r, g, b uint32) uint8 {
	return uint8((299*r + 587*g + 114*b + 500) / 1000) //nolint:gosec // G115: weights sum to 1000, so 8-bit inputs give at most 255
}
