package edits

import (
	"strings"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// form is an op's body being validated. The fields several edits share
// are read here, so that they follow one rule and one wording.
type form struct {
	f   apierr.Fields
	req *Request
}

func newForm() *form {
	return &form{f: apierr.Fields{}, req: &Request{Params: map[string]string{}, FaceIDs: []string{}}}
}

// source reads the required address of a picture to edit, sent as field.
func (p *form) source(field string, v *string) {
	if v == nil || strings.TrimSpace(*v) == "" {
		p.f.Add(field, "is required")
		return
	}
	p.req.Sources = append(p.req.Sources, Source{Field: field, URL: strings.TrimSpace(*v)})
}

// aspect reads the optional aspectRatio.
func (p *form) aspect(v *string) {
	p.req.Aspect = thumbnail.EditAspect(p.f, v)
	if p.req.Aspect != "" {
		p.req.Params["aspectRatio"] = string(p.req.Aspect)
	}
}

// prompt reads a required prompt, sent as field: the prompt the result
// records, and one of its params.
func (p *form) prompt(field string, v *string) {
	p.req.Prompt = thumbnail.EditPrompt(p.f, field, v)
	if v != nil {
		p.req.Params[field] = p.req.Prompt
	}
}

// done is the request run by r, or the 400 of the fields that failed.
func (p *form) done(r run) (*Request, error) {
	if err := p.f.Err(); err != nil {
		return nil, err
	}
	p.req.run = r
	return p.req, nil
}

// orProvider is done for an op whose prompt is read against a grammar by
// parse, which also returns what the run applies: a prompt in which the
// grammar recognises nothing goes to the configured image provider when
// there is one (provider), which needs the decoded pictures but no
// faces and no cut-out, and is the grammar's 400 unsupported_prompt
// otherwise.
func (p *form) orProvider(provider bool, parse func(prompt string) (run, []string, error)) (*Request, error) {
	if err := p.f.Err(); err != nil {
		return nil, err
	}
	r, applied, err := parse(p.req.Prompt)
	if err != nil && provider && apierr.Is(err, apierr.UnsupportedPrompt) {
		p.req.Provider, p.req.Pixels, p.req.Faces, p.req.Cutout = true, true, false, false
		p.req.Applied = []string{"image provider"}
		// The provider draws; the run only encodes the pictures it sends.
		p.req.work = perPixel(4)
		return p.done(providerRun{prompt: p.req.Prompt, aspect: p.req.Aspect})
	}
	if err != nil {
		return nil, err
	}
	p.req.Applied = applied
	return p.done(r)
}
