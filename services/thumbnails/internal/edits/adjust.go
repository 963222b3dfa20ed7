package edits

import (
	"context"
	"fmt"
	"strings"

	"hookline.dev/services/thumbnails/internal/edits/adjust"
	"hookline.dev/services/thumbnails/internal/encode"
	"hookline.dev/services/thumbnails/internal/generate/engine"
)

// ColorEnhance is POST /thumbnails/edit/color-enhance: a preset's tone
// curve, saturation and white balance at an intensity, run by libvips on
// the file, which keeps its size and format.
type ColorEnhance struct{ priced }

// Body implements Op.
func (ColorEnhance) Body() Body { return &ColorEnhanceBody{} }

// ColorEnhanceBody is the body of color-enhance.
type ColorEnhanceBody struct {
	ImageURL  *string `json:"imageUrl"`
	Preset    *string `json:"preset"`
	Intensity *string `json:"intensity"`
}

// Parse implements Body.
func (b *ColorEnhanceBody) Parse(bool) (*Request, error) {
	p := newForm()
	p.source("imageUrl", b.ImageURL)
	var r enhanceRun
	if preset := b.Preset; preset == nil {
		p.f.Add("preset", "is required: one of "+strings.Join(adjust.PresetNames(), ", "))
	} else if v, ok := adjust.ParsePreset(*preset); ok {
		r.preset = v
	} else {
		p.f.Add("preset", "must be one of "+strings.Join(adjust.PresetNames(), ", "))
	}
	r.intensity = adjust.Medium
	if intensity := b.Intensity; intensity != nil {
		if v, ok := adjust.ParseIntensity(*intensity); ok && *intensity != "" {
			r.intensity = v
		} else {
			p.f.Add("intensity", `must be "subtle", "medium" or "strong"`)
		}
	}
	p.req.Params["preset"], p.req.Params["intensity"] = string(r.preset), string(r.intensity)
	p.req.Prompt = fmt.Sprintf("color-enhance: %s, %s", r.preset, r.intensity)
	p.req.Applied = []string{fmt.Sprintf("color-enhance %s %s", r.preset, r.intensity)}
	p.req.work = perPixel(14)
	return p.done(r)
}

type enhanceRun struct {
	preset    adjust.Preset
	intensity adjust.Intensity
}

func (r enhanceRun) render(_ context.Context, _ engine.Varier, in *Inputs) (engine.Result, error) {
	return result(adjust.ColorEnhance(in.Sources[0].Data, r.preset, r.intensity))
}

// Upscale is POST /thumbnails/edit/upscale: the picture enlarged 2× or 4×
// by libvips, up to 40 megapixels.
type Upscale struct{ priced }

// Body implements Op.
func (Upscale) Body() Body { return &UpscaleBody{} }

// UpscaleBody is the body of upscale.
type UpscaleBody struct {
	ImageURL *string `json:"imageUrl"`
	Scale    *string `json:"scale"`
}

// Parse implements Body.
func (b *UpscaleBody) Parse(bool) (*Request, error) {
	p := newForm()
	p.source("imageUrl", b.ImageURL)
	var r upscaleRun
	switch scale := b.Scale; {
	case scale == nil:
		p.f.Add("scale", `is required: "2x" or "4x"`)
	case *scale == "2x":
		r.scale = 2
	case *scale == "4x":
		r.scale = 4
	default:
		p.f.Add("scale", `must be "2x" or "4x"`)
	}
	p.req.Params["scale"] = fmt.Sprintf("%dx", r.scale)
	p.req.Prompt = fmt.Sprintf("upscale: %dx", r.scale)
	p.req.Applied = []string{fmt.Sprintf("upscale %dx", r.scale)}
	// libvips streams the enlargement: what it holds follows the result,
	// which CheckUpscale caps (and refuses past the cap with its own 400).
	p.req.work = func(px int64) int64 { return 3 * min(px*int64(r.scale*r.scale), adjust.MaxOutputPixels) }
	return p.done(r)
}

type upscaleRun struct{ scale int }

// check refuses a result over the size limit, which the source's header
// tells.
func (r upscaleRun) check(in *Inputs) error {
	return adjust.CheckUpscale(in.Sources[0].Width, in.Sources[0].Height, r.scale)
}

func (r upscaleRun) render(_ context.Context, _ engine.Varier, in *Inputs) (engine.Result, error) {
	return result(adjust.Upscale(in.Sources[0].Data, r.scale))
}

// Filter is POST /thumbnails/edit/filter: the filters of the adjust
// grammar a filterPrompt names (grayscale, sepia, blur background…), one
// after another; there is no provider fallback.
type Filter struct{ priced }

// Body implements Op.
func (Filter) Body() Body { return &FilterBody{} }

// FilterBody is the body of filter.
type FilterBody struct {
	ImageURL     *string `json:"imageUrl"`
	FilterPrompt *string `json:"filterPrompt"`
}

// Parse implements Body.
func (b *FilterBody) Parse(bool) (*Request, error) {
	p := newForm()
	p.source("imageUrl", b.ImageURL)
	p.prompt("filterPrompt", b.FilterPrompt)
	if err := p.f.Err(); err != nil {
		return nil, err
	}
	filters, err := adjust.ParseFilter(p.req.Prompt)
	if err != nil {
		return nil, err
	}
	p.req.Pixels = true
	for _, f := range filters {
		p.req.Applied = append(p.req.Applied, f.String())
		// Of the filters only the background blur places anything by
		// the faces.
		p.req.Faces = p.req.Faces || f.Kind == adjust.FilterBlurBackground
	}
	// The costliest filter's working memory, and each further filter's
	// copy of the picture, which the next one reads.
	p.req.work = perPixel(28 + 4*int64(len(filters)-1))
	return p.done(filterRun{filters: filters})
}

type filterRun struct{ filters []adjust.Filter }

func (r filterRun) render(_ context.Context, _ engine.Varier, in *Inputs) (engine.Result, error) {
	src := in.Sources[0]
	img := src.Img
	for _, f := range r.filters {
		img = adjust.ApplyFilter(img, f, in.SourceFaces(0))
	}
	return result(encode.Encode(img, src.png()))
}
