package thumbnail

import (
	"fmt"
	"strings"

	"hookline.dev/pkg/apierr"
	"hookline.dev/services/thumbnails/internal/edits/adjust"
	"hookline.dev/services/thumbnails/internal/edits/backdrop"
	"hookline.dev/services/thumbnails/internal/edits/combine"
	"hookline.dev/services/thumbnails/internal/edits/instruct"
	"hookline.dev/services/thumbnails/internal/generate/engine"
)

// Op is an edit operation, named as its endpoint under /thumbnails/edit.
type Op string

// The edits. OpEdit is POST /thumbnails/edit itself.
const (
	OpEdit              Op = "edit"
	OpFaceSwap          Op = "face-swap"
	OpBackgroundRemove  Op = "background-remove"
	OpBackgroundReplace Op = "background-replace"
	OpColorEnhance      Op = "color-enhance"
	OpUpscale           Op = "upscale"
	OpFilter            Op = "filter"
	OpCombine           Op = "combine"
)

// Credits is what the edit costs (the spec's credit table): the edits a
// generative provider could be asked for cost 1, the pixel operations
// nothing.
func (o Op) Credits() int {
	switch o {
	case OpEdit, OpFaceSwap, OpBackgroundReplace, OpCombine:
		return 1
	}
	return 0
}

// Operation names a paid edit in billing's usage history.
func (o Op) Operation() string { return "thumbnails." + string(o) }

// EditInput is the body of an edit endpoint, every field any of them
// takes; nil means not sent. Each endpoint decodes only its own fields
// (an unknown field is a 400 before this is built).
type EditInput struct {
	ImageURL, ImageURL1, ImageURL2         *string
	Prompt, FilterPrompt, BackgroundPrompt *string
	AspectRatio                            *string
	FaceImageURL, FaceID                   *string
	Preset, Intensity, Scale               *string
	ReferenceImageURLs                     []string
}

// EditSpec is a validated edit request.
type EditSpec struct {
	Op Op
	// Sources are the pictures edited, with the fields that named them:
	// imageUrl, or imageUrl1 and imageUrl2 for combine.
	Sources []Source
	// Aspect is "" when the result keeps its source's shape.
	Aspect engine.Aspect
	// Prompt is what the result records: the request's prompt,
	// filterPrompt or backgroundPrompt, or a description of the operation.
	Prompt string
	// Face swap: exactly one of the two is set.
	FaceImageURL, FaceID string

	Preset     adjust.Preset
	Intensity  adjust.Intensity
	Scale      int
	Filter     adjust.Filter
	Program    instruct.Program
	Layout     combine.Layout
	Background backdrop.Background
	// Provider is set when the prompt is outside the local grammar and
	// only the configured image provider can carry it out.
	Provider   bool
	References []string
	// Params are the parameters recorded with the result.
	Params map[string]string
}

// Source is an input picture and the request field that named it.
type Source struct {
	Field, URL string
}

// ValidateEdit checks an edit request: every field problem at once in one
// 400 naming the fields, then the prompt against the operation's grammar
// (400 unsupported_prompt). provider says an image provider is
// configured: a prompt outside the grammar of edit, combine and
// background-replace goes to it instead of being refused.
func ValidateEdit(op Op, in EditInput, provider bool) (EditSpec, error) {
	f := apierr.Fields{}
	s := EditSpec{Op: op, Params: map[string]string{}}
	source := func(field string, v *string) {
		if v == nil || strings.TrimSpace(*v) == "" {
			f.Add(field, "is required")
			return
		}
		s.Sources = append(s.Sources, Source{Field: field, URL: strings.TrimSpace(*v)})
	}
	prompt := func(field string, v *string) string {
		if v == nil {
			f.Add(field, "is required")
			return ""
		}
		p := text(f, field, *v, MaxPrompt, false)
		s.Params[field] = p
		return p
	}
	if op == OpCombine {
		source("imageUrl1", in.ImageURL1)
		source("imageUrl2", in.ImageURL2)
	} else {
		source("imageUrl", in.ImageURL)
	}
	s.Aspect = aspect(f, in.AspectRatio)
	if s.Aspect != "" {
		s.Params["aspectRatio"] = string(s.Aspect)
	}
	switch op {
	case OpEdit:
		s.Prompt = prompt("prompt", in.Prompt)
		if n := len(in.ReferenceImageURLs); n > MaxReferences {
			f.Add("referenceImageUrls", fmt.Sprintf("at most %d images, got %d", MaxReferences, n))
		}
		s.References = in.ReferenceImageURLs
	case OpCombine:
		s.Prompt = prompt("prompt", in.Prompt)
	case OpBackgroundReplace:
		s.Prompt = prompt("backgroundPrompt", in.BackgroundPrompt)
	case OpFilter:
		s.Prompt = prompt("filterPrompt", in.FilterPrompt)
	case OpFaceSwap:
		faceSource(f, &s, in.FaceImageURL, in.FaceID)
	case OpColorEnhance:
		colorEnhance(f, &s, in.Preset, in.Intensity)
	case OpUpscale:
		switch {
		case in.Scale == nil:
			f.Add("scale", `is required: "2x" or "4x"`)
		case *in.Scale == "2x":
			s.Scale = 2
		case *in.Scale == "4x":
			s.Scale = 4
		default:
			f.Add("scale", `must be "2x" or "4x"`)
		}
		s.Params["scale"] = fmt.Sprintf("%dx", s.Scale)
	}
	if err := f.Err(); err != nil {
		return s, err
	}
	return s, parsePrompt(&s, provider)
}

// faceSource checks the either/or rule of face swap: exactly one of
// faceImageUrl and faceId.
func faceSource(f apierr.Fields, s *EditSpec, imageURL, faceID *string) {
	switch {
	case imageURL != nil && faceID != nil:
		f.Add("faceImageUrl", "send exactly one of faceImageUrl and faceId, not both")
		f.Add("faceId", "send exactly one of faceImageUrl and faceId, not both")
	case imageURL == nil && faceID == nil:
		f.Add("faceImageUrl", "send exactly one of faceImageUrl and faceId")
		f.Add("faceId", "send exactly one of faceImageUrl and faceId")
	case imageURL != nil:
		if s.FaceImageURL = strings.TrimSpace(*imageURL); s.FaceImageURL == "" {
			f.Add("faceImageUrl", "must not be empty")
		}
		s.Params["faceImageUrl"] = s.FaceImageURL
	default:
		s.FaceID = id(f, "faceId", *faceID)
		s.Params["faceId"] = s.FaceID
	}
	s.Prompt = "face-swap: the largest face replaced"
}

func colorEnhance(f apierr.Fields, s *EditSpec, preset, intensity *string) {
	if preset == nil {
		f.Add("preset", "is required: one of "+strings.Join(adjust.PresetNames(), ", "))
	} else if p, ok := adjust.ParsePreset(*preset); ok {
		s.Preset = p
	} else {
		f.Add("preset", "must be one of "+strings.Join(adjust.PresetNames(), ", "))
	}
	s.Intensity = adjust.Medium
	if intensity != nil {
		if in, ok := adjust.ParseIntensity(*intensity); ok && *intensity != "" {
			s.Intensity = in
		} else {
			f.Add("intensity", `must be "subtle", "medium" or "strong"`)
		}
	}
	s.Params["preset"], s.Params["intensity"] = string(s.Preset), string(s.Intensity)
	s.Prompt = fmt.Sprintf("color-enhance: %s, %s", s.Preset, s.Intensity)
}

// parsePrompt reads the prompt of the operations that have a grammar.
func parsePrompt(s *EditSpec, provider bool) error {
	var err error
	switch s.Op {
	case OpEdit:
		s.Program, err = instruct.Parse(s.Prompt)
	case OpCombine:
		s.Layout, err = combine.Parse(s.Prompt)
	case OpBackgroundReplace:
		s.Background, err = backdrop.Parse(s.Prompt)
	case OpFilter:
		s.Filter, err = adjust.ParseFilter(s.Prompt)
		return err
	case OpBackgroundRemove:
		s.Prompt = "background-remove: transparent background"
	case OpUpscale:
		s.Prompt = fmt.Sprintf("upscale: %dx", s.Scale)
	}
	if err != nil && provider && apierr.Is(err, apierr.UnsupportedPrompt) {
		s.Provider = true
		return nil
	}
	return err
}
