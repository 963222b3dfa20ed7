// Package backdrop draws the new backgrounds of the background-replace
// edit: a small documented grammar of colour and scene words (see Parse),
// procedural scenes seeded by the prompt, and the composition of a
// cut-out in front of them with a light wrap at its edges. The cut-out
// itself is package matte's.
package backdrop

import (
	"fmt"
	"image/color"
	"slices"
	"strings"

	"hookline.dev/pkg/apierr"
	"hookline.dev/pkg/colour"
)

// Background is a parsed backgroundPrompt: the scenes and colours it
// names. Scenes give the picture (a sunset sky, a city skyline, a neon
// grid); colours, when given, replace the scenes' own base colours, or
// make a gradient on their own. The zero value is not a valid background.
type Background struct {
	// Scenes are canonical scene names (see SceneWords), in the order
	// the prompt gave them, without repeats.
	Scenes []Scene
	// Colours are the colours the prompt named or gave as #rrggbb, in
	// order, at most maxColours.
	Colours []color.RGBA
}

// Scene is a canonical scene name.
type Scene string

// The scenes. Each has its own palette and drawing (see render.go).
const (
	Sunset    Scene = "sunset"
	Beach     Scene = "beach"
	Ocean     Scene = "ocean"
	Forest    Scene = "forest"
	City      Scene = "city"
	Night     Scene = "night"
	Studio    Scene = "studio"
	Space     Scene = "space"
	Neon      Scene = "neon"
	Snow      Scene = "snow"
	Desert    Scene = "desert"
	Fire      Scene = "fire"
	Sky       Scene = "sky"
	Mountains Scene = "mountains"
	Bokeh     Scene = "bokeh"
)

// SceneWords maps each word the grammar understands as a scene to its
// scene. The service README lists them.
var SceneWords = map[string]Scene{
	"sunset": Sunset, "sunrise": Sunset, "dusk": Sunset, "dawn": Sunset, "twilight": Sunset,
	"beach": Beach, "tropical": Beach, "coast": Beach, "sand": Beach, "island": Beach,
	"ocean": Ocean, "sea": Ocean, "waves": Ocean, "water": Ocean, "underwater": Ocean,
	"forest": Forest, "jungle": Forest, "woods": Forest, "trees": Forest, "nature": Forest,
	"city": City, "urban": City, "skyline": City, "downtown": City, "street": City,
	"night": Night, "midnight": Night, "starry": Night, "moon": Night, "moonlight": Night,
	"studio": Studio, "backdrop": Studio, "professional": Studio, "portrait": Studio,
	"space": Space, "galaxy": Space, "cosmic": Space, "nebula": Space, "universe": Space, "stars": Space,
	"neon": Neon, "cyberpunk": Neon, "synthwave": Neon, "retrowave": Neon, "vaporwave": Neon,
	"snow": Snow, "snowy": Snow, "winter": Snow, "ice": Snow, "frozen": Snow,
	"desert": Desert, "dunes": Desert, "sahara": Desert,
	"fire": Fire, "flames": Fire, "flame": Fire, "lava": Fire, "inferno": Fire, "burning": Fire,
	"sky": Sky, "clouds": Sky, "cloudy": Sky, "heaven": Sky,
	"mountains": Mountains, "mountain": Mountains, "hills": Mountains, "alps": Mountains,
	"bokeh": Bokeh, "lights": Bokeh, "party": Bokeh, "festive": Bokeh,
}

// modifierWords change the colour word that follows them.
var modifierWords = map[string]func(color.RGBA) color.RGBA{
	"dark":   func(c color.RGBA) color.RGBA { return mixRGBA(c, color.RGBA{0, 0, 0, 255}, 0.45) },
	"deep":   func(c color.RGBA) color.RGBA { return mixRGBA(c, color.RGBA{0, 0, 0, 255}, 0.35) },
	"light":  func(c color.RGBA) color.RGBA { return mixRGBA(c, color.RGBA{255, 255, 255, 255}, 0.45) },
	"pastel": func(c color.RGBA) color.RGBA { return mixRGBA(c, color.RGBA{255, 255, 255, 255}, 0.6) },
}

// maxColours bounds the colours kept from one prompt: more would only
// make a muddier gradient.
const maxColours = 4

// Parse reads a backgroundPrompt. Words are matched case-insensitively;
// words outside the grammar are ignored (a prompt reads "a sunset beach
// behind me"), but a prompt with no scene or colour word at all is
// refused with apierr.UnsupportedPrompt, whose message lists what is
// understood. An empty prompt is an invalid backgroundPrompt.
func Parse(prompt string) (Background, error) {
	if strings.TrimSpace(prompt) == "" {
		return Background{}, apierr.Field("backgroundPrompt", "is required")
	}
	var b Background
	var modify func(color.RGBA) color.RGBA
	for _, word := range strings.FieldsFunc(strings.ToLower(prompt), isSeparator) {
		if s, ok := SceneWords[word]; ok {
			if !slices.Contains(b.Scenes, s) {
				b.Scenes = append(b.Scenes, s)
			}
			modify = nil
			continue
		}
		if m, ok := modifierWords[word]; ok {
			modify = m
			continue
		}
		c, ok := colour.Names[word]
		if !ok {
			c, ok = colour.ParseHex(word)
		}
		if !ok {
			continue
		}
		if modify != nil {
			c = modify(c)
			modify = nil
		}
		if len(b.Colours) < maxColours {
			b.Colours = append(b.Colours, c)
		}
	}
	if len(b.Scenes) == 0 && len(b.Colours) == 0 {
		return Background{}, apierr.New(apierr.UnsupportedPrompt, fmt.Sprintf(
			"backgroundPrompt names no scene or colour this engine draws; scenes: %s; colours: %s, optionally after dark, deep, light or pastel, or #rrggbb",
			strings.Join(sortedKeys(SceneWords), ", "), strings.Join(sortedKeys(colour.Names), ", "),
		)).With("field", "backgroundPrompt")
	}
	return b, nil
}

// String is the canonical prompt for b: its scenes, then its colours as
// #rrggbb. Parse(b.String()) gives b back.
func (b Background) String() string {
	parts := make([]string, 0, len(b.Scenes)+len(b.Colours))
	for _, s := range b.Scenes {
		parts = append(parts, string(s))
	}
	for _, c := range b.Colours {
		parts = append(parts, fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B))
	}
	return strings.Join(parts, " ")
}

// isSeparator splits words at anything but letters, digits and '#'.
func isSeparator(r rune) bool {
	return (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '#'
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// mixRGBA is a + (b − a)·t per channel.
func mixRGBA(a, b color.RGBA, t float64) color.RGBA {
	l := func(p, q uint8) uint8 { return uint8(float64(p) + (float64(q)-float64(p))*t + 0.5) }
	return color.RGBA{l(a.R, b.R), l(a.G, b.G), l(a.B, b.B), 255}
}
