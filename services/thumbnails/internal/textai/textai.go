// Package textai writes Hookline's text products — thumbnail concepts for
// a video, an optimized thumbnail prompt from a rough idea, SEO titles and
// a video description — from measured pieces of the source text
// (ARCHITECTURE §7). The measuring is pkg/ai/nlp's: key phrases, TF-IDF
// keywords, an extractive summary, topic sections and the content type.
// What is written from them follows documented patterns whose every
// variable part comes from the source, so two different videos never get
// the same words.
//
// Two engines implement Engine: Local (the default, offline and
// deterministic) and Chat, which asks a chat model (pkg/ai/chatmodel) to do
// the wording from the same measured pieces, checks its answer against the
// same rules, retries once, and falls back to Local — saying so in the
// result's Engine — when the model answers badly twice or not at all.
package textai

import (
	"context"
	"regexp"
	"strings"
	"unicode/utf8"

	"hookline.dev/pkg/ai/chatmodel"
	"hookline.dev/pkg/ai/nlp"
	"hookline.dev/pkg/platform/config"
)

// Limits of what is written (Unicode code points).
const (
	MaxTitle       = 70
	MaxHookLine    = 200
	MaxTagsTotal   = 500
	MinHashtags    = 3
	MaxHashtags    = 5
	MinChapterGap  = 10.0 // seconds between chapter starts, as the video site requires
	WordsPerMinute = 150  // speaking rate that dates a plain transcript's chapters
	ConceptCount   = 3
)

// Source is a video as far as text goes.
type Source struct {
	// Title is the video's title ("" when unknown).
	Title string
	// Text is the whole transcript.
	Text string
	// Segments are the timed captions; nil for a plain transcript.
	Segments []nlp.Timed
	// Chapters are the video's own chapters (from its description), if any.
	Chapters []Chapter
	// Duration is the video's length in seconds, 0 when unknown.
	Duration float64
}

// Concept is one thumbnail idea.
type Concept struct {
	ID            string
	Title         string
	Description   string
	Prompt        string // usable as is by POST /thumbnails
	HookText      string
	TextStyle     string
	TextPlacement string
}

// Analysis is the concept analysis of a video.
type Analysis struct {
	Title    string
	Summary  string
	Concepts []Concept
	Engine   string
}

// TitlesInput asks for title suggestions.
type TitlesInput struct {
	Source   Source
	Keywords []string
	Count    int
}

// Title is one suggestion.
type Title struct {
	Title   string
	Pattern Pattern
	Reason  string
}

// Titles are the suggestions and who wrote them.
type Titles struct {
	Titles []Title
	Engine string
}

// Pattern is a title's rhetorical pattern.
type Pattern string

// The six title patterns, in the order they are offered.
const (
	HowTo       Pattern = "how-to"
	Number      Pattern = "number"
	Question    Pattern = "question"
	Curiosity   Pattern = "curiosity-gap"
	Outcome     Pattern = "outcome"
	Contrarian  Pattern = "contrarian"
	patternsLen         = 6
)

// Patterns lists the six patterns in offering order.
func Patterns() []Pattern { return []Pattern{HowTo, Number, Question, Curiosity, Outcome, Contrarian} }

// Link is a link for the description.
type Link struct {
	Title string
	URL   string
}

// DescriptionInput asks for a description.
type DescriptionInput struct {
	Title    string
	Source   Source
	Keywords []string
	Links    []Link
}

// Chapter is a chapter marker.
type Chapter struct {
	Start float64 // seconds
	Title string
}

// Description is a video description with its metadata.
type Description struct {
	Description       string
	Tags              []string
	Hashtags          []string
	Chapters          []Chapter
	ChaptersEstimated bool
	Engine            string
}

// Optimized is a thumbnail prompt made from a rough idea.
type Optimized struct {
	Prompt   string
	Headline string
	Engine   string
}

// Engine writes the text products. Implementations never fail on odd
// input (an empty transcript still gets an answer from its title); the
// errors are ctx's.
type Engine interface {
	Name() string
	Concepts(ctx context.Context, src Source) (Analysis, error)
	Titles(ctx context.Context, in TitlesInput) (Titles, error)
	Description(ctx context.Context, in DescriptionInput) (Description, error)
	Optimize(ctx context.Context, idea string) (Optimized, error)
}

// CodePoints is the length rule of every limit: Unicode code points after
// trimming white space.
func CodePoints(s string) int { return utf8.RuneCountInString(strings.TrimSpace(s)) }

// quoted is text in straight or curly double quotes.
var quoted = regexp.MustCompile(`["“]([^"“”]+)["”]`)

// QuotedHeadline is the first quoted span of a prompt of one to eight
// words, "" when there is none: `… headline "STARTER SECRETS"` says
// exactly what to set, as concept and optimized prompts do and as users
// write to image models.
func QuotedHeadline(prompt string) string {
	for _, m := range quoted.FindAllStringSubmatch(prompt, 4) {
		if n := len(strings.Fields(m[1])); n >= 1 && n <= 8 {
			return strings.TrimSpace(m[1])
		}
	}
	return ""
}

// New builds the engine c selects: Local, or Chat over the configured
// model with Local as its fallback.
func New(c config.Text) (Engine, error) {
	local := &Local{}
	m, err := chatmodel.FromConfig(c)
	if m == nil || err != nil {
		return local, err
	}
	return &Chat{Model: m, Local: local}, nil
}
