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

	"hookline.dev/pkg/media/colour"
	"hookline.dev/pkg/testkit"
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

// TestPromptScenes: natural prompts through the API, measured on the
// stored picture: a named background colour is the picture's dominant
// hue (within 30°) and applied names it and the object; "A vs B" is
// applied as a comparison. Twenty prompts measured on the engine's
// picture, objects and sides included, are compose's TestPromptScenes.
func TestPromptScenes(t *testing.T) {
	h := emojiHarness(t)
	org := h.openAccount("pro")
	for _, c := range []struct {
		prompt, background, object string
		vs                         bool
	}{
		{prompt: "Shocked creator pointing at a glowing laptop, bold yellow background", background: "yellow", object: "laptop"},
		{prompt: "Snake coiled around a money bag, dark green background", background: "green", object: "snake"},
		{prompt: "Cat vs dog, who is smarter?", vs: true},
	} {
		g, img := h.generateScene(org, c.prompt)
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
		if c.object != "" && !slices.Contains(g.Applied, "object "+c.object) {
			t.Errorf("%q: applied %q, want object %s", c.prompt, g.Applied, c.object)
		}
		if c.vs && !hasPrefix(g.Applied, "compare ") {
			t.Errorf("%q: applied %q, want a comparison", c.prompt, g.Applied)
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
