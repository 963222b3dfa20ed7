package app_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"golang.org/x/image/webp"

	"hookline.dev/pkg/media/colour"
	"hookline.dev/pkg/testkit"
	"hookline.dev/services/thumbnails/internal/generate/fluentemoji"
)

// emojiHarness is a harness whose service has the object art
// (HOOKLINE_EMOJI_DIR, scripts/deps.sh emoji).
func emojiHarness(t *testing.T) *harness {
	t.Helper()
	dir := os.Getenv("HOOKLINE_EMOJI_DIR")
	if _, err := os.Stat(dir + "/data.json"); dir == "" || err != nil {
		testkit.Missing(t, "the object art is not installed: scripts/deps.sh emoji, then HOOKLINE_EMOJI_DIR")
	}
	return newHarness(t, "HOOKLINE_EMOJI_DIR", dir)
}

// generated is a thumbnail with what it applied.
type generated struct {
	thumb
	Applied []string `json:"applied"`
}

func (h *harness) generateScene(org, prompt string) (generated, image.Image) {
	h.T.Helper()
	r := h.Must(201, "POST", "/thumbnails", org, map[string]any{"prompt": prompt})
	var g generated
	r.Into(h.T, &g)
	img, _, err := image.Decode(bytes.NewReader(h.checkPicture(g.ImageURL, 1280, 720)))
	if err != nil {
		h.T.Fatal(err)
	}
	return g, img
}

// TestPromptScenes: twenty natural prompts through the API, measured on
// the picture. A named background colour is the picture's dominant hue
// (within 30°); a named object is drawn where the layout puts it (its
// box is mostly not the background's colour); "A vs B" gives two sides
// of different colours with something drawn on each.
func TestPromptScenes(t *testing.T) {
	h := emojiHarness(t)
	orgs := []string{h.openAccount("pro")}
	cases := []struct {
		prompt, background, object string
		vs                         []string // the two sides' objects
	}{
		{prompt: "Shocked creator pointing at a glowing laptop, bold yellow background", background: "yellow", object: "laptop"},
		{prompt: "Surprised woman holding a stack of cash, green background", background: "green", object: "cash"},
		{prompt: "Pastel pink background with a cute cat sleeping on a laptop", background: "pink", object: "cat"},
		{prompt: "Creator pointing at a giant rocket, dark blue background", background: "blue", object: "rocket"},
		{prompt: "Chef tasting spaghetti in a bright kitchen, yellow and white colour scheme", background: "yellow", object: "spaghetti"},
		{prompt: "A dog wearing sunglasses at the beach, bright turquoise background", background: "turquoise", object: "dog"},
		{prompt: "Giant pizza slice with melting cheese, bright red background, bold white text", background: "red", object: "pizza"},
		{prompt: "Rocket launching into space, dark navy background with orange glow", background: "navy", object: "rocket"},
		{prompt: "Student asleep on a pile of books, purple background", background: "purple", object: "book"},
		{prompt: "Man holding a giant clock, stressed face, yellow background", background: "yellow", object: "clock"},
		{prompt: "Smiling host with a microphone, bright pink background", background: "pink", object: "microphone"},
		{prompt: "A mechanic holding a wrench next to a broken car, yellow background", background: "yellow", object: "wrench"},
		{prompt: "Excited woman pointing at a gift box, festive red background", background: "red", object: "gift"},
		{prompt: "Snake coiled around a money bag, dark green background", background: "green", object: "snake"},
		{prompt: "A brain made of lightning bolts, dark purple background, glowing", background: "purple", object: "brain"},
		{prompt: "Mountain bike on a muddy trail, vibrant green background", background: "green", object: "bike"},
		{prompt: "A plant growing out of a coffee cup, orange background, minimal", background: "orange", object: "plant"},
		{prompt: "iPhone vs Android, split screen", vs: []string{"iphone", "android"}},
		{prompt: "Cat vs dog, who is smarter?", vs: []string{"cat", "dog"}},
		{prompt: "Cash vs credit card, which should you use", vs: []string{"cash", "credit-card"}},
	}
	for i, c := range cases {
		if i == 14 {
			orgs = append(orgs, h.openAccount("pro")) // the credits of one account run out
		}
		g, img := h.generateScene(orgs[len(orgs)-1], c.prompt)
		hue, share := dominantHue(img, image.Rect(0, 0, 1280, 720))
		if c.background != "" {
			want, _, _ := hsvOf(colour.Names[c.background])
			if d := hueGap(hue, want); d > 30 {
				t.Errorf("%q: dominant hue %.0f° (%.0f%% of the picture), want %s's %.0f° ±30", c.prompt, hue, share*100, c.background, want)
			}
			if !hasPrefix(g.Applied, "background ") {
				t.Errorf("%q: applied %q names no background", c.prompt, g.Applied)
			}
		}
		if c.object != "" {
			if !slices.Contains(g.Applied, "object "+c.object) {
				t.Errorf("%q: applied %q, want object %s", c.prompt, g.Applied, c.object)
			}
			// No face: the object stands right of the headline.
			box := image.Rect(742, 58, 1229, 662)
			if d := artGap(t, img, box, c.object); d > 20 {
				t.Errorf("%q: the %s's art differs from its box by %.0f, want at most 20: not drawn", c.prompt, c.object, d)
			}
			// The measure tells art apart: another object's is not there.
			other := "trophy"
			if d := artGap(t, img, box, other); d < 30 {
				t.Errorf("%q: the %s's art differs from the box by only %.0f", c.prompt, other, d)
			}
		}
		if c.vs != nil {
			if !hasPrefix(g.Applied, "compare ") {
				t.Errorf("%q: applied %q, want a comparison", c.prompt, g.Applied)
			}
			left, right := image.Rect(10, 260, 60, 700), image.Rect(1220, 260, 1270, 700)
			if d := meanDistance(img, left, right); d < 60 {
				t.Errorf("%q: the two sides differ by %.0f (RGB), want two sides", c.prompt, d)
			}
			for i, box := range []image.Rectangle{image.Rect(64, 245, 448, 691), image.Rect(832, 245, 1216, 691)} {
				if d := artGap(t, img, box, c.vs[i]); d > 20 {
					t.Errorf("%q: the %s's art differs from its side by %.0f: not drawn", c.prompt, c.vs[i], d)
				}
			}
		}
		t.Logf("%q → %q", c.prompt, g.Applied)
	}
}

// TestConceptPrompts: the prompt of each concept /thumbnails/analyze
// proposes generates that concept: its hookText as the headline, at its
// textPlacement.
func TestConceptPrompts(t *testing.T) {
	h := newHarness(t)
	org := h.openAccount("pro")
	r := h.Must(200, "POST", "/thumbnails/analyze", org, map[string]any{
		"videoTitle": "I built a gaming PC for $500",
		"transcript": "Today I build a gaming PC for five hundred dollars. The graphics card is the hardest part. " +
			"I compare the RTX 4060 against a used RTX 3070 and the results surprised me. The budget build beats consoles.",
	})
	var a struct {
		Concepts []struct {
			Prompt        string `json:"prompt"`
			HookText      string `json:"hookText"`
			TextPlacement string `json:"textPlacement"`
		} `json:"concepts"`
	}
	if err := json.Unmarshal(r.Data, &a); err != nil {
		t.Fatal(err)
	}
	if len(a.Concepts) == 0 {
		t.Fatalf("no concepts: %s", r.Data)
	}
	for _, c := range a.Concepts {
		g, _ := h.generateScene(org, c.Prompt)
		hook := strings.Trim(c.HookText, "“”\"")
		if want := fmt.Sprintf("headline %q", hook); !slices.Contains(g.Applied, want) {
			t.Errorf("concept %q (%s): applied %q, want %s", c.Prompt, c.HookText, g.Applied, want)
		}
		if want := "text " + c.TextPlacement; !slices.Contains(g.Applied, want) {
			t.Errorf("concept %q: applied %q, want %s", c.Prompt, g.Applied, want)
		}
	}
}

func hasPrefix(list []string, p string) bool {
	return slices.ContainsFunc(list, func(s string) bool { return strings.HasPrefix(s, p) })
}

func rgbOf(img image.Image, x, y int) (float64, float64, float64) {
	r, g, b, _ := img.At(x, y).RGBA()
	return float64(r >> 8), float64(g >> 8), float64(b >> 8)
}

// hsvOf is c's hue in degrees, saturation and value.
func hsvOf(c interface{ RGBA() (r, g, b, a uint32) }) (float64, float64, float64) {
	r, g, b, _ := c.RGBA()
	return hsv(float64(r>>8), float64(g>>8), float64(b>>8))
}

func hsv(r, g, b float64) (h, s, v float64) {
	mx, mn := math.Max(r, math.Max(g, b)), math.Min(r, math.Min(g, b))
	v = mx / 255
	if mx == 0 || mx == mn {
		return 0, 0, v
	}
	s = (mx - mn) / mx
	d := mx - mn
	switch mx {
	case r:
		h = math.Mod((g-b)/d, 6)
	case g:
		h = (b-r)/d + 2
	default:
		h = (r-g)/d + 4
	}
	h *= 60
	if h < 0 {
		h += 360
	}
	return h, s, v
}

func hueGap(a, b float64) float64 {
	d := math.Abs(a - b)
	return math.Min(d, 360-d)
}

// dominantHue is the centre of the most common 10° hue band of r's
// coloured pixels (saturation and value above 0.2), and the share of r's
// pixels in the three bands around it.
func dominantHue(img image.Image, r image.Rectangle) (float64, float64) {
	var bins [36]float64
	n := 0.0
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		for x := r.Min.X; x < r.Max.X; x += 2 {
			n++
			h, s, v := hsv(rgbOf(img, x, y))
			if s > 0.25 && v > 0.12 {
				bins[int(h/10)%36]++
			}
		}
	}
	best := 0
	for i := range bins {
		if bins[i] > bins[best] {
			best = i
		}
	}
	return float64(best)*10 + 5, (bins[(best+35)%36] + bins[best] + bins[(best+1)%36]) / n
}

// artGap is the mean difference (per channel, 0..255) between the art
// of noun, as the compositor draws it (as large as fits, centred in box),
// and the picture, over the art's opaque inside: near 0 where it is
// drawn, large where the background is.
func artGap(t *testing.T, img image.Image, box image.Rectangle, noun string) float64 {
	t.Helper()
	lib, err := fluentemoji.Open(os.Getenv("HOOKLINE_EMOJI_DIR"))
	if err != nil {
		t.Fatal(err)
	}
	_, data, ok, err := lib.Find(noun)
	if err != nil || !ok {
		t.Fatalf("no art for %s: %v", noun, err)
	}
	art, err := webp.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	s := min(box.Dx(), box.Dy())
	at := image.Pt(box.Min.X+(box.Dx()-s)/2, box.Min.Y+(box.Dy()-s)/2)
	ab := art.Bounds()
	sample := func(x, y int) (float64, float64, float64, uint32) {
		ax, ay := ab.Min.X+x*ab.Dx()/s, ab.Min.Y+y*ab.Dy()/s
		r, g, b, a := art.At(ax, ay).RGBA()
		return float64(r >> 8), float64(g >> 8), float64(b >> 8), a >> 8
	}
	sum, n := 0.0, 0.0
	for y := 4; y < s-4; y += 3 {
		for x := 4; x < s-4; x += 3 {
			// Only where the art is opaque all around: its edge is
			// resampled differently.
			opaque := true
			for _, d := range [][2]int{{0, 0}, {-4, 0}, {4, 0}, {0, -4}, {0, 4}} {
				_, _, _, a := sample(x+d[0], y+d[1])
				opaque = opaque && a == 255
			}
			if !opaque {
				continue
			}
			ar, ag, ab2, _ := sample(x, y)
			pr, pg, pb := rgbOf(img, at.X+x, at.Y+y)
			sum += (math.Abs(ar-pr) + math.Abs(ag-pg) + math.Abs(ab2-pb)) / 3
			n++
		}
	}
	if n == 0 {
		t.Fatalf("the art of %s has no opaque inside", noun)
	}
	return sum / n
}

// meanDistance is the RGB distance of the mean colours of a and b.
func meanDistance(img image.Image, a, b image.Rectangle) float64 {
	mean := func(r image.Rectangle) [3]float64 {
		var m [3]float64
		n := 0.0
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				cr, cg, cb := rgbOf(img, x, y)
				m[0], m[1], m[2] = m[0]+cr, m[1]+cg, m[2]+cb
				n++
			}
		}
		return [3]float64{m[0] / n, m[1] / n, m[2] / n}
	}
	ma, mb := mean(a), mean(b)
	return math.Sqrt((ma[0]-mb[0])*(ma[0]-mb[0]) + (ma[1]-mb[1])*(ma[1]-mb[1]) + (ma[2]-mb[2])*(ma[2]-mb[2]))
}
