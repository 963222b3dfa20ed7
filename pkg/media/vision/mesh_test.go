package vision

import (
	"image"
	"math"
	"math/rand/v2"
	"testing"
)

// checkDelaunay checks that tris are counter-clockwise, that no point of
// pts lies strictly inside a triangle's circumcircle, and that their
// areas add up to want (the convex hull's).
func checkDelaunay(t *testing.T, pts []complex128, tris [][3]int, want float64) {
	t.Helper()
	total := 0.0
	for _, tr := range tris {
		a, b, c := pts[tr[0]], pts[tr[1]], pts[tr[2]]
		area := cross(b-a, c-a) / 2
		if area <= 0 {
			t.Fatalf("triangle %v has area %g", tr, area)
		}
		total += area
		cc := newTriangle(pts, tr[0], tr[1], tr[2])
		for i, p := range pts {
			if i != tr[0] && i != tr[1] && i != tr[2] && cmplxAbs(p-cc.centre) < math.Sqrt(cc.r2)*(1-1e-9) {
				t.Fatalf("point %d %v inside the circumcircle of %v", i, p, tr)
			}
		}
	}
	if math.Abs(total-want) > 1e-6*want {
		t.Errorf("triangles cover %.3f, want %.3f", total, want)
	}
}

func TestTriangulateAGridWithDuplicates(t *testing.T) {
	var pts []complex128
	for y := range 5 {
		for x := range 6 {
			pts = append(pts, complex(float64(10*x), float64(7*y)))
		}
	}
	pts = append(pts, pts[7], pts[20]) // coincident points, as a closed mouth's
	tris := Triangulate(pts)
	if len(tris) != 2*5*4 {
		t.Errorf("%d triangles for a 6×5 grid, want 40", len(tris))
	}
	for _, tr := range tris {
		for _, v := range tr {
			if v >= 30 {
				t.Fatalf("a duplicate point (%d) was triangulated", v)
			}
		}
	}
	checkDelaunay(t, pts, tris, 50*28)
}

func TestTriangulateRandomPointsInASquare(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pts := []complex128{0, 100, 100 + 100i, 100i}
	for range 80 {
		pts = append(pts, complex(1+98*r.Float64(), 1+98*r.Float64()))
	}
	checkDelaunay(t, pts, Triangulate(pts), 100*100)
	if Triangulate(pts[:2]) != nil {
		t.Error("two points triangulated")
	}
}

// A mesh whose points are moved by one affine map is that map everywhere
// inside, and maps nothing outside.
func TestMeshReproducesAnAffineMap(t *testing.T) {
	affine := func(z complex128) complex128 {
		return complex(1.3*real(z)-0.4*imag(z)+5, 0.2*real(z)+0.9*imag(z)-3)
	}
	r := rand.New(rand.NewPCG(3, 4))
	from := []complex128{10 + 10i, 90 + 10i, 90 + 70i, 10 + 70i}
	for range 30 {
		from = append(from, complex(10+80*r.Float64(), 10+60*r.Float64()))
	}
	to := make([]complex128, len(from))
	for i, z := range from {
		to[i] = affine(z)
	}
	m := NewMesh(from, to)
	box := image.Rect(0, 0, 100, 80)
	pts, ok := m.Grid(box)
	inside := 0
	for y := range 80 {
		for x := range 100 {
			i := y*100 + x
			in := x >= 10 && x < 90 && y >= 10 && y < 70
			if ok[i] != in {
				t.Fatalf("pixel (%d,%d): in the mesh %v, want %v", x, y, ok[i], in)
			}
			if !in {
				continue
			}
			inside++
			if d := cmplxAbs(pts[i] - affine(complex(float64(x)+0.5, float64(y)+0.5))); d > 1e-9 {
				t.Fatalf("pixel (%d,%d) mapped %g off", x, y, d)
			}
		}
	}
	if inside != 80*60 {
		t.Errorf("%d pixels mapped", inside)
	}
}

// Grid over a rectangle that does not start at the origin, with a mesh
// that is not affine: the mesh's points go to their images, and the map
// is continuous across the triangles' edges.
func TestMeshIsPiecewiseAffineAndContinuous(t *testing.T) {
	from := []complex128{0, 40, 40 + 40i, 40i, 20.5 + 20.5i}
	to := []complex128{0, 40, 40 + 40i, 40i, 12.5 + 27.5i} // the centre pulled aside
	m := NewMesh(from, to)
	r := image.Rect(5, 5, 40, 40)
	pts, ok := m.Grid(r)
	at := func(x, y int) complex128 { return pts[(y-r.Min.Y)*r.Dx()+x-r.Min.X] }
	if !ok[(20-5)*r.Dx()+20-5] || cmplxAbs(at(20, 20)-to[4]) > 1e-9 {
		t.Errorf("the centre pixel maps to %v, want %v", at(20, 20), to[4])
	}
	for y := 5; y < 40; y++ {
		for x := 5; x < 39; x++ {
			if d := cmplxAbs(at(x+1, y) - at(x, y)); d > 2 {
				t.Fatalf("the map jumps by %.2f between (%d,%d) and its right neighbour", d, x, y)
			}
		}
	}
}
