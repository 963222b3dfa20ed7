package matte

import (
	"fmt"
	"image/color"
	"slices"
	"strconv"
	"strings"

	"hookline.dev/pkg/apierr"
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

// ColourWords maps each colour word the grammar understands to its
// sRGB value. The service README lists them.
var ColourWords = map[string]color.RGBA{
	"red": {220, 38, 38, 255}, "crimson": {190, 18, 60, 255}, "maroon": {128, 20, 40, 255},
	"orange": {249, 115, 22, 255}, "coral": {255, 127, 80, 255}, "peach": {255, 190, 152, 255},
	"yellow": {250, 204, 21, 255}, "gold": {212, 175, 55, 255}, "golden": {212, 175, 55, 255},
	"green": {34, 160, 80, 255}, "lime": {132, 204, 22, 255}, "olive": {110, 120, 40, 255},
	"mint": {152, 230, 190, 255}, "emerald": {16, 150, 110, 255},
	"teal": {13, 148, 136, 255}, "turquoise": {45, 212, 191, 255}, "cyan": {6, 182, 212, 255},
	"blue": {37, 99, 235, 255}, "navy": {20, 35, 90, 255}, "indigo": {67, 56, 202, 255},
	"purple": {126, 34, 206, 255}, "violet": {139, 92, 246, 255}, "lavender": {190, 170, 240, 255},
	"magenta": {217, 30, 160, 255}, "pink": {236, 72, 153, 255},
	"brown": {120, 72, 40, 255}, "beige": {225, 210, 180, 255}, "cream": {250, 243, 224, 255},
	"white": {255, 255, 255, 255}, "black": {10, 10, 12, 255}, "silver": {192, 196, 204, 255},
	"grey": {128, 128, 132, 255}, "gray": {128, 128, 132, 255}, "charcoal": {54, 58, 64, 255},
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

// ParseBackground reads a backgroundPrompt. Words are matched case-
// insensitively; words outside the grammar are ignored (a prompt reads
// "a sunset beach behind me"), but a prompt with no scene or colour word
// at all is refused with apierr.UnsupportedPrompt, whose message lists
// what is understood. An empty prompt is an invalid backgroundPrompt.
func ParseBackground(prompt string) (Background, error) {
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
		c, ok := ColourWords[word]
		if !ok {
			c, ok = parseHex(word)
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
			strings.Join(sortedKeys(SceneWords), ", "), strings.Join(sortedKeys(ColourWords), ", "),
		)).With("field", "backgroundPrompt")
	}
	return b, nil
}

// String is the canonical prompt for b: its scenes, then its colours as
// #rrggbb. ParseBackground(b.String()) gives b back.
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

// parseHex reads #rrggbb or #rgb.
func parseHex(word string) (color.RGBA, bool) {
	hex, ok := strings.CutPrefix(word, "#")
	if !ok || len(hex) != 6 && len(hex) != 3 {
		return color.RGBA{}, false
	}
	if len(hex) == 3 {
		hex = string([]byte{hex[0], hex[0], hex[1], hex[1], hex[2], hex[2]})
	}
	v, err := strconv.ParseUint(hex, 16, 32)
	if err != nil {
		return color.RGBA{}, false
	}
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}, true //nolint:gosec // G115: bytes of a 24-bit value
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
