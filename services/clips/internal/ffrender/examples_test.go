package ffrender_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/testkit"
	"hookline.dev/services/clips/internal/captions"
	"hookline.dev/services/clips/internal/facetrack"
	"hookline.dev/services/clips/internal/ffrender"
	"hookline.dev/services/clips/internal/media"
	"hookline.dev/services/clips/internal/mediatest"
)

// still is the frame of file at sec.
func still(t *testing.T, file string, sec float64) image.Image {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "ffmpeg", "-v", "error", "-ss", fmt.Sprintf("%.2f", sec), "-i", file,
		"-frames:v", "1", "-f", "image2pipe", "-c:v", "png", "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// stills are the frames of file at secs (in order), the same frames as
// still's, from one decode of the file rather than a seek and a decode
// from the keyframe before for each.
func stills(t *testing.T, file string, secs []float64) []image.Image {
	t.Helper()
	info := probe(t, file)
	// still's seek gives the first frame at or after sec.
	picks := make([]string, len(secs))
	for k, s := range secs {
		picks[k] = fmt.Sprintf("eq(n\\,%d)", int(math.Ceil(s*info.FPS-1e-6)))
	}
	out, err := exec.CommandContext(t.Context(), "ffmpeg", "-v", "error", "-i", file, "-an", "-vf", "select="+strings.Join(picks, "+"),
		"-fps_mode", "passthrough", "-pix_fmt", "rgb24", "-f", "rawvideo", "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	size := 3 * info.Width * info.Height
	if len(out) != size*len(secs) {
		t.Fatalf("%d bytes of frames from %s, want %d frames of %dx%d", len(out), file, len(secs), info.Width, info.Height)
	}
	imgs := make([]image.Image, len(secs))
	for k := range imgs {
		img := image.NewRGBA(image.Rect(0, 0, info.Width, info.Height))
		for p, q := 0, k*size; p < len(img.Pix); p, q = p+4, q+3 {
			img.Pix[p], img.Pix[p+1], img.Pix[p+2], img.Pix[p+3] = out[q], out[q+1], out[q+2], 0xff
		}
		imgs[k] = img
	}
	return imgs
}

// output renders job, in a directory of its own, and returns the MP4.
func output(t *testing.T, r *ffrender.Renderer, job ffrender.Job) string {
	t.Helper()
	return renderJob(t, r, job).Output
}

// renderJob renders job in a directory of its own.
func renderJob(t *testing.T, r *ffrender.Renderer, job ffrender.Job) ffrender.Result {
	t.Helper()
	if err := os.MkdirAll(job.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	res, err := r.Render(context.Background(), job, func(string, float64) {})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// differ is the share of pixels that differ clearly between a and b.
func differ(a, b image.Image) float64 {
	n, d := 0, 0
	r := a.Bounds().Intersect(b.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		for x := r.Min.X; x < r.Max.X; x += 2 {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			if abs(int(r1)-int(r2))+abs(int(g1)-int(g2))+abs(int(b1)-int(b2)) > 3*6000 {
				d++
			}
			n++
		}
	}
	return float64(d) / float64(n)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// TestStylesLookDifferent renders the same moment in every subtitle style
// and with every option: the captions are burned (a still differs from
// the uncaptioned frame) and no two styles look alike. With
// HOOKLINE_WRITE_EXAMPLES=1 the stills go to testdata/examples.
func TestStylesLookDifferent(t *testing.T) {
	mediatest.Require(t)
	dir := t.TempDir()
	src, _ := movingFace(t, dir, 6)
	det, err := vision.New()
	if err != nil {
		t.Fatal(err)
	}
	r := &ffrender.Renderer{Faces: det, Preset: "ultrafast"}
	// The source's faces are sampled once, as its preparation does, for
	// every render to track from rather than each decoding its clip to
	// find them again: the styles, not the tracking, are compared here.
	sig, err := media.Tools{Faces: &facetrack.Sampler{Faces: det}}.Analyze(context.Background(), src, probe(t, src), nil)
	if err != nil {
		t.Fatal(err)
	}
	text := words("here is the biggest solar mistake ever made", 0.1, 0.45)
	// Each style is compared on a still at 1.5 s: a 2 s clip shows it as
	// well as the 4 s clip of the brand render.
	render := func(name string, end float64, spec captions.Spec, bar bool, card float64, brand ...string) string {
		job := ffrender.Job{Source: src, SrcW: 1280, SrcH: 720, HasAudio: true, Start: 1, End: end, Width: 540, Height: 960,
			Dir: filepath.Join(dir, name), Text: spec, ProgressBar: bar, EndCardSeconds: card, Samples: sig.Faces}
		if len(brand) == 2 {
			job.Frame, job.Logo = brand[0], brand[1]
		}
		return output(t, r, job)
	}
	plain := still(t, render("plain", 3, captions.Spec{Style: captions.Clean}, false, 0), 1.5)
	var stills []image.Image
	examples := testkit.ExamplesDirIfAsked(t)
	for _, st := range captions.Styles {
		img := still(t, render(string(st), 3, captions.Spec{Style: st, Words: text, Keywords: []string{"solar mistake"}, Emphasis: true}, false, 0), 1.5)
		if d := differ(plain, img); d < 0.003 {
			t.Errorf("style %s: only %.3f of the frame carries captions", st, d)
		}
		for i, other := range stills {
			if d := differ(other, img); d < 0.005 {
				t.Errorf("styles %s and %s look alike (%.4f differ)", captions.Styles[i], st, d)
			}
		}
		stills = append(stills, img)
		if examples != "" {
			save(t, img, examples, "style-"+string(st))
		}
	}
	cut := captions.Cutaways(text, []string{"solar mistake"}, 1, 1.4, 4, 1)
	if len(cut) != 1 || cut[0].Start < 1 {
		t.Fatalf("cutaways %+v", cut)
	}
	all := render("all", 5, captions.Spec{Style: captions.Energetic, Words: text, Keywords: []string{"solar mistake"}, Emphasis: true,
		Hook: "The biggest solar mistake?", HookSeconds: 1, EndCard: "Follow for part 2 {\\an8}", Cutaways: cut}, true, 2.5,
		"0x7C3AED", logo(t, dir))
	hooked, card := still(t, all, 0.6), still(t, all, cut[0].Start+0.7)
	// The brand frame is on every frame, over the cutaway too; the logo
	// sits in the top-right corner.
	for _, img := range []image.Image{hooked, card} {
		if r, g, b, _ := img.At(3, 480).RGBA(); r>>8 < 0x6c || r>>8 > 0x8c || g>>8 > 0x4a || b>>8 < 0xdd {
			t.Errorf("the frame's colour is #%02x%02x%02x, want #7c3aed", r>>8, g>>8, b>>8)
		}
		if r, g, b, _ := img.At(540-60, 60).RGBA(); r>>8 < 0xe0 || g>>8 > 0x60 || b>>8 > 0x60 {
			t.Errorf("no red logo in the corner: #%02x%02x%02x", r>>8, g>>8, b>>8)
		}
	}
	// The hook ends left of the logo: the corners of the logo's square
	// around its disc show the picture, not the hook's dark box, and the
	// whole disc shows.
	border := max(8, 540/40)
	side := 540 * 16 / 100 / 2 * 2
	square := image.Rect(540-2*border-side, 2*border, 540-2*border, 2*border+side)
	dark, red := 0, 0
	for y := square.Min.Y; y < square.Max.Y; y++ {
		for x := square.Min.X; x < square.Max.X; x++ {
			r, g, b, _ := hooked.At(x, y).RGBA()
			switch {
			case max(r, g, b)>>8 < 0x20:
				dark++
			case r>>8 > 0xc0 && g>>8 < 0x60 && b>>8 < 0x60:
				red++
			}
		}
	}
	if dark > square.Dx()*square.Dy()/100 {
		t.Errorf("%d pixels of the hook's dark box in the logo's square %v", dark, square)
	}
	if disc := math.Pi * math.Pow(float64(side)*95/200, 2); float64(red) < 0.9*disc {
		t.Errorf("%d red pixels of the logo's %.0f show", red, disc)
	}
	if d := differ(hooked, card); d < 0.3 {
		t.Errorf("the keyword cutaway covers only %.2f of the frame", d)
	}
	if examples != "" {
		save(t, hooked, examples, "all-options")
		save(t, card, examples, "broll-cutaway")
		save(t, still(t, all, 5.5), examples, "end-card")
	}
}

// logo writes a red disc on transparency as a PNG.
func logo(t *testing.T, dir string) string {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 200, 200))
	for y := range 200 {
		for x := range 200 {
			if (x-100)*(x-100)+(y-100)*(y-100) < 95*95 {
				img.Set(x, y, color.NRGBA{R: 230, G: 30, B: 40, A: 255})
			}
		}
	}
	path := filepath.Join(dir, "logo.png")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	return path
}

func save(t *testing.T, img image.Image, dir, name string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, name+".png"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}
