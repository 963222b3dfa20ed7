package providerkit

import (
	"fmt"
	"image"
	"slices"

	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// Model is what one provider model takes and gives, as the adapters ask
// for it and the fakes enforce it. The facts come from the vendors'
// documentation; pkg/ai/vendorapi/contract/testdata cites each source and
// the catalogue's tests check every name against those contracts.
type Model struct {
	Name string
	// Images and ImageBytes bound the input images of one request: how
	// many, and how large each file. Bytes bounds their sum, kept well
	// under the request size the vendor takes.
	Images, ImageBytes, Bytes int
	// Sizes is, per aspect, the picture the model draws: OpenAI's size
	// parameter, Gemini's answer at the default 1K resolution.
	Sizes map[thumbnail.Aspect]Size
	// AspectRatios are the imageConfig.aspectRatio values Gemini takes.
	AspectRatios []string
	// InputFidelity: OpenAI's edits take input_fidelity for this model.
	InputFidelity bool
}

// Size is a picture size in pixels.
type Size struct{ W, H int }

func (s Size) String() string { return fmt.Sprintf("%dx%d", s.W, s.H) }

// Catalogue is one provider's models, its default first.
type Catalogue struct {
	Provider string
	Default  string
	models   []Model
	// generic is what a model the catalogue does not list (a newer one,
	// or a self-hosted server's) is assumed to take: the smallest limits
	// of the family.
	generic Model
}

// Lookup returns the model named, or the catalogue's generic entry under
// that name and false.
func (c Catalogue) Lookup(name string) (Model, bool) {
	i := slices.IndexFunc(c.models, func(m Model) bool { return m.Name == name })
	if i < 0 {
		m := c.generic
		m.Name = name
		return m, false
	}
	return c.models[i], true
}

// Names lists the models, default first.
func (c Catalogue) Names() []string {
	out := make([]string, len(c.models))
	for i, m := range c.models {
		out[i] = m.Name
	}
	return out
}

// Size is the picture m draws for a; the zero Size when a is not one of
// its aspects.
func (m Model) Size(a thumbnail.Aspect) Size { return m.Sizes[a] }

// SafeArea is the part of m's picture for a that Fit keeps (a centred
// cover crop to a's ratio), as a fraction of the height cut off at the
// top and at the bottom (or of the width at each side); 0 when the model
// draws a's ratio or within 1% of it (Gemini's 1376×768 loses 6 px a side).
func (m Model) SafeArea(a thumbnail.Aspect) (top, side float64) {
	s := m.Size(a)
	if s.W == 0 || s.H == 0 {
		return 0, 0
	}
	w, h := a.Size()
	keep := cover(image.Rect(0, 0, s.W, s.H), w, h)
	top, side = float64(s.H-keep.Dy())/2/float64(s.H), float64(s.W-keep.Dx())/2/float64(s.W)
	if top < 0.01 && side < 0.01 {
		return 0, 0
	}
	return top, side
}

const mb = 1 << 20

// gptSizes are the standard sizes of the GPT image models: none is 16:9,
// so Fit crops 1536×1024 to 1536×864 and the prompt keeps everything
// that matters inside that band.
var gptSizes = map[thumbnail.Aspect]Size{thumbnail.Landscape: {1536, 1024}, thumbnail.Portrait: {1024, 1536}}

// gpt2Sizes are gpt-image-2's: any size with sides divisible by 16, so
// 16:9 exactly.
var gpt2Sizes = map[thumbnail.Aspect]Size{thumbnail.Landscape: {1536, 864}, thumbnail.Portrait: {864, 1536}}

// OpenAIImages are OpenAI's GPT image models (openapi.yaml,
// CreateImageEditRequest and CreateImageRequest). gpt-image-2 takes any
// size with sides divisible by 16, so it draws 16:9 exactly and nothing
// is cropped; that is why it is the default.
var OpenAIImages = Catalogue{
	Provider: "openai",
	Default:  "gpt-image-2",
	models: []Model{
		{Name: "gpt-image-2", Images: 16, ImageBytes: 50 * mb, Bytes: 40 * mb, InputFidelity: true, Sizes: gpt2Sizes},
		{Name: "gpt-image-2-2026-04-21", Images: 16, ImageBytes: 50 * mb, Bytes: 40 * mb, InputFidelity: true, Sizes: gpt2Sizes},
		{Name: "gpt-image-1.5", Images: 16, ImageBytes: 50 * mb, Bytes: 40 * mb, InputFidelity: true, Sizes: gptSizes},
		{Name: "gpt-image-1", Images: 16, ImageBytes: 50 * mb, Bytes: 40 * mb, InputFidelity: true, Sizes: gptSizes},
		{Name: "gpt-image-1-mini", Images: 16, ImageBytes: 50 * mb, Bytes: 40 * mb, Sizes: gptSizes},
		{Name: "chatgpt-image-latest", Images: 16, ImageBytes: 50 * mb, Bytes: 40 * mb, InputFidelity: true, Sizes: gptSizes},
	},
	generic: Model{Images: 16, ImageBytes: 50 * mb, Bytes: 40 * mb, Sizes: gptSizes},
}

// geminiRatios are the aspect ratios of the Gemini 3 image models.
var geminiRatios = []string{"1:1", "2:3", "3:2", "3:4", "4:3", "4:5", "5:4", "9:16", "16:9", "21:9"}

// geminiSizes are their pictures at the default 1K resolution.
var geminiSizes = map[thumbnail.Aspect]Size{thumbnail.Landscape: {1376, 768}, thumbnail.Portrait: {768, 1376}}

// GeminiImages are the Gemini image models open today (the deprecations
// page: gemini-2.5-flash-image shut down on 2026-10-02, the -preview
// image models on 2026-06-25). Both take up to 14 input images of 7 MB
// each as inline data; the request itself must stay under 20 MB, base64
// included.
var GeminiImages = Catalogue{
	Provider: "gemini",
	Default:  "gemini-3.1-flash-image",
	models: []Model{
		{Name: "gemini-3.1-flash-image", Images: 14, ImageBytes: 7 * mb, Bytes: 14 * mb, Sizes: geminiSizes,
			AspectRatios: append(slices.Clone(geminiRatios), "1:4", "4:1", "1:8", "8:1")},
		{Name: "gemini-3-pro-image", Images: 14, ImageBytes: 7 * mb, Bytes: 14 * mb, Sizes: geminiSizes, AspectRatios: geminiRatios},
	},
	// gemini-2.5-flash-image's limits, the strictest of the family.
	generic: Model{Images: 3, ImageBytes: 7 * mb, Bytes: 14 * mb, AspectRatios: geminiRatios,
		Sizes: map[thumbnail.Aspect]Size{thumbnail.Landscape: {1344, 768}, thumbnail.Portrait: {768, 1344}}},
}
