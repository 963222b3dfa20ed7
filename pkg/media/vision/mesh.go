package vision

import (
	"image"
	"math"
)

// Triangulate returns the Delaunay triangulation of pts (points as
// x + iy) as triples of indices into pts, each with its corners
// counter-clockwise in x-right, y-up terms (a positive cross product).
// Together the triangles cover the convex hull of pts. Points equal to
// an earlier one are left out (a closed mouth's inner lip points
// coincide), so no triangle is degenerate. It is Bowyer and Watson's
// incremental algorithm, quadratic in the number of points: meant for
// a face's landmarks, not for point clouds.
func Triangulate(pts []complex128) [][3]int {
	if len(pts) < 3 {
		return nil
	}
	// A super-triangle far outside every point; its corners get the
	// indices n, n+1, n+2 and are dropped at the end.
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range pts {
		minX, maxX = math.Min(minX, real(p)), math.Max(maxX, real(p))
		minY, maxY = math.Min(minY, imag(p)), math.Max(maxY, imag(p))
	}
	span := math.Max(math.Max(maxX-minX, maxY-minY), 1)
	mid := complex((minX+maxX)/2, (minY+maxY)/2)
	n := len(pts)
	all := append(append([]complex128(nil), pts...),
		mid+complex(-20*span, -10*span), mid+complex(20*span, -10*span), mid+complex(0, 20*span))
	tris := []triangle{newTriangle(all, n, n+1, n+2)}
	// Coincidence is judged relative to the points' spread.
	same := 1e-9 * span
	for i := range n {
		p := all[i]
		duplicate := false
		for j := range i {
			if cmplxAbs(all[j]-p) <= same {
				duplicate = true
				break
			}
		}
		if duplicate {
			continue
		}
		// The triangles whose circumcircle holds p go; the hole they
		// leave is star-shaped around p and is filled by joining p to its
		// boundary edges (those of one removed triangle only).
		var edges [][2]int
		kept := tris[:0:0]
		for _, t := range tris {
			if !t.circumcircleHolds(p) {
				kept = append(kept, t)
				continue
			}
			for k := range 3 {
				e := [2]int{t.v[k], t.v[(k+1)%3]}
				shared := false
				for m, f := range edges {
					if f[0] == e[1] && f[1] == e[0] {
						edges = append(edges[:m], edges[m+1:]...)
						shared = true
						break
					}
				}
				if !shared {
					edges = append(edges, e)
				}
			}
		}
		for _, e := range edges {
			kept = append(kept, newTriangle(all, e[0], e[1], i))
		}
		tris = kept
	}
	out := make([][3]int, 0, len(tris))
	for _, t := range tris {
		if t.v[0] < n && t.v[1] < n && t.v[2] < n {
			out = append(out, t.v)
		}
	}
	return out
}

// triangle is one triangle of a triangulation under way, with its
// circumcircle.
type triangle struct {
	v      [3]int
	centre complex128
	r2     float64
}

// newTriangle makes the triangle of all[a], all[b], all[c] with its
// corners ordered counter-clockwise.
func newTriangle(all []complex128, a, b, c int) triangle {
	pa, pb, pc := all[a], all[b], all[c]
	if cross(pb-pa, pc-pa) < 0 {
		b, c = c, b
		pb, pc = pc, pb
	}
	// The circumcentre, relative to pa.
	bx, by := real(pb-pa), imag(pb-pa)
	cx, cy := real(pc-pa), imag(pc-pa)
	d := 2 * (bx*cy - by*cx)
	b2, c2 := bx*bx+by*by, cx*cx+cy*cy
	ux, uy := (cy*b2-by*c2)/d, (bx*c2-cx*b2)/d
	return triangle{v: [3]int{a, b, c}, centre: pa + complex(ux, uy), r2: ux*ux + uy*uy}
}

// circumcircleHolds reports whether p lies strictly inside t's
// circumcircle (within a relative tolerance, so that a point on it, as
// the corners of a square are, does not split the triangle twice).
func (t triangle) circumcircleHolds(p complex128) bool {
	d := p - t.centre
	return real(d)*real(d)+imag(d)*imag(d) < t.r2*(1-1e-12)
}

func cross(a, b complex128) float64 { return real(a)*imag(b) - imag(a)*real(b) }

func cmplxAbs(z complex128) float64 { return math.Hypot(real(z), imag(z)) }

// Mesh is a piecewise-affine map between two planes: From's points go to
// To's (same index) and the points between them follow the triangle of
// Triangles (indices, a Delaunay triangulation of From) they fall in,
// by their barycentric coordinates. It is how a face's landmarks, and
// every pixel between them, are carried onto another face's.
type Mesh struct {
	From, To  []complex128
	Triangles [][3]int
}

// NewMesh returns the mesh taking from onto to, which must have the same
// length, over the Delaunay triangulation of from.
func NewMesh(from, to []complex128) Mesh {
	return Mesh{From: from, To: to, Triangles: Triangulate(from)}
}

// Grid maps the centre of every pixel of r, in From's plane, into To's:
// pts and ok are row-major over r, and ok is false (pts zero) for a
// pixel outside the triangulation. Each triangle is rasterised over its
// bounding box, so the cost is that of r plus the triangles' edges.
func (m Mesh) Grid(r image.Rectangle) (pts []complex128, ok []bool) {
	w, h := r.Dx(), r.Dy()
	pts = make([]complex128, w*h)
	ok = make([]bool, w*h)
	for _, t := range m.Triangles {
		a, b, c := m.From[t[0]], m.From[t[1]], m.From[t[2]]
		area := cross(b-a, c-a)
		if area <= 0 {
			continue
		}
		ta, tb, tc := m.To[t[0]], m.To[t[1]], m.To[t[2]]
		x0 := max(r.Min.X, int(math.Floor(math.Min(real(a), math.Min(real(b), real(c))))))
		x1 := min(r.Max.X-1, int(math.Ceil(math.Max(real(a), math.Max(real(b), real(c))))))
		y0 := max(r.Min.Y, int(math.Floor(math.Min(imag(a), math.Min(imag(b), imag(c))))))
		y1 := min(r.Max.Y-1, int(math.Ceil(math.Max(imag(a), math.Max(imag(b), imag(c))))))
		// A pixel on an edge shared by two triangles is in both; the
		// map is continuous, so either gives the same point.
		eps := -1e-9 * area
		for y := y0; y <= y1; y++ {
			for x := x0; x <= x1; x++ {
				i := (y-r.Min.Y)*w + x - r.Min.X
				if ok[i] {
					continue
				}
				p := complex(float64(x)+0.5, float64(y)+0.5)
				la := cross(b-p, c-p)
				lb := cross(c-p, a-p)
				lc := area - la - lb
				if la < eps || lb < eps || lc < eps {
					continue
				}
				pts[i] = (complex(la, 0)*ta + complex(lb, 0)*tb + complex(lc, 0)*tc) / complex(area, 0)
				ok[i] = true
			}
		}
	}
	return pts, ok
}
