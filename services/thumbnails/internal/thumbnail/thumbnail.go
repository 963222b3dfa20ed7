// Package thumbnail holds the rules of a thumbnail: what a generation,
// variation or remix request may say, the kinds, and how a thumbnail's
// id and seed follow from the reservation that pays for it (so a retried
// request makes the same picture, once).
package thumbnail

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"hookline.dev/services/thumbnails/internal/engine"
)

// Kind says how a thumbnail was made.
type Kind string

// The kinds.
const (
	Generated Kind = "generated"
	Variation Kind = "variation"
	Remix     Kind = "remix"
	Optimized Kind = "optimized"
	Edit      Kind = "edit"
)

// Kinds lists every kind, for validation and docs.
var Kinds = []Kind{Generated, Variation, Remix, Optimized, Edit}

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool { return slices.Contains(Kinds, k) }

// Limits of a request.
const (
	MaxPromptChars     = 2000
	MaxHeadlineChars   = 100
	MaxTweakChars      = 500
	MaxFaces           = 10
	MaxReferenceImages = 10
	MaxVariations      = 10
	DefaultVariations  = 3
)

// Thumbnail is a stored picture.
type Thumbnail struct {
	ID           string
	OrgID        string
	Kind         Kind
	Prompt       string
	ParentID     string
	Aspect       engine.Aspect
	Width        int
	Height       int
	StyleID      string
	BrandID      string
	FaceIDs      []string
	CollectionID string
	TemplateID   string
	Engine       string
	ImageKey     string
	Seed         uint64
	// ReservationID is the reservation that paid for it.
	ReservationID string
	CreatedAt     time.Time
}

// Filter narrows a list; empty fields do not filter.
type Filter struct {
	Kind         Kind
	CollectionID string
}

// ErrNotFound: no thumbnail with that id in the organization.
var ErrNotFound = errors.New("thumbnail: not found")

// FieldError is a request field that breaks a rule.
type FieldError struct {
	Field  string
	Reason string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }

// Problems collects the field errors of one request, so a client learns
// all of them at once.
type Problems []*FieldError

// Add records a problem.
func (p *Problems) Add(field, reason string) { *p = append(*p, &FieldError{field, reason}) }

// Err is nil without problems, else an error listing them
// (errors.As finds *Problems... through InvalidError).
func (p Problems) Err() error {
	if len(p) == 0 {
		return nil
	}
	return &InvalidError{Problems: p}
}

// InvalidError is a request with one or more field problems.
type InvalidError struct{ Problems Problems }

func (e *InvalidError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Error()
	}
	return "invalid request: " + strings.Join(parts, "; ")
}

// Text trims s and checks its length in Unicode code points: required
// text may not be empty.
func Text(p *Problems, field, s string, required bool, max int) string {
	s = strings.TrimSpace(s)
	n := utf8.RuneCountInString(s)
	switch {
	case n == 0 && required:
		p.Add(field, "is required")
	case n > max:
		p.Add(field, fmt.Sprintf("is %d characters; at most %d", n, max))
	}
	return s
}

// Aspect checks an aspect ratio; empty means def.
func Aspect(p *Problems, field, s string, def engine.Aspect) engine.Aspect {
	if s == "" {
		return def
	}
	a := engine.Aspect(s)
	if !a.Valid() {
		p.Add(field, fmt.Sprintf("must be %q or %q", engine.Landscape, engine.Portrait))
	}
	return a
}

// ID checks an optional uuid and returns it in canonical form.
func ID(p *Problems, field, s string) string {
	if s == "" {
		return ""
	}
	u, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		p.Add(field, "must be a uuid")
		return ""
	}
	return u.String()
}

// IDs checks a list of distinct uuids of at most max entries.
func IDs(p *Problems, field string, ss []string, max int) []string {
	if len(ss) > max {
		p.Add(field, fmt.Sprintf("has %d entries; at most %d", len(ss), max))
		return nil
	}
	out := make([]string, 0, len(ss))
	for i, s := range ss {
		f := fmt.Sprintf("%s[%d]", field, i)
		if s == "" {
			p.Add(f, "must be a uuid")
			continue
		}
		id := ID(p, f, s)
		if id == "" {
			continue
		}
		if slices.Contains(out, id) {
			p.Add(f, "is listed twice")
			continue
		}
		out = append(out, id)
	}
	return out
}

// IDFor derives the id of the thumbnail a reservation pays for: a retry
// of the request (same reservation) names the same thumbnail.
func IDFor(reservationID string) string {
	return uuid.NewSHA1(idNS, []byte(reservationID)).String()
}

var idNS = uuid.MustParse("5b0c4a1e-7f0e-4c55-9a51-2f5f3d8e6a10")

// SeedFor derives the engine seed from a thumbnail id. It is kept to 63
// bits so it fits Postgres's bigint.
func SeedFor(id string) uint64 {
	sum := sha256.Sum256([]byte(id))
	return binary.BigEndian.Uint64(sum[:8]) >> 1
}

// VariationPrompt is the prompt of a variation: the parent's, plus the
// tweak when there is one.
func VariationPrompt(parent, tweak string) string {
	if tweak == "" {
		return parent
	}
	return parent + " — " + tweak
}

// RemixPrompt is the prompt recorded for a remix: the request's prompt,
// else its headline, else the template's name.
func RemixPrompt(prompt, headline, templateName string) string {
	switch {
	case prompt != "":
		return prompt
	case headline != "":
		return headline
	}
	return templateName
}
