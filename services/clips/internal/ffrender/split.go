package ffrender

import (
	"fmt"
	"image"
	"math"
	"sort"
	"strings"

	"hookline.dev/services/clips/internal/captions"
)

// Split-layout framing: each half shows its face at this share of the
// half's height from its top, in a window this many face heights tall
// (within these shares of the source's height).
const (
	halfFaceY    = 0.45
	halfFaces    = 2.0
	halfMinShare = 0.35
)

// framing turns the shots into crop points: the single crop follows each
// sample's face (jumping, rather than panning, when jump is set and the
// followed face changes, as a cut to the other speaker would), and each
// split run gets two windows that follow their faces.
func framing(j Job, tracks []*faceTrack, shots []shot, cuts []float64, jump bool) []CropPoint {
	n := len(shots)
	centres := make([]float64, n)
	all := append([]float64(nil), cuts...)
	for i, s := range shots {
		centres[i] = math.NaN()
		if s.follow >= 0 && tracks[s.follow].present(i) {
			centres[i], _ = tracks[s.follow].centre(i)
		}
		if jump && i > 0 && s.follow >= 0 && shots[i-1].follow >= 0 && s.follow != shots[i-1].follow {
			all = append(all, float64(i)/trackFPS)
		}
	}
	sort.Float64s(all)
	path := Path(centres, trackFPS, float64(j.SrcW), cropWidth(j), all)
	for i, s := range shots {
		if s.follow >= 0 && tracks[s.follow].present(i) {
			path[i].Box = tracks[s.follow].boxes[i]
		}
	}
	for _, r := range runs(shots) {
		if !shots[r[0]].split {
			continue
		}
		from, to := r[0], r[1]
		w, h := halfSize(j, tracks, shots[from].pair, from, to)
		var local []float64
		for _, c := range cuts {
			if c > float64(from)/trackFPS && c < float64(to)/trackFPS {
				local = append(local, c-float64(from)/trackFPS)
			}
		}
		for i := from; i < to; i++ {
			path[i].Halves = make([]Window, 2)
		}
		for side, k := range shots[from].pair {
			xs, ys := make([]float64, to-from), make([]float64, to-from)
			for i := from; i < to; i++ {
				xs[i-from], ys[i-from] = tracks[k].centre(i)
				// Path centres the window on the value given: the face
				// sits halfFaceY down the window.
				ys[i-from] += (0.5 - halfFaceY) * float64(h)
			}
			px := Path(xs, trackFPS, float64(j.SrcW), w, local)
			py := Path(ys, trackFPS, float64(j.SrcH), h, local)
			for i := from; i < to; i++ {
				path[i].Halves[side] = Window{X: px[i-from].X, Y: py[i-from].X, W: w, H: h}
			}
		}
	}
	return path
}

// runs are the maximal runs [from, to) of shots with one framing.
func runs(shots []shot) [][2]int {
	var out [][2]int
	for i := 0; i < len(shots); {
		k := i
		for k < len(shots) && shots[k].split == shots[i].split && shots[k].pair == shots[i].pair {
			k++
		}
		out = append(out, [2]int{i, k})
		i = k
	}
	return out
}

// halfHeight is the output height of the split layout's top half.
func halfHeight(j Job) int { return j.Height / 4 * 2 }

// halfSize is the source window of a split half over samples [from, to):
// of the half's aspect, halfFaces times the two faces' median height.
func halfSize(j Job, tracks []*faceTrack, pair [2]int, from, to int) (int, int) {
	var sizes []float64
	for _, k := range pair {
		for i := from; i < to; i++ {
			if tracks[k].present(i) {
				sizes = append(sizes, float64(tracks[k].boxes[i].Dy()))
			}
		}
	}
	sort.Float64s(sizes)
	face := float64(j.SrcH) / 4
	if len(sizes) > 0 {
		face = sizes[len(sizes)/2]
	}
	aspect := float64(j.Width) / float64(halfHeight(j))
	h := math.Max(halfMinShare*float64(j.SrcH), math.Min(float64(j.SrcH), halfFaces*face))
	w := h * aspect
	if w > float64(j.SrcW) {
		w, h = float64(j.SrcW), float64(j.SrcW)/aspect
	}
	return int(w) / 2 * 2, int(h) / 2 * 2
}

// reframeFilter crops along path: one window of the full height, two
// stacked halves where the path splits, each run of samples trimmed out
// and the runs concatenated when the layout changes along the clip. The
// punch-ins ps (planned clear of the split runs) zoom the single-window
// runs they start in.
func reframeFilter(j Job, path []CropPoint, ps []punch) string {
	var rs [][2]int
	for i := 0; i < len(path); {
		k := i
		for k < len(path) && sameFraming(path[k], path[i]) {
			k++
		}
		rs = append(rs, [2]int{i, k})
		i = k
	}
	// inRun are the punch-ins that start in run k.
	inRun := func(k int) []punch {
		var out []punch
		for _, p := range ps {
			if p.From >= path[rs[k][0]].T && (k == len(rs)-1 || p.From < path[rs[k+1][0]].T) {
				out = append(out, p)
			}
		}
		return out
	}
	if len(rs) <= 1 {
		return runFilter(j, path, 0, inRun(0))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "split=%d", len(rs))
	for k := range rs {
		fmt.Fprintf(&b, "[rs%d]", k)
	}
	for k, r := range rs {
		trim := fmt.Sprintf("trim=start=%.3f", path[r[0]].T)
		if r[1] < len(path) {
			trim += fmt.Sprintf(":end=%.3f", path[r[1]].T)
		}
		fmt.Fprintf(&b, ";[rs%d]%s,%s,setpts=PTS-STARTPTS[rr%d]", k, trim, runFilter(j, path[r[0]:r[1]], k, inRun(k)), k)
	}
	b.WriteString(";")
	for k := range rs {
		fmt.Fprintf(&b, "[rr%d]", k)
	}
	fmt.Fprintf(&b, "concat=n=%d:v=1:a=0", len(rs))
	return b.String()
}

// sameFraming: a and b are cropped by one filter (one window of the
// full height, or halves of the same sizes).
func sameFraming(a, b CropPoint) bool {
	if a.Halves == nil || b.Halves == nil {
		return a.Halves == nil && b.Halves == nil
	}
	for s := range a.Halves {
		if a.Halves[s].W != b.Halves[s].W || a.Halves[s].H != b.Halves[s].H {
			return false
		}
	}
	return true
}

// runFilter crops a run of points of one framing (label k names its
// halves), a single window with its punch-ins ps.
func runFilter(j Job, path []CropPoint, k int, ps []punch) string {
	if len(path) == 0 || path[0].Halves == nil {
		if len(ps) > 0 {
			return zoomCropFilter(j, path, ps)
		}
		return fmt.Sprintf("crop=w=%d:h=%d:x='%s':y=0,scale=%d:%d,setsar=1", cropWidth(j), j.SrcH, cropX(path), j.Width, j.Height)
	}
	ts := make([]float64, len(path))
	for i, p := range path {
		ts[i] = p.T
	}
	hh := halfHeight(j)
	var half [2]string
	for side := range half {
		xs, ys := make([]int, len(path)), make([]int, len(path))
		for i, p := range path {
			xs[i], ys[i] = p.Halves[side].X, p.Halves[side].Y
		}
		w := path[0].Halves[side]
		out := hh
		if side == 1 {
			out = j.Height - hh
		}
		half[side] = fmt.Sprintf("crop=w=%d:h=%d:x='%s':y='%s',scale=%d:%d,setsar=1", w.W, w.H, pathExpr(ts, xs), pathExpr(ts, ys), j.Width, out)
	}
	return fmt.Sprintf("split[ha%d][hb%d];[ha%d]%s[hx%d];[hb%d]%s[hy%d];[hx%d][hy%d]vstack", k, k, k, half[0], k, k, half[1], k, k, k)
}

// faceBoxes are the faces as the output shows them at each sample, for
// the captions to stay clear of: each present face mapped through every
// window that holds most of it, with its eyes-to-mouth band.
func faceBoxes(j Job, tracks []*faceTrack, path []CropPoint) []captions.FaceBox {
	var out []captions.FaceBox
	for i, p := range path {
		type view struct {
			win Window
			out image.Rectangle
		}
		views := []view{{Window{X: p.X, W: cropWidth(j), H: j.SrcH}, image.Rect(0, 0, j.Width, j.Height)}}
		if p.Halves != nil {
			hh := halfHeight(j)
			views = []view{{p.Halves[0], image.Rect(0, 0, j.Width, hh)}, {p.Halves[1], image.Rect(0, hh, j.Width, j.Height)}}
		}
		for _, tr := range tracks {
			if !tr.present(i) {
				continue
			}
			box := tr.boxes[i]
			for _, v := range views {
				win := image.Rect(v.win.X, v.win.Y, v.win.X+v.win.W, v.win.Y+v.win.H)
				if area(box.Intersect(win)) < area(box)/3 {
					continue
				}
				k := float64(v.out.Dx()) / float64(v.win.W)
				y := func(sy float64) int { return v.out.Min.Y + int(math.Round((sy-float64(v.win.Y))*k)) }
				x := func(sx float64) int { return v.out.Min.X + int(math.Round((sx-float64(v.win.X))*k)) }
				// The detector's box spans brows to chin (text over the
				// hair above is fine); the eyes are a sixth down the box.
				top, h := float64(box.Min.Y), float64(box.Dy())
				head := image.Rect(x(float64(box.Min.X)), y(top-0.1*h), x(float64(box.Max.X)), y(float64(box.Max.Y))).Intersect(v.out)
				features := image.Rect(x(float64(box.Min.X)), y(top+0.15*h), x(float64(box.Max.X)), y(top+0.95*h)).Intersect(v.out)
				t := p.T
				out = append(out, captions.FaceBox{Start: t - 0.5/trackFPS, End: t + 0.5/trackFPS, Box: head, Features: features})
			}
		}
	}
	return out
}
