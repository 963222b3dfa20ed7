// Package project is the clip project: a creator's source video, its
// readiness (downloadStatus), the analysis and the ranked clips, and the
// rules for creating one. A project is created `downloading` with the
// clips the captions allow; preparation moves it to `ready` or `failed`
// exactly once.
package project

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"hookline.dev/pkg/media/videosite"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/clips/internal/facetrack"
	"hookline.dev/services/clips/internal/moments"
	"hookline.dev/services/clips/internal/transcript"
)

// ErrNotFound: no such project in the organization.
var ErrNotFound = errors.New("project: not found")

// Format is the output frame of the project's renders.
type Format string

// The formats.
const (
	Portrait  Format = "portrait"  // 9:16
	Landscape Format = "landscape" // 16:9
)

// Status is the source's readiness (downloadStatus).
type Status string

// The statuses: downloading → ready | failed.
const (
	Downloading Status = "downloading"
	Ready       Status = "ready"
	Failed      Status = "failed"
)

// Step is the preparation step in progress, for a client watching a
// project get ready.
type Step string

// The preparation steps, in order.
const (
	StepQueued       Step = "queued"
	StepDownloading  Step = "downloading"
	StepProbing      Step = "probing"
	StepTranscribing Step = "transcribing"
	StepAnalyzing    Step = "analyzing"
	StepStoring      Step = "storing"
	StepDone         Step = "done"
)

// stepBands is the share of a preparation done when each step starts and
// where it ends: recognising speech and measuring the video are the long
// ones. Within transcription the band moves with the speech recognised,
// within analysis with the video decoded; the other steps report their
// start.
var stepBands = map[Step][2]int{
	StepQueued:       {0, 0},
	StepDownloading:  {1, 20},
	StepProbing:      {20, 25},
	StepTranscribing: {25, 70},
	StepAnalyzing:    {70, 95},
	StepStoring:      {95, 99},
	StepDone:         {100, 100},
}

// Progress is how far a preparation in step is, 0 to 100, with within
// the share of the step done (0 to 1). A project only ever moves forward:
// the store keeps the highest figure it was told.
func Progress(step Step, within float64) int {
	b, ok := stepBands[step]
	if !ok {
		return 0
	}
	return b[0] + int(float64(b[1]-b[0])*min(1, max(0, within)))
}

// Where a project's transcript came from.
const (
	TranscriptCaptions    = "captions"    // the site's track or a sidecar file
	TranscriptRecognition = "recognition" // speech recognition during preparation
)

// Project is a clip project.
type Project struct {
	ID, OrgID string
	// SourceURL is the address as sent; SourceKey identifies the video
	// across projects (the site's video id, or the direct URL).
	SourceURL, SourceKey string
	VideoTitle           string
	Format               Format
	Status               Status
	Step                 Step
	// Progress is how far the preparation is, 0 to 100 (see Progress).
	Progress      int
	DownloadError string
	// Duration is in seconds, 0 until known.
	Duration float64
	// Transcript is where the clips' words came from, "" while none.
	Transcript string
	Analysis   moments.Analysis
	Clips      []moments.Clip
	Attempts   int
	// Vocabulary are the custom terms sent at creation (the transcript's
	// edits keep them after; see package transcript).
	Vocabulary []string
	CreatedAt  time.Time
	UpdatedAt  time.Time
	ReadyAt    *time.Time
}

// Source is a video an organization prepared: the stored media, its words
// and its measured signals, kept once per organization and source key and
// reused by every later project of the same video.
type Source struct {
	OrgID, Key, MediaKey string
	Duration             float64
	Width, Height        int
	// TranscriptOrigin is TranscriptCaptions or TranscriptRecognition.
	TranscriptOrigin string
	Segments         []videosite.Segment
	Signals          moments.Signals
	// Faces are the faces and loudness sampled for renders to follow;
	// nil for a portrait source and one prepared before they were kept.
	Faces      *facetrack.Samples
	PreparedAt time.Time
}

// CreateInput is the body of POST /clips/projects.
type CreateInput struct {
	VideoSiteURL *string
	Format       *string
	Vocabulary   *[]string
	Prompt       *string
}

// Create is a validated CreateInput.
type Create struct {
	Source     videosite.Source
	Format     Format
	Vocabulary []string
	// Prompt steers the ranking (moments.Input.Prompt); "" without.
	Prompt string
}

// MaxURL bounds video_site_url.
const MaxURL = 2048

// ParseFormat reads a format; "" is the default, portrait.
func ParseFormat(s string) (Format, bool) {
	switch Format(s) {
	case "", Portrait:
		return Portrait, true
	case Landscape:
		return Landscape, true
	}
	return "", false
}

// Validate checks a creation request.
func Validate(in CreateInput) (Create, error) {
	f := apierr.Fields{}
	var c Create
	switch {
	case in.VideoSiteURL == nil || strings.TrimSpace(*in.VideoSiteURL) == "":
		f.Add("video_site_url", "required")
	case len(*in.VideoSiteURL) > MaxURL:
		f.Add("video_site_url", "at most 2048 characters")
	default:
		src, err := videosite.Parse(strings.TrimSpace(*in.VideoSiteURL))
		if err != nil {
			f.Add("video_site_url", "not a video address: a video site link or an http(s) link to an MP4, WebM or MOV file")
		}
		c.Source = src
	}
	c.Format = Portrait
	if in.Format != nil {
		format, ok := ParseFormat(*in.Format)
		if !ok || *in.Format == "" {
			f.Add("format", "must be portrait or landscape")
		}
		c.Format = format
	}
	if in.Vocabulary != nil {
		c.Vocabulary = transcript.CheckVocabulary(f, "vocabulary", *in.Vocabulary)
	}
	c.Prompt = CheckPrompt(f, "prompt", in.Prompt)
	return c, f.Err()
}

// CheckPrompt validates an optional prompt into f: 1..moments.MaxPrompt
// characters, not only white space. It returns the trimmed prompt, ""
// when absent.
func CheckPrompt(f apierr.Fields, field string, p *string) string {
	switch {
	case p == nil:
		return ""
	case strings.TrimSpace(*p) == "":
		f.Add(field, "must not be blank")
	case utf8.RuneCountInString(*p) > moments.MaxPrompt:
		f.Add(field, fmt.Sprintf("at most %d characters", moments.MaxPrompt))
	case !utf8.ValidString(*p):
		f.Add(field, "must be UTF-8 text")
	default:
		return strings.TrimSpace(*p)
	}
	return ""
}

// SourceKey identifies the video of src across projects.
func SourceKey(src videosite.Source) string {
	if src.Kind == videosite.KindDirect {
		return "url:" + src.URL
	}
	return "site:" + src.VideoID
}

// Windows are the spans of p's clips, for rescoring them.
func (p Project) Windows() []moments.Window {
	ws := make([]moments.Window, len(p.Clips))
	for i, c := range p.Clips {
		ws[i] = moments.Window{Start: c.Start, End: c.End}
	}
	return ws
}
