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

	"hookline.dev/pkg/media/colour"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/thumbnails/internal/edits/phrase"
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

// maxColours bounds the colours kept from one prompt: more would only
// make a muddier gradient.
const maxColours = 4

// weakScenes are scene words that are a scene only when the prompt names
// no other: "a professional beach shot" is a beach.
var weakScenes = map[string]bool{"professional": true, "portrait": true, "backdrop": true, "lights": true,
	"party": true, "nature": true, "water": true}

// word is what a phrase of a backgroundPrompt means: a scene, or a
// colour.
type word struct {
	scene  Scene
	colour color.RGBA
}

var vocabulary = func() phrase.Vocab[word] {
	var v phrase.Vocab[word]
	for w, s := range SceneWords {
		if weakScenes[w] {
			v.AddWeak(word{scene: s}, w)
		} else {
			v.Add(word{scene: s}, w)
		}
	}
	// Phrases whose words alone would name another scene.
	v.Add(word{scene: Beach}, "palm trees, palm tree, palms")
	v.Add(word{scene: Space}, "outer space, milky way")
	v.Add(word{scene: Bokeh}, "fairy lights, string lights")
	v.AddFunc(false, func(toks []phrase.Token, i int) (word, int) {
		c, n := phrase.Colour(toks, i)
		return word{colour: c}, n
	})
	return v
}()

// Parse reads a backgroundPrompt written as a person writes it: every
// scene word (SceneWords) and colour (a colour word of pkg/media/colour,
// optionally after dark, deep, light, pale or pastel, or #rrggbb) is
// taken, in order, case-insensitively; other words are ignored ("a
// sunset beach behind me"), as is a scene or colour after "no",
// "without" or "not" ("a beach with no clouds"). A prompt with no scene
// or colour at all is refused with apierr.UnsupportedPrompt, whose
// message lists what is understood. An empty prompt is an invalid
// backgroundPrompt.
func Parse(prompt string) (Background, error) {
	if strings.TrimSpace(prompt) == "" {
		return Background{}, apierr.Field("backgroundPrompt", "is required")
	}
	var b Background
	for _, h := range phrase.Strong(vocabulary.Scan(phrase.Split(prompt))) {
		switch {
		case h.Value.scene != "":
			if !slices.Contains(b.Scenes, h.Value.scene) {
				b.Scenes = append(b.Scenes, h.Value.scene)
			}
		case len(b.Colours) < maxColours:
			b.Colours = append(b.Colours, h.Value.colour)
		}
	}
	if len(b.Scenes) == 0 && len(b.Colours) == 0 {
		return Background{}, apierr.New(apierr.UnsupportedPrompt, fmt.Sprintf(
			"backgroundPrompt names no scene or colour this engine draws; scenes: %s; colours: %s, optionally after dark, deep, light, pale or pastel, or #rrggbb",
			strings.Join(sortedKeys(SceneWords), ", "), strings.Join(sortedKeys(colour.Names), ", "),
		)).With("field", "backgroundPrompt")
	}
	return b, nil
}

// Applied lists what b draws: its scenes, then its colours as #rrggbb.
func (b Background) Applied() []string {
	out := make([]string, 0, len(b.Scenes)+len(b.Colours))
	for _, s := range b.Scenes {
		out = append(out, string(s))
	}
	for _, c := range b.Colours {
		out = append(out, phrase.Hex(c))
	}
	return out
}

// String is the canonical prompt for b: its scenes, then its colours as
// #rrggbb. Parse(b.String()) gives b back.
func (b Background) String() string { return strings.Join(b.Applied(), " ") }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// mixRGBA is a + (b − a)·t per channel.
func mixRGBA(a, b color.RGBA, t float64) color.RGBA { return colour.Mix(a, b, t) }
