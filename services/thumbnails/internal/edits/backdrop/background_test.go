package backdrop

import (
	"image"
	"image/color"
	"math"
	"reflect"
	"strings"
	"testing"

	"hookline.dev/pkg/media/colour"
	"hookline.dev/pkg/platform/apierr"
)

func TestParse(t *testing.T) {
	red, blue := colour.Names["red"], colour.Names["blue"]
	tests := []struct {
		prompt string
		want   Background
	}{
		{"sunset", Background{Scenes: []Scene{Sunset}}},
		{"Sunset Beach", Background{Scenes: []Scene{Sunset, Beach}}},
		{"a city at night, please", Background{Scenes: []Scene{City, Night}}},
		{"galaxy stars nebula", Background{Scenes: []Scene{Space}}},
		{"snowy winter mountains", Background{Scenes: []Scene{Snow, Mountains}}},
		{"red", Background{Colours: []color.RGBA{red}}},
		{"red and blue gradient", Background{Colours: []color.RGBA{red, blue}}},
		{"#FF8800", Background{Colours: []color.RGBA{{0xff, 0x88, 0x00, 255}}}},
		{"#0af neon", Background{Scenes: []Scene{Neon}, Colours: []color.RGBA{{0x00, 0xaa, 0xff, 255}}}},
		{"dark blue studio", Background{Scenes: []Scene{Studio}, Colours: []color.RGBA{mixRGBA(blue, color.RGBA{0, 0, 0, 255}, 0.45)}}},
		{"pastel pink", Background{Colours: []color.RGBA{mixRGBA(colour.Names["pink"], color.RGBA{255, 255, 255, 255}, 0.6)}}},
		// A modifier applies to the next colour only, not across a scene.
		{"dark forest green", Background{Scenes: []Scene{Forest}, Colours: []color.RGBA{colour.Names["green"]}}},
		{"red orange yellow green blue", Background{Colours: []color.RGBA{red, colour.Names["orange"], colour.Names["yellow"], colour.Names["green"]}}},
		{"fire fire flames", Background{Scenes: []Scene{Fire}}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.prompt)
		if err != nil {
			t.Errorf("%q: %v", tt.prompt, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q = %+v, want %+v", tt.prompt, got, tt.want)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, prompt := range []string{"a dragon", "#12345", "#ggg", "dark", "sunsets? no: sun-set"} {
		_, err := Parse(prompt)
		if !apierr.Is(err, apierr.UnsupportedPrompt) {
			t.Errorf("%q: err = %v, want unsupported_prompt", prompt, err)
			continue
		}
		// The message teaches the grammar.
		for _, word := range []string{"sunset", "neon", "red", "#rrggbb"} {
			if !strings.Contains(err.Error(), word) {
				t.Errorf("%q: message %q does not mention %q", prompt, err, word)
			}
		}
	}
	for _, prompt := range []string{"", "   "} {
		if _, err := Parse(prompt); !apierr.Is(err, apierr.InvalidRequest) {
			t.Errorf("%q: err = %v, want invalid_request", prompt, err)
		}
	}
}

func TestStringRoundTrip(t *testing.T) {
	b, err := Parse("light blue sunset over a #123456 beach")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "sunset beach #87a9f4 #123456"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	again, err := Parse(b.String())
	if err != nil || !reflect.DeepEqual(again, b) {
		t.Errorf("re-parsed %+v, %v; want %+v", again, err, b)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"sunset beach", "dark #ff0000 neon city", "#abc", "", "pastel", "red red red red red", "ÉTÉ sunset"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, prompt string) {
		b, err := Parse(prompt)
		if err != nil {
			if !apierr.Is(err, apierr.UnsupportedPrompt) && !apierr.Is(err, apierr.InvalidRequest) {
				t.Fatalf("%q: unexpected error %v", prompt, err)
			}
			return
		}
		again, err := Parse(b.String())
		if err != nil || !reflect.DeepEqual(again, b) {
			t.Fatalf("%q parsed to %+v (%q), which re-parses to %+v, %v", prompt, b, b.String(), again, err)
		}
		if len(b.Colours) > maxColours {
			t.Fatalf("%d colours", len(b.Colours))
		}
	})
}

// TestRenderScenes draws every scene and checks what can be measured:
// the size, determinism, that scenes differ from one another and are not
// flat, and the broad colour each promises.
func TestRenderScenes(t *testing.T) {
	const w, h = 256, 144
	means := map[Scene][3]float64{}
	for _, s := range sortedScenes() {
		b := Background{Scenes: []Scene{s}}
		img := b.Render(w, h)
		if img.Rect != image.Rect(0, 0, w, h) {
			t.Fatalf("%s: bounds %v", s, img.Rect)
		}
		if again := b.Render(w, h); !reflect.DeepEqual(again.Pix, img.Pix) {
			t.Errorf("%s: two renders differ", s)
		}
		m, sd := meanColour(img)
		if sd < 8 {
			t.Errorf("%s: nearly flat (σ %.1f)", s, sd)
		}
		for other, om := range means {
			if dist(m, om) < 4 {
				t.Errorf("%s and %s look alike (mean %v vs %v)", s, other, m, om)
			}
		}
		means[s] = m
	}
	lum := func(s Scene) float64 { m := means[s]; return 0.2126*m[0] + 0.7152*m[1] + 0.0722*m[2] }
	for _, dark := range []Scene{Night, Space, Neon, Fire} {
		if lum(dark) > 80 {
			t.Errorf("%s is not dark: luminance %.0f", dark, lum(dark))
		}
	}
	for _, light := range []Scene{Snow, Sky, Beach} {
		if lum(light) < 150 {
			t.Errorf("%s is not light: luminance %.0f", light, lum(light))
		}
	}
	if m := means[Fire]; m[0] < 2*m[2] {
		t.Errorf("fire is not red-orange: %v", m)
	}
	if m := means[Ocean]; m[2] < m[0]+40 {
		t.Errorf("ocean is not blue: %v", m)
	}
	if m := means[Forest]; m[1] < m[0] || m[1] < m[2] {
		t.Errorf("forest is not green: %v", m)
	}
}

// TestRenderTiny: every scene draws at degenerate sizes without failing.
func TestRenderTiny(t *testing.T) {
	for _, s := range sortedScenes() {
		for _, size := range []image.Point{{0, 0}, {1, 1}, {3, 2}, {2, 90}, {90, 2}} {
			img := Background{Scenes: []Scene{s}, Colours: []color.RGBA{{1, 2, 3, 255}}}.Render(size.X, size.Y)
			if img.Rect.Size() != size {
				t.Errorf("%s at %v: %v", s, size, img.Rect.Size())
			}
		}
	}
	if img := (Background{}).Render(8, 8); img.Rect.Dx() != 8 {
		t.Errorf("zero Background rendered %v", img.Rect)
	}
}

func sortedScenes() []Scene {
	seen := map[Scene]bool{}
	var out []Scene
	for _, w := range sortedKeys(SceneWords) {
		if s := SceneWords[w]; !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// TestRenderColours: a prompt's colours make the background: one colour
// alone averages to itself, two make a top-to-bottom gradient, and on a
// lights scene they colour the lights, not the backdrop.
func TestRenderColours(t *testing.T) {
	for _, word := range []string{"red", "teal", "purple", "beige"} {
		img := Background{Colours: []color.RGBA{colour.Names[word]}}.Render(320, 180)
		m, _ := meanColour(img)
		c := colour.Names[word]
		if d := dist(m, [3]float64{float64(c.R), float64(c.G), float64(c.B)}); d > 25 {
			t.Errorf("%s background averages %v, %.0f from %v", word, m, d, c)
		}
	}
	red, blue := colour.Names["red"], colour.Names["blue"]
	img := Background{Colours: []color.RGBA{red, blue}}.Render(320, 180)
	if top, bottom := img.RGBAAt(160, 0), img.RGBAAt(160, 179); top != red || bottom != blue {
		t.Errorf("red-blue gradient runs %v to %v", top, bottom)
	}
	plain, _ := meanColour(Background{Scenes: []Scene{Neon}}.Render(320, 180))
	green, _ := meanColour(Background{Scenes: []Scene{Neon}, Colours: []color.RGBA{colour.Names["lime"]}}.Render(320, 180))
	if green[1] <= plain[1]+5 || green[1]-green[0] <= plain[1]-plain[0] {
		t.Errorf("lime neon %v is not greener than neon %v", green, plain)
	}
	if lum := 0.2126*green[0] + 0.7152*green[1] + 0.0722*green[2]; lum > 80 {
		t.Errorf("lime neon lost its dark backdrop: luminance %.0f", lum)
	}
}

func meanColour(img *image.RGBA) ([3]float64, float64) {
	var sum [3]float64
	var sq float64
	n := float64(img.Rect.Dx() * img.Rect.Dy())
	for i := 0; i < len(img.Pix); i += 4 {
		for c := range 3 {
			sum[c] += float64(img.Pix[i+c])
		}
		l := 0.2126*float64(img.Pix[i]) + 0.7152*float64(img.Pix[i+1]) + 0.0722*float64(img.Pix[i+2])
		sq += l * l
	}
	mean := [3]float64{sum[0] / n, sum[1] / n, sum[2] / n}
	ml := 0.2126*mean[0] + 0.7152*mean[1] + 0.0722*mean[2]
	return mean, math.Sqrt(max(0, sq/n-ml*ml))
}

func dist(a, b [3]float64) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
}
