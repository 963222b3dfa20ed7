package thumbnail

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/textcheck"
)

// Limits of the requests (README, "Limits").
const (
	// MaxPrompt bounds a prompt and a variation's tweak, in Unicode code
	// points after trimming surrounding whitespace.
	MaxPrompt = 2000
	// MinIdea and MaxIdea bound an optimize request's idea.
	MinIdea = 3
	MaxIdea = 500
	// MaxHeadline bounds a remix headline: a thumbnail shows a few words,
	// and 100 code points is already more than fits at a readable size.
	MaxHeadline = 100
	// MaxFaces bounds faceIds.
	MaxFaces = 10
	// MaxReferences bounds referenceImageUrls.
	MaxReferences = 10
	// MaxVariations and DefaultVariations bound and default count.
	MaxVariations     = 10
	DefaultVariations = 3
)

// TweakJoiner joins a parent's prompt and a variation's tweak in the
// variation's prompt: "neon city — more purple". An em dash with spaces
// reads as an aside and does not occur in prompts by accident.
const TweakJoiner = " — "

// Refs are the assets records a request may name; nil means not sent.
type Refs struct {
	StyleID      *string
	BrandID      *string
	CollectionID *string
	FaceIDs      []string
}

// GenerateInput is the body of POST /thumbnails.
type GenerateInput struct {
	Prompt             *string
	AspectRatio        *string
	ReferenceImageURLs []string
	Refs
}

// RemixInput is the body of POST /templates/{id}/remix.
type RemixInput struct {
	Prompt      *string
	Headline    *string
	AspectRatio *string
	Refs
}

// OptimizeInput is the body of POST /thumbnails/optimize: a rough idea and
// the generate options that make sense without a prompt (no faces or
// reference images: the optimized prompt decides the picture).
type OptimizeInput struct {
	Idea         *string
	AspectRatio  *string
	StyleID      *string
	BrandID      *string
	CollectionID *string
}

// VariationsInput is the body of POST /thumbnails/variations.
type VariationsInput struct {
	ThumbnailID *string
	Count       *int
	Prompt      *string
}

// Spec is a validated request: canonical ids ("" when unset), trimmed text.
type Spec struct {
	Prompt   string
	Headline string
	// Aspect is "" when the request left it to a default (a remix takes
	// the template's).
	Aspect        Aspect
	StyleID       string
	BrandID       string
	CollectionID  string
	FaceIDs       []string
	ReferenceURLs []string
}

// VariationsSpec is a validated variations request.
type VariationsSpec struct {
	ParentID string
	Count    int
	Tweak    string
}

// ValidateGenerate checks a generate request; every problem is reported at
// once in one 400 whose details.fields name the fields.
func ValidateGenerate(in GenerateInput) (Spec, error) {
	f := apierr.Fields{}
	var s Spec
	if in.Prompt == nil {
		f.Add("prompt", "is required")
	} else {
		s.Prompt = text(f, "prompt", *in.Prompt, MaxPrompt, true)
	}
	s.Aspect = aspect(f, in.AspectRatio)
	if s.Aspect == "" {
		s.Aspect = Landscape
	}
	refs(f, in.Refs, &s)
	switch n := len(in.ReferenceImageURLs); {
	case n > MaxReferences:
		f.Add("referenceImageUrls", fmt.Sprintf("at most %d images, got %d", MaxReferences, n))
	case n > 0:
		s.ReferenceURLs = in.ReferenceImageURLs
	}
	return s, f.Err()
}

// ValidateOptimize checks an optimize request. The idea is the spec's
// Prompt, MinIdea..MaxIdea characters.
func ValidateOptimize(in OptimizeInput) (Spec, error) {
	f := apierr.Fields{}
	var s Spec
	if in.Idea == nil {
		f.Add("idea", "is required")
	} else if s.Prompt = text(f, "idea", *in.Idea, MaxIdea, true); utf8.RuneCountInString(s.Prompt) < MinIdea && s.Prompt != "" {
		f.Add("idea", fmt.Sprintf("must be at least %d characters", MinIdea))
	}
	s.Aspect = aspect(f, in.AspectRatio)
	if s.Aspect == "" {
		s.Aspect = Landscape
	}
	refs(f, Refs{StyleID: in.StyleID, BrandID: in.BrandID, CollectionID: in.CollectionID}, &s)
	return s, f.Err()
}

// ValidateRemix checks a remix request. Prompt and headline are optional,
// but not empty when sent.
func ValidateRemix(in RemixInput) (Spec, error) {
	f := apierr.Fields{}
	var s Spec
	if in.Prompt != nil {
		s.Prompt = text(f, "prompt", *in.Prompt, MaxPrompt, true)
	}
	if in.Headline != nil {
		s.Headline = text(f, "headline", *in.Headline, MaxHeadline, false)
	}
	s.Aspect = aspect(f, in.AspectRatio)
	refs(f, in.Refs, &s)
	return s, f.Err()
}

// ValidateVariations checks a variations request.
func ValidateVariations(in VariationsInput) (VariationsSpec, error) {
	f := apierr.Fields{}
	s := VariationsSpec{Count: DefaultVariations}
	if in.ThumbnailID == nil {
		f.Add("thumbnailId", "is required")
	} else {
		s.ParentID = id(f, "thumbnailId", *in.ThumbnailID)
	}
	if in.Count != nil {
		s.Count = *in.Count
		f.Check(s.Count >= 1 && s.Count <= MaxVariations, "count", fmt.Sprintf("must be an integer from 1 to %d", MaxVariations))
	}
	if in.Prompt != nil {
		s.Tweak = text(f, "prompt", *in.Prompt, MaxPrompt, true)
	}
	return s, f.Err()
}

// VariationPrompt is the prompt of a variation of a thumbnail whose prompt
// is parent, steered by tweak ("" for none).
func VariationPrompt(parent, tweak string) string {
	if tweak == "" {
		return parent
	}
	return parent + TweakJoiner + tweak
}

// RemixPrompt is the prompt recorded for a remix: the request's prompt,
// else its headline, else the template's name.
func RemixPrompt(s Spec, templateName string) string {
	switch {
	case s.Prompt != "":
		return s.Prompt
	case s.Headline != "":
		return s.Headline
	}
	return templateName
}

// text trims s and checks it is 1..limit code points of acceptable text.
func text(f apierr.Fields, field, s string, limit int, multiline bool) string {
	s = strings.TrimSpace(s)
	if !textcheck.Check(f, field, s, multiline) {
		return s
	}
	switch n := utf8.RuneCountInString(s); {
	case n == 0:
		f.Add(field, "must not be empty")
	case n > limit:
		f.Add(field, fmt.Sprintf("must be at most %d characters, got %d", limit, n))
	}
	return s
}

func aspect(f apierr.Fields, s *string) Aspect {
	if s == nil {
		return ""
	}
	a := Aspect(*s)
	f.Check(a.Valid(), "aspectRatio", `must be "16:9" or "9:16"`)
	return a
}

// id returns the canonical form of a uuid field, or records it as malformed.
func id(f apierr.Fields, field, s string) string {
	u, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		f.Add(field, "must be a uuid")
		return ""
	}
	return u.String()
}

func optionalID(f apierr.Fields, field string, s *string) string {
	if s == nil {
		return ""
	}
	return id(f, field, *s)
}

func refs(f apierr.Fields, r Refs, s *Spec) {
	s.StyleID = optionalID(f, "styleId", r.StyleID)
	s.BrandID = optionalID(f, "brandId", r.BrandID)
	s.CollectionID = optionalID(f, "collectionId", r.CollectionID)
	if len(r.FaceIDs) > MaxFaces {
		f.Add("faceIds", fmt.Sprintf("at most %d faces, got %d", MaxFaces, len(r.FaceIDs)))
		return
	}
	seen := make(map[string]int, len(r.FaceIDs))
	for i, raw := range r.FaceIDs {
		field := fmt.Sprintf("faceIds[%d]", i)
		c := id(f, field, raw)
		if c == "" {
			continue
		}
		if j, dup := seen[c]; dup {
			f.Add(field, fmt.Sprintf("repeats faceIds[%d]", j))
			continue
		}
		seen[c] = i
		s.FaceIDs = append(s.FaceIDs, c)
	}
}

// ParseKind reads the kind filter of a list; "" is no filter.
func ParseKind(s string) (Kind, error) {
	k := Kind(s)
	if s == "" || k.Valid() {
		return k, nil
	}
	return "", apierr.Field("kind", "must be one of generated, variation, remix, optimized, edit")
}
