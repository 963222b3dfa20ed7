package vision

import (
	"image"
	"math"
)

// Landmarks are the 68 points of the iBUG 300-W markup that dlib's shape
// predictor places on a face, in the coordinates of the analysed image:
// jaw 0–16 (the subject's right ear round the chin to the left ear), brows
// 17–26, nose 27–35, eyes 36–47, outer lips 48–59 and inner lips 60–67.
type Landmarks [68]image.Point

// The ranges of the markup, as half-open [start, end) point indices.
const (
	JawStart, JawEnd             = 0, 17
	BrowsStart, BrowsEnd         = 17, 27
	NoseStart, NoseEnd           = 27, 36
	RightEyeStart, RightEyeEnd   = 36, 42
	LeftEyeStart, LeftEyeEnd     = 42, 48
	OuterLipsStart, OuterLipsEnd = 48, 60
	InnerLipsStart, InnerLipsEnd = 60, 68
)

// Centroid is the mean of the points in [start, end).
func (l *Landmarks) Centroid(start, end int) (x, y float64) {
	for _, p := range l[start:end] {
		x += float64(p.X)
		y += float64(p.Y)
	}
	n := float64(end - start)
	return x / n, y / n
}

// FaceWidth is the distance between the jaw's two ends (ear to ear at eye
// height), the scale the other measures are divided by.
func (l *Landmarks) FaceWidth() float64 {
	return dist(l[0], l[16])
}

// EyeDistance is the distance between the two eye centres.
func (l *Landmarks) EyeDistance() float64 {
	rx, ry := l.Centroid(RightEyeStart, RightEyeEnd)
	lx, ly := l.Centroid(LeftEyeStart, LeftEyeEnd)
	return math.Hypot(lx-rx, ly-ry)
}

// MouthOpening is the gap between the inner lips (points 61–63 against
// 67–65) over the face width: about 0 for a closed mouth, 0.1 and more
// for speech or a laugh.
func (l *Landmarks) MouthOpening() float64 {
	w := l.FaceWidth()
	if w == 0 {
		return 0
	}
	gap := (dist(l[61], l[67]) + dist(l[62], l[66]) + dist(l[63], l[65])) / 3
	return gap / w
}

// SmileWidth is the distance between the mouth corners (48 and 54) over
// the face width: about 0.35–0.4 at rest, more in a broad smile.
func (l *Landmarks) SmileWidth() float64 {
	w := l.FaceWidth()
	if w == 0 {
		return 0
	}
	return dist(l[48], l[54]) / w
}

// BrowRaise is the mean height of the brows above the eyes over the face
// width: about 0.1 at rest, more when the brows are raised in surprise.
func (l *Landmarks) BrowRaise() float64 {
	w := l.FaceWidth()
	if w == 0 {
		return 0
	}
	_, browY := l.Centroid(BrowsStart, BrowsEnd)
	_, eyeY := l.Centroid(RightEyeStart, LeftEyeEnd)
	return (eyeY - browY) / w
}

// Hull is the outline of the face as a closed polygon: the jaw line from
// ear to ear, then the brows lifted by forehead (a fraction of the distance
// from the brows to the chin; 0.35 reaches the hairline on most faces), in
// order, so it can be filled as a polygon.
func (l *Landmarks) Hull(forehead float64) []image.Point {
	_, browY := l.Centroid(BrowsStart, BrowsEnd)
	lift := forehead * (float64(l[8].Y) - browY)
	// Tilt the lift with the face: along the direction from the chin to
	// the point between the brows.
	bx, by := l.Centroid(BrowsStart, BrowsEnd)
	dx, dy := bx-float64(l[8].X), by-float64(l[8].Y)
	n := math.Hypot(dx, dy)
	if n == 0 {
		n = 1
	}
	ux, uy := dx/n, dy/n
	pts := make([]image.Point, 0, 27)
	pts = append(pts, l[JawStart:JawEnd]...)
	// The brows run from the subject's right (17) to left (26); walking the
	// hull back from the left ear (16) takes them in reverse.
	for i := BrowsEnd - 1; i >= BrowsStart; i-- {
		p := l[i]
		pts = append(pts, image.Pt(int(math.Round(float64(p.X)+ux*lift)), int(math.Round(float64(p.Y)+uy*lift))))
	}
	return pts
}

// Bounds is the smallest rectangle holding every point.
func (l *Landmarks) Bounds() image.Rectangle {
	return outline(l[:])
}

// outline is the smallest rectangle holding the points (which must be at
// least one).
func outline(pts []image.Point) image.Rectangle {
	r := image.Rectangle{Min: pts[0], Max: pts[0].Add(image.Pt(1, 1))}
	for _, p := range pts[1:] {
		r = r.Union(image.Rectangle{Min: p, Max: p.Add(image.Pt(1, 1))})
	}
	return r
}

// Translate returns the landmarks moved by d.
func (l *Landmarks) Translate(d image.Point) *Landmarks {
	out := *l
	for i := range out {
		out[i] = out[i].Add(d)
	}
	return &out
}

func dist(a, b image.Point) float64 {
	return math.Hypot(float64(a.X-b.X), float64(a.Y-b.Y))
}
