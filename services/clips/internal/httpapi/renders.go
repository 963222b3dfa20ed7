package httpapi

import (
	"context"
	"math"
	"net/http"
	"time"

	"hookline.dev/pkg/platform/chix"
	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/services/clips/internal/censor"
	"hookline.dev/services/clips/internal/render"
)

// renderDTO is a render job as GET answers it: every field always present.
type renderDTO struct {
	ID             string     `json:"id"`
	ProjectID      string     `json:"projectId"`
	ClipID         string     `json:"clipId"`
	Status         string     `json:"status"`
	Progress       int        `json:"progress"`
	CurrentStep    string     `json:"currentStep"`
	Format         string     `json:"format"`
	SubtitleStyle  string     `json:"subtitleStyle"`
	BrandID        *string    `json:"brandId"`
	Options        optionsDTO `json:"options"`
	OutputURL      *string    `json:"outputUrl"`
	CaptionsURL    *string    `json:"captionsUrl"`
	CropPathURL    *string    `json:"cropPathUrl"`
	CreditsCharged int64      `json:"creditsCharged"`
	Error          *string    `json:"error"`
	Notes          []string   `json:"notes"`
	Attempts       int        `json:"attempts"`
	CreatedAt      time.Time  `json:"createdAt"`
	UpdatedAt      time.Time  `json:"updatedAt"`
	CompletedAt    *time.Time `json:"completedAt"`
	SecondsRemoved float64    `json:"secondsRemoved"`
	// Exports are the files beside the MP4 for editors ([] until
	// completed).
	Exports []exportDTO `json:"exports"`
	// CaptionTranslation says how the captions were translated: null in
	// the spoken language or until completed.
	CaptionTranslation *translationDTO `json:"captionTranslation"`
}

// translationDTO is how a render's captions were translated.
type translationDTO struct {
	Engine   string `json:"engine"`
	Quality  string `json:"quality"`
	Language string `json:"language"`
}

// exportDTO is a file a completed render stores beside its MP4.
type exportDTO struct {
	Format      string `json:"format"`
	URL         string `json:"url"`
	ContentType string `json:"contentType"`
}

// optionsDTO are a render's options (converted from render.Options); the
// track and the end card are left out when unset.
type optionsDTO struct {
	Music           bool   `json:"music"`
	MusicTrackID    string `json:"musicTrackId,omitempty"`
	Broll           bool   `json:"broll"`
	HookTitle       bool   `json:"hookTitle"`
	ProgressBar     bool   `json:"progressBar"`
	BrandFrame      bool   `json:"brandFrame"`
	EndCardText     string `json:"endCardText,omitempty"`
	KeywordEmphasis bool   `json:"keywordEmphasis"`
	RemoveSilences  bool   `json:"removeSilences"`
	RemoveFillers   bool   `json:"removeFillers"`
	AutoZoom        bool   `json:"autoZoom"`

	// Layout frames the faces (auto, speaker, split, fill).
	Layout render.Layout `json:"layout"`
	// Censor bleeps or mutes the listed words (none, bleep, mute).
	Censor censor.Mode `json:"censor"`
	// CaptionLanguage is the captions' language (ISO 639-1), absent for
	// the spoken language.
	CaptionLanguage string `json:"captionLanguage,omitempty"`
}

// optionsIn is the options object as sent: absent fields stay nil.
type optionsIn struct {
	Music           *bool   `json:"music"`
	MusicTrackID    *string `json:"musicTrackId"`
	Broll           *bool   `json:"broll"`
	HookTitle       *bool   `json:"hookTitle"`
	ProgressBar     *bool   `json:"progressBar"`
	BrandFrame      *bool   `json:"brandFrame"`
	EndCardText     *string `json:"endCardText"`
	KeywordEmphasis *bool   `json:"keywordEmphasis"`
	RemoveSilences  *bool   `json:"removeSilences"`
	RemoveFillers   *bool   `json:"removeFillers"`
	AutoZoom        *bool   `json:"autoZoom"`

	// Layout frames the faces (auto, speaker, split, fill).
	Layout *string `json:"layout"`
	// Censor bleeps or mutes the listed words (none, bleep, mute).
	Censor *string `json:"censor"`
	// CaptionLanguage is the captions' language (ISO 639-1).
	CaptionLanguage *string `json:"captionLanguage"`
}

func (o *optionsIn) domain() *render.OptionsIn {
	if o == nil {
		return nil
	}
	in := render.OptionsIn(*o)
	return &in
}

func (h *api) renderOut(r render.Render) renderDTO {
	out := renderDTO{
		ID: r.ID, ProjectID: r.ProjectID, ClipID: r.ClipID, Status: string(r.Status), Progress: r.Progress, CurrentStep: r.Step,
		Format: string(r.Format), SubtitleStyle: string(r.Style), BrandID: httpx.OrNull(r.BrandID), Options: optionsDTO(r.Options),
		OutputURL: httpx.OrNull(h.svc.URL(r.OutputKey)), CaptionsURL: httpx.OrNull(h.svc.URL(r.CaptionsKey)), CropPathURL: httpx.OrNull(h.svc.URL(r.CropKey)),
		CreditsCharged: r.Charged(), Error: httpx.OrNull(r.Error), Notes: r.Notes, Attempts: r.Attempts,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
		SecondsRemoved: math.Round(r.SecondsRemoved*100) / 100,
	}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	if t := r.CaptionTranslation; t != nil {
		out.CaptionTranslation = &translationDTO{Engine: t.Engine, Quality: t.Quality, Language: t.Language}
	}
	if out.Options.Censor == "" {
		out.Options.Censor = censor.None
	}
	out.Exports = make([]exportDTO, 0, len(r.Exports))
	for _, e := range r.Exports {
		out.Exports = append(out.Exports, exportDTO{Format: string(e.Format), URL: h.svc.URL(e.Key), ContentType: e.Format.ContentType()})
	}
	if r.CompletedAt != nil {
		t := r.CompletedAt.UTC()
		out.CompletedAt = &t
	}
	return out
}

func (h *api) startRenders(w http.ResponseWriter, r *http.Request) error {
	id, err := chix.PathID(r, "projectId")
	if err != nil {
		return err
	}
	var in struct {
		ClipID        *string    `json:"clip_id"`
		ClipIDs       *[]string  `json:"clip_ids"`
		Format        *string    `json:"format"`
		SubtitleStyle *string    `json:"subtitle_style"`
		BrandID       *string    `json:"brand_id"`
		Options       *optionsIn `json:"options"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	p, _ := principal.From(r.Context())
	if p.RequestID == "" {
		p.RequestID = httpx.RequestIDFrom(r.Context())
	}
	b, err := h.svc.StartRenders(r.Context(), p, id, render.CreateInput{
		ClipID: in.ClipID, ClipIDs: in.ClipIDs, Format: in.Format, SubtitleStyle: in.SubtitleStyle, BrandID: in.BrandID, Options: in.Options.domain(),
	})
	if err != nil {
		return err
	}
	type item struct {
		ID             string `json:"id"`
		ClipID         string `json:"clipId"`
		Status         string `json:"status"`
		CreditsCharged int64  `json:"creditsCharged"`
	}
	items := make([]item, len(b.Renders))
	for i, rd := range b.Renders {
		items[i] = item{ID: rd.ID, ClipID: rd.ClipID, Status: string(rd.Status), CreditsCharged: rd.Credits}
	}
	return httpx.Created(w, map[string]any{"renders": items, "creditsCharged": b.Credits})
}

func (h *api) listRenders(w http.ResponseWriter, r *http.Request) error {
	id, err := chix.PathID(r, "projectId")
	if err != nil {
		return err
	}
	p, _ := principal.From(r.Context())
	return httpx.ListPage(w, r, func(ctx context.Context, offset, limit int) ([]render.Render, int, error) {
		return h.svc.ProjectRenders(ctx, p.OrgID, id, offset, limit)
	}, h.renderOut)
}
