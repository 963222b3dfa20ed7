// Package httpapi is the clips service's HTTP edge: the project endpoints
// behind the principal check, their DTOs, and the one function mapping
// domain errors to the envelope.
package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/chix"
	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/services/clips/internal/moments"
	"hookline.dev/services/clips/internal/project"
	"hookline.dev/services/clips/internal/render"
	"hookline.dev/services/clips/internal/service"
	"hookline.dev/services/clips/internal/transcript"
)

// Handler serves the clips API; ready answers /readyz. With svc nil it
// serves only the probes (a worker).
// parts, when given, are reported by /readyz (a provider model missing).
func Handler(svc *service.API, secret []byte, ready func(context.Context) error, log *slog.Logger, parts ...httpx.Component) http.Handler {
	h := &api{svc: svc}
	a := httpx.Adapter{Log: log, MapError: MapError}
	return chix.ServiceRouter(a, ready, secret, func(r chi.Router) {
		if svc == nil {
			return
		}
		r.Get("/clips/projects", a.Wrap(h.list))
		r.Post("/clips/projects", a.Wrap(h.create))
		r.Get("/clips/projects/{projectId}", a.Wrap(chix.GetOne("projectId", h.svc.Project, projectOut)))
		r.Get("/clips/projects/{projectId}/transcript", a.Wrap(h.getTranscript))
		r.Patch("/clips/projects/{projectId}/transcript", a.Wrap(h.editTranscript))
		r.Get("/clips/projects/{projectId}/renders", a.Wrap(h.listRenders))
		r.Post("/clips/projects/{projectId}/renders", a.Wrap(h.startRenders))
		r.Get("/clips/renders/{renderId}", a.Wrap(chix.GetOne("renderId", h.svc.Render, h.renderOut)))
		r.Get("/clips/censor-words", a.Wrap(h.getCensorWords))
		r.Put("/clips/censor-words", a.Wrap(h.putCensorWords))
		// The operator's music library, through the gateway's admin API.
		r.Post("/admin/v1/music-tracks", a.Wrap(h.addTrack))
		r.Get("/admin/v1/music-tracks", a.Wrap(h.listTracks))
		r.Post("/admin/v1/broll", a.Wrap(h.addFootage))
		r.Get("/admin/v1/broll", a.Wrap(h.listFootage))
	}, parts...)
}

type api struct{ svc *service.API }

// MapError translates domain errors into API errors.
func MapError(err error) error {
	switch {
	case errors.Is(err, project.ErrNotFound):
		return apierr.New(apierr.NotFound, "clip project not found")
	case errors.Is(err, render.ErrNotFound):
		return apierr.New(apierr.NotFound, "render not found")
	case errors.Is(err, transcript.ErrStale):
		return apierr.New(apierr.PreconditionFailed, "the transcript changed since that version: GET it again and apply your edits to the new ETag")
	case errors.Is(err, render.ErrNoBrand):
		return apierr.New(apierr.NotFound, "brand not found").With("field", "brand_id")
	}
	return pgkit.MapUnavailable(err)
}

// projectDTO is a project as every endpoint returns it: all fields always
// present, null when unset.
type projectDTO struct {
	ID              string      `json:"id"`
	VideoTitle      string      `json:"videoTitle"`
	VideoSiteURL    string      `json:"videoSiteUrl"`
	DownloadStatus  string      `json:"downloadStatus"`
	DownloadError   *string     `json:"downloadError"`
	PreparationStep string      `json:"preparationStep"`
	Progress        int         `json:"preparationProgress"`
	Format          string      `json:"format"`
	Duration        *float64    `json:"duration"`
	Transcript      *string     `json:"transcriptSource"`
	Analysis        analysisDTO `json:"analysis"`
	Clips           []clipDTO   `json:"clips"`
	CreatedAt       time.Time   `json:"createdAt"`
	UpdatedAt       time.Time   `json:"updatedAt"`
	ReadyAt         *time.Time  `json:"readyAt"`
}

// clipDTO is a clip suggestion of the spec, with the measured features
// that explain its score.
type clipDTO struct {
	ID           string          `json:"id"`
	Title        string          `json:"title"`
	StartTime    float64         `json:"startTime"`
	EndTime      float64         `json:"endTime"`
	Duration     float64         `json:"duration"`
	Hook         string          `json:"hook"`
	Category     string          `json:"category"`
	ViralScore   int             `json:"viralScore"`
	HookStrength string          `json:"hookStrength"`
	PlatformFit  []string        `json:"platformFit"`
	Mood         string          `json:"mood"`
	Keywords     []string        `json:"keywords"`
	Features     featuresDTO     `json:"features"`
	Scores       *scoresDTO[int] `json:"scores"`
	Reasons      []string        `json:"reasons"`
	Match        *matchDTO       `json:"match"`
}

// scoresDTO are a clip's sub-scores (int, 0..100) or their weights
// (float64), which add up to viralScore.
type scoresDTO[T int | float64] struct {
	Hook  T `json:"hook"`
	Flow  T `json:"flow"`
	Value T `json:"value"`
	Trend T `json:"trend"`
}

// matchDTO is how a clip matches the project's prompt.
type matchDTO struct {
	Matched bool     `json:"matched"`
	Terms   []string `json:"terms"`
	Quote   *string  `json:"quote"`
}

// analysisDTO describes the whole video (analysisOut). featuresDTO
// converts from its domain type, so a field added there fails to compile
// here until the API decides on it.
type analysisDTO struct {
	ContentType       string              `json:"contentType"`
	SuggestedFormat   string              `json:"suggestedFormat"`
	SuggestedStyle    string              `json:"suggestedStyle"`
	TranscriptQuality string              `json:"transcriptQuality"`
	Engine            string              `json:"engine"`
	ScoreWeights      *scoresDTO[float64] `json:"scoreWeights"`
	Prompt            *string             `json:"prompt"`
}

// analysisOut answers null weights for a project ranked before sub-scores.
func analysisOut(a moments.Analysis) analysisDTO {
	out := analysisDTO{ContentType: a.ContentType, SuggestedFormat: a.SuggestedFormat, SuggestedStyle: a.SuggestedStyle,
		TranscriptQuality: a.TranscriptQuality, Engine: a.Engine, Prompt: httpx.OrNull(a.Prompt)}
	if w := a.ScoreWeights; w != (moments.ScoreWeights{}) {
		out.ScoreWeights = &scoresDTO[float64]{Hook: w.Hook, Flow: w.Flow, Value: w.Value, Trend: w.Trend}
	}
	return out
}

// featuresDTO are the measured features behind a clip's score.
type featuresDTO struct {
	Hook          float64 `json:"hook"`
	SelfContained float64 `json:"selfContained"`
	Salience      float64 `json:"salience"`
	Emotion       float64 `json:"emotion"`
	Pace          float64 `json:"pace"`
	Length        float64 `json:"length"`
	Energy        float64 `json:"energy"`
	Peaks         float64 `json:"peaks"`
	Scenes        float64 `json:"scenes"`
}

func projectOut(p project.Project) projectDTO {
	out := projectDTO{
		ID: p.ID, VideoTitle: p.VideoTitle, VideoSiteURL: p.SourceURL, DownloadStatus: string(p.Status), DownloadError: httpx.OrNull(p.DownloadError),
		PreparationStep: string(p.Step), Progress: p.Progress, Format: string(p.Format), Transcript: httpx.OrNull(p.Transcript), Analysis: analysisOut(p.Analysis),
		Clips: make([]clipDTO, len(p.Clips)), CreatedAt: p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC(),
	}
	if p.Duration > 0 {
		out.Duration = &p.Duration
	}
	if p.ReadyAt != nil {
		t := p.ReadyAt.UTC()
		out.ReadyAt = &t
	}
	for i, c := range p.Clips {
		out.Clips[i] = clipOut(c, out.Analysis.ScoreWeights != nil)
	}
	return out
}

// clipOut keeps nil slices nil: a clip without platforms or keywords has
// always answered null for them. A clip ranked before sub-scores were
// kept (scored false) answers null scores.
func clipOut(c moments.Clip, scored bool) clipDTO {
	out := clipDTO{ID: c.ID, Title: c.Title, StartTime: c.Start, EndTime: c.End, Duration: c.End - c.Start, Hook: c.Hook,
		Category: c.Category, ViralScore: c.ViralScore, HookStrength: c.HookStrength, PlatformFit: c.PlatformFit, Mood: c.Mood,
		Keywords: c.Keywords, Features: featuresDTO(c.Features), Reasons: c.Reasons}
	if scored {
		out.Scores = &scoresDTO[int]{Hook: c.Scores.Hook, Flow: c.Scores.Flow, Value: c.Scores.Value, Trend: c.Scores.Trend}
	}
	if out.Reasons == nil {
		out.Reasons = []string{}
	}
	if m := c.Match; m != nil {
		out.Match = &matchDTO{Matched: m.Matched, Terms: m.Terms, Quote: httpx.OrNull(m.Quote)}
		if out.Match.Terms == nil {
			out.Match.Terms = []string{}
		}
	}
	return out
}

func (h *api) create(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		VideoSiteURL *string   `json:"video_site_url"`
		Format       *string   `json:"format"`
		Vocabulary   *[]string `json:"vocabulary"`
		Prompt       *string   `json:"prompt"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	p, _ := principal.From(r.Context())
	proj, err := h.svc.Create(r.Context(), p, project.CreateInput{VideoSiteURL: in.VideoSiteURL, Format: in.Format, Vocabulary: in.Vocabulary, Prompt: in.Prompt})
	if err != nil {
		return err
	}
	return httpx.Created(w, projectOut(proj))
}

func (h *api) list(w http.ResponseWriter, r *http.Request) error {
	p, _ := principal.From(r.Context())
	return httpx.ListPage(w, r, func(ctx context.Context, offset, limit int) ([]project.Project, int, error) {
		return h.svc.Projects(ctx, p.OrgID, offset, limit)
	}, projectOut)
}
