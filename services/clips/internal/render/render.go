// Package render is a render job: one clip of a ready project made into
// an MP4, paid for with its own credit reservation (2 credits), moving
// pending → rendering → completed | failed with the pipeline's step and
// progress; and the rules of a render request.
package render

import (
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/clips/internal/captions"
	"hookline.dev/services/clips/internal/censor"
	"hookline.dev/services/clips/internal/project"
	"hookline.dev/services/clips/internal/translate"
)

// ErrNotFound: no such render in the organization.
var ErrNotFound = errors.New("render: not found")

// ErrNoBrand: no such brand in the organization (as the brands read model
// knows them).
var ErrNoBrand = errors.New("render: brand not found")

// Brand is a brand as the renders use it: its colours ("#rrggbb", the
// first is the frame's) and logo.
type Brand struct {
	ID, OrgID, Name string
	Colors          []string
	LogoURL         string
}

// FrameColor is the brand's first colour as ffmpeg's 0xRRGGBB, "" when
// it has none in the "#rrggbb" form: nothing else reaches a filtergraph.
func (b Brand) FrameColor() string {
	for _, c := range b.Colors {
		if len(c) == 7 && c[0] == '#' && strings.Trim(strings.ToLower(c[1:]), "0123456789abcdef") == "" {
			return "0x" + strings.ToUpper(c[1:])
		}
	}
	return ""
}

// Operation names renders in billing's usage history.
const Operation = "clips.render"

// ResourceType is the reservations' resource type: billing counts the
// pending ones against the tier's concurrent-renders quota.
const ResourceType = "render"

// Limits of a request.
const (
	CreditsPerClip = 2
	MaxClips       = 10
	MaxEndCardText = 120
)

// Status is a render's state.
type Status string

// The states: pending → rendering → completed | failed.
const (
	Pending   Status = "pending"
	Rendering Status = "rendering"
	Completed Status = "completed"
	Failed    Status = "failed"
)

// Steps beyond the renderer's: queued before, uploading and done after.
const (
	StepQueued    = "queued"
	StepUploading = "uploading"
	StepDone      = "done"
)

// Options are the render options of the spec.
type Options struct {
	Music           bool
	MusicTrackID    string
	Broll           bool
	HookTitle       bool
	ProgressBar     bool
	BrandFrame      bool
	EndCardText     string
	KeywordEmphasis bool
	// RemoveSilences and RemoveFillers jump-cut the pauses and the filler
	// words; AutoZoom punches in on the emphasised lines.
	RemoveSilences bool
	RemoveFillers  bool
	AutoZoom       bool
	// Layout frames the faces of a portrait render from a landscape
	// source ("" on renders stored before it existed reads as auto).
	Layout Layout
	// Censor bleeps or mutes the listed words (censor.Builtin and the
	// organization's own) and masks them in the captions ("" on renders
	// stored before it existed reads as none).
	Censor censor.Mode
	// CaptionLanguage is the captions' (and the hook's) language, ISO
	// 639-1; "" is the spoken language.
	CaptionLanguage string
}

// Layout is how a portrait render frames a landscape source's faces: a
// word of the render request, which the ffmpeg engine carries out.
type Layout string

// The layouts. LayoutFill follows the largest face (the first
// reframing); LayoutSpeaker follows the face that is speaking;
// LayoutSplit stacks two faces in two halves whenever two are in the
// picture; LayoutAuto follows the speaker and splits the stretches where
// two faces take turns within a few seconds.
const (
	LayoutAuto    Layout = "auto"
	LayoutSpeaker Layout = "speaker"
	LayoutSplit   Layout = "split"
	LayoutFill    Layout = "fill"
)

// Layouts lists the layouts in the API's order.
var Layouts = []Layout{LayoutAuto, LayoutSpeaker, LayoutSplit, LayoutFill}

// ParseLayout reads a layout name.
func ParseLayout(s string) (Layout, bool) {
	if l := Layout(s); slices.Contains(Layouts, l) {
		return l, true
	}
	return "", false
}

// Render is a render job.
type Render struct {
	ID, OrgID, ProjectID, ClipID string
	Format                       project.Format
	Style                        captions.Style
	BrandID                      string
	Options                      Options
	Status                       Status
	Progress                     int
	Step                         string
	Error                        string
	Notes                        []string
	Credits                      int64
	ReservationID                string
	OutputKey, CaptionsKey       string
	CropKey                      string
	Attempts                     int
	CreatedAt, UpdatedAt         time.Time
	CompletedAt                  *time.Time
	// SecondsRemoved is what the jump cuts took out of the clip.
	SecondsRemoved float64
	// Exports are the files stored beside the MP4 for editors.
	Exports []Export
	// CaptionTranslation says how the captions were translated (nil: in
	// the spoken language).
	CaptionTranslation *translate.Translation
}

// Export is a file a completed render stores beside its MP4 for an
// editor: the captions, or the cut as an edit decision list.
type Export struct {
	Format ExportFormat
	Key    string
}

// ExportFormat names an export's format.
type ExportFormat string

// The export formats: the captions of the rendered clip (SubRip and
// WebVTT), and the cut (FCPXML 1.10 with the crop path as keyframes, and
// CMX 3600).
const (
	ExportSRT    ExportFormat = "srt"
	ExportVTT    ExportFormat = "vtt"
	ExportFCPXML ExportFormat = "fcpxml"
	ExportEDL    ExportFormat = "edl"
)

// ContentType is the media type an export is stored and served with.
func (f ExportFormat) ContentType() string {
	switch f {
	case ExportSRT:
		return "application/x-subrip"
	case ExportVTT:
		return "text/vtt"
	case ExportFCPXML:
		return "application/xml"
	}
	return "text/plain; charset=utf-8"
}

// Charged is what the render costs the organization: its credits, none
// once failed (refunded).
func (r Render) Charged() int64 {
	if r.Status == Failed {
		return 0
	}
	return r.Credits
}

// OptionsIn is the options object as sent.
type OptionsIn struct {
	Music           *bool
	MusicTrackID    *string
	Broll           *bool
	HookTitle       *bool
	ProgressBar     *bool
	BrandFrame      *bool
	EndCardText     *string
	KeywordEmphasis *bool
	RemoveSilences  *bool
	RemoveFillers   *bool
	AutoZoom        *bool
	Layout          *string
	Censor          *string
	CaptionLanguage *string
}

// CreateInput is the body of POST /clips/projects/{id}/renders.
type CreateInput struct {
	ClipID        *string
	ClipIDs       *[]string
	Format        *string
	SubtitleStyle *string
	BrandID       *string
	Options       *OptionsIn
}

// Create is a validated request: the clips to render and how.
type Create struct {
	ClipIDs []string
	Format  project.Format
	Style   captions.Style
	BrandID string
	Options Options
}

// DefaultStyle is the subtitle style when none is named: the project's
// suggestion.
func DefaultStyle(p project.Project) captions.Style {
	if s, ok := captions.ParseStyle(p.Analysis.SuggestedStyle); ok {
		return s
	}
	return captions.Clean
}

// Validate checks a request against its (ready) project. The caller has
// answered 409 for a project that is not ready before asking.
func Validate(in CreateInput, p project.Project) (Create, error) {
	f := apierr.Fields{}
	c := Create{Format: p.Format, Style: DefaultStyle(p), Options: Options{Layout: LayoutAuto, Censor: censor.None}}
	switch {
	case in.ClipID != nil && in.ClipIDs != nil:
		f.Add("clip_ids", "send clip_id or clip_ids, not both")
	case in.ClipID == nil && in.ClipIDs == nil:
		f.Add("clip_id", "required: clip_id or clip_ids")
	case in.ClipID != nil:
		c.ClipIDs = []string{*in.ClipID}
		if !known(p, *in.ClipID) {
			f.Add("clip_id", "not a clip of this project")
		}
	default:
		ids := *in.ClipIDs
		seen := map[string]bool{}
		var unknown []string
		for _, id := range ids {
			if seen[id] {
				f.Add("clip_ids", "duplicate clip id "+id)
			}
			seen[id] = true
			if !known(p, id) {
				unknown = append(unknown, id)
			}
		}
		switch {
		case len(ids) == 0:
			f.Add("clip_ids", "at least one clip id")
		case len(ids) > MaxClips:
			f.Add("clip_ids", "at most 10 clip ids")
		case len(unknown) > 0:
			f.Add("clip_ids", "not clips of this project: "+strings.Join(unknown, ", "))
		}
		c.ClipIDs = ids
	}
	if in.Format != nil {
		format, ok := project.ParseFormat(*in.Format)
		if !ok || *in.Format == "" {
			f.Add("format", "must be portrait or landscape")
		}
		c.Format = format
	}
	if in.SubtitleStyle != nil {
		st, ok := captions.ParseStyle(*in.SubtitleStyle)
		if !ok {
			f.Add("subtitle_style", "must be bold, clean, minimal, energetic or glow")
		}
		c.Style = st
	}
	if in.BrandID != nil {
		if _, err := uuid.Parse(*in.BrandID); err != nil {
			f.Add("brand_id", "not a uuid")
		}
		c.BrandID = *in.BrandID
	}
	if o := in.Options; o != nil {
		c.Options = Options{
			Music: val(o.Music), MusicTrackID: strings.TrimSpace(val(o.MusicTrackID)), Broll: val(o.Broll), HookTitle: val(o.HookTitle),
			ProgressBar: val(o.ProgressBar), BrandFrame: val(o.BrandFrame), EndCardText: strings.TrimSpace(val(o.EndCardText)),
			KeywordEmphasis: val(o.KeywordEmphasis),
			RemoveSilences:  val(o.RemoveSilences),
			RemoveFillers:   val(o.RemoveFillers),
			AutoZoom:        val(o.AutoZoom),
		}
		c.Options.Layout, c.Options.Censor = LayoutAuto, censor.None
		if o.Censor != nil {
			mode, ok := censor.ParseMode(*o.Censor)
			if !ok {
				f.Add("options.censor", "must be none, bleep or mute")
			}
			c.Options.Censor = mode
		}
		if o.Layout != nil {
			layout, ok := ParseLayout(*o.Layout)
			if !ok {
				f.Add("options.layout", "must be auto, speaker, split or fill")
			}
			c.Options.Layout = layout
		}
		if o.CaptionLanguage != nil {
			l := *o.CaptionLanguage
			if len(l) != 2 || strings.Trim(l, "abcdefghijklmnopqrstuvwxyz") != "" {
				f.Add("options.captionLanguage", "must be an ISO 639-1 code of two lowercase letters, such as es")
			}
			c.Options.CaptionLanguage = l
		}
		if c.Options.BrandFrame && c.BrandID == "" {
			f.Add("options.brandFrame", "requires brand_id")
		}
		if utf8.RuneCountInString(c.Options.EndCardText) > MaxEndCardText {
			f.Add("options.endCardText", "at most 120 characters")
		}
	}
	return c, f.Err()
}

func val[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func known(p project.Project, id string) bool {
	for _, c := range p.Clips {
		if c.ID == id {
			return true
		}
	}
	return false
}
