// Package service is the clips service's use cases: creating a project
// (answered at once from the video's captions), reading projects, the
// preparation and render jobs a worker runs from the CLIPS_JOBS work queue,
// and the libraries renders draw from. It holds the rules; storage, the
// video site, media tools, speech recognition, the renderer, the fetcher,
// the object store and billing are ports. Each render is its own credit
// saga, wired as pkg/contracts/credits describes: reserved through the Credits port,
// settled by the Renders port in the transaction that ends the render,
// and judged after a crash by ResolveReservation. API holds what the API
// process needs, Worker what a worker needs, Core what both share.
package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"hookline.dev/pkg/contracts/credits"
	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/contracts/tiers"
	"hookline.dev/pkg/media/videosite"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/clock"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/services/clips/internal/ffrender"
	"hookline.dev/services/clips/internal/media"
	"hookline.dev/services/clips/internal/moments"
	"hookline.dev/services/clips/internal/project"
	"hookline.dev/services/clips/internal/transcript"
	"hookline.dev/services/clips/internal/translate"
)

// Source names the service in event envelopes.
const Source = "clips"

// Store is the projects side of the clips database (*postgres.Store).
// Every method may also return a database failure.
type Store interface {
	// Create stores p, the captions fetched for it and its preparation
	// job, in one transaction.
	Create(ctx context.Context, p project.Project, captions []videosite.Segment, job events.Envelope) error
	// Project errors: project.ErrNotFound (also another organization's).
	Project(ctx context.Context, orgID, id string) (project.Project, error)
	// Projects returns a page, newest first, and the total.
	Projects(ctx context.Context, orgID string, offset, limit int) ([]project.Project, int, error)
	// Attempt counts a preparation attempt of a downloading project and
	// returns it with its captions; one no longer downloading comes back
	// as it is, uncounted. Errors: project.ErrNotFound.
	Attempt(ctx context.Context, orgID, id string, now time.Time) (project.Project, []videosite.Segment, error)
	// Progress records the step of a downloading project and how far
	// its preparation is (0 to 100; a lower figure than before is kept
	// at the higher).
	Progress(ctx context.Context, id string, step project.Step, progress int, now time.Time) error
	// RecordError keeps a failed attempt's reason (internal, never shown).
	RecordError(ctx context.Context, id, reason string, now time.Time) error
	// Fail ends a downloading project as failed and, when this call did
	// (ended), writes failed (clips.project.failed.v1) to the outbox in
	// the same transaction.
	Fail(ctx context.Context, id, reason string, failed events.Envelope, now time.Time) (ended bool, err error)
	// Source returns the organization's prepared source, ok false when
	// there is none.
	Source(ctx context.Context, orgID, key string) (src project.Source, ok bool, err error)
	// Ready stores src (unless kept already) and ends the downloading
	// project p as ready, in one transaction with ready
	// (clips.project.ready.v1) in the outbox; ended reports whether this
	// call did (otherwise the event is not written).
	Ready(ctx context.Context, src project.Source, p project.Project, ready events.Envelope, now time.Time) (ended bool, err error)
	// Uncount takes back an attempt of a project or render ("projects" or
	// "renders"); another table is an error.
	Uncount(ctx context.Context, table, id string) error
}

// Credits is billing's side of the render sagas (*credits.Client).
type Credits interface {
	// Reserve holds the credits of every item, all or nothing. Errors: an
	// *apierr.Error (402, 403, 409, 503), or an internal failure.
	Reserve(ctx context.Context, req credits.Request) ([]credits.Reservation, error)
	// Refund fails reservations whose renders were never stored, even
	// after ctx is cancelled. Errors: credits.ErrSettled (one completed
	// already; none is refunded), or a database failure.
	Refund(ctx context.Context, reason string, rs ...credits.Reservation) error
}

// Fetcher fetches the operator's music and b-roll files (the safe fetcher,
// *safefetch.Fetcher).
type Fetcher interface {
	// Stream copies at most maxBytes of rawURL's body to w. Errors wrap
	// safefetch.ErrTooLarge, ErrForbiddenAddress, ErrScheme or
	// ErrInvalidURL when the address is at fault, or carry the network
	// error.
	Stream(ctx context.Context, rawURL string, w io.Writer, maxBytes int64) (contentType string, n int64, err error)
}

// Renderer renders a clip with ffmpeg (*ffrender.Renderer).
type Renderer interface {
	// Render runs j, telling progress of each step. Errors wrap
	// ffrender.ErrFFmpeg when ffmpeg refused the job, or carry ctx's or a
	// file error.
	Render(ctx context.Context, j ffrender.Job, progress ffrender.Progress) (ffrender.Result, error)
}

// Videos reads and downloads videos (*videosite.Client).
type Videos interface {
	Probe(ctx context.Context, src videosite.Source) error
	Metadata(ctx context.Context, src videosite.Source) (videosite.Metadata, error)
	Captions(ctx context.Context, src videosite.Source) (videosite.Captions, error)
	Download(ctx context.Context, src videosite.Source, dst string) error
}

// Media probes and measures local video files (media.Tools).
type Media interface {
	Probe(ctx context.Context, path string) (media.Info, error)
	Analyze(ctx context.Context, path string, info media.Info, progress func(done float64)) (media.Signals, error)
	ExtractWAV(ctx context.Context, src, dst string) error
}

// Transcriber turns speech into timed words (transcribe.Engine).
type Transcriber interface {
	Transcribe(ctx context.Context, wavPath string, progress func(done float64)) ([]videosite.Segment, error)
	Name() string
}

// Blobs stores prepared sources and renders (*s3store.Store).
type Blobs interface {
	Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	KeyFromPublicURL(raw string) (key string, ok bool)
}

// The clips use cases come in two roles, one a process: API answers the
// HTTP API (and, in the API's process, the brands read model and the
// credits recovery pass); Worker runs the CLIPS_JOBS jobs. Core is what
// both hold.

// Core is the ports and settings both roles use: the stores, the brands
// read model and the assets client asked on its misses, the media tools
// (the API probes the operator's music and b-roll), the object store and
// the scratch directory.
type Core struct {
	Store   Store
	Renders Renders
	// Transcripts hold the projects' transcript edits and vocabulary.
	Transcripts Transcripts
	Brands      Brands
	// AssetOwner is asked for the brands the read model has not seen.
	AssetOwner AssetOwner
	Music      Music
	Broll      Broll
	// Censor is the organizations' own words for the profanity filter.
	Censor CensorWords
	// Translators translate the captions (options.captionLanguage), the
	// preferred engine first; none: captions in the spoken language only.
	Translators translate.Translators
	Media       Media
	Blobs       Blobs
	// PublicURL is the public address of a stored object.
	PublicURL func(key string) string
	// WorkDir holds downloads and renders in progress ("" is the
	// system's).
	WorkDir string
	Log     *slog.Logger
	// Now is the clock (tests); nil is time.Now.
	Now func() time.Time
}

// API is the use cases the HTTP API needs: creating and reading
// projects, requesting and reading renders (each its own credit saga,
// reserved here), the music and b-roll libraries, the brands read model
// and the recovery pass's judge.
type API struct {
	Core
	Videos  Videos
	Moments moments.Engine
	// Fetch fetches the operator's music and b-roll files.
	Fetch   Fetcher
	Credits Credits
	// CreateDeadline bounds the fetches of a creation (default 20 s).
	CreateDeadline time.Duration
}

// Worker is the use cases a worker needs: the preparation and render jobs
// of the CLIPS_JOBS work queue.
type Worker struct {
	Core
	Videos      Videos
	Transcriber Transcriber
	Moments     moments.Engine
	Tiers       *tiers.Table
	// Renderer and RenderSettings make the renders.
	Renderer       Renderer
	RenderSettings RenderSettings
	// MaxAttempts bounds the attempts of a job (default 3): the one retry
	// budget (see maxDeliverSlack).
	MaxAttempts int
	// Slots share the worker's preparations between organizations.
	Slots Slots

	steps stepClock
}

// The kinds of attempt a worker runs.
const (
	kindPreparation = "preparation"
	kindRendering   = "rendering"
)

func (s *Core) now() time.Time { return clock.Now(s.Now) }

func (s *Core) log() *slog.Logger {
	if s.Log == nil {
		return slog.Default()
	}
	return s.Log
}

// DefaultVideoTitle names a video that has no title.
const DefaultVideoTitle = "Untitled video"

// Create analyses a video and creates its project, answering at once with
// the clips its captions allow; the preparation job is queued with it.
// Free.
func (s *API) Create(ctx context.Context, p principal.Principal, in project.CreateInput) (project.Project, error) {
	c, err := project.Validate(in)
	if err != nil {
		return project.Project{}, err
	}
	deadline := s.CreateDeadline
	if deadline <= 0 {
		deadline = 20 * time.Second
	}
	fctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	if err := s.Videos.Probe(fctx, c.Source); err != nil {
		return project.Project{}, videoError(err)
	}
	md, err := s.Videos.Metadata(fctx, c.Source)
	if err != nil {
		return project.Project{}, videoError(err)
	}
	key := project.SourceKey(c.Source)
	proj := project.Project{
		ID: newID(), OrgID: p.OrgID, SourceURL: c.Source.URL, SourceKey: key, VideoTitle: md.Title, Format: c.Format,
		Status: project.Downloading, Step: project.StepQueued, Duration: md.Duration, CreatedAt: s.now(), Vocabulary: c.Vocabulary,
	}
	if proj.VideoTitle == "" {
		proj.VideoTitle = DefaultVideoTitle
	}
	in2 := moments.Input{VideoTitle: proj.VideoTitle, Terms: c.Vocabulary, Prompt: c.Prompt}
	var captions []videosite.Segment
	if src, ok, err := s.Store.Source(ctx, p.OrgID, key); err != nil {
		return project.Project{}, err
	} else if ok {
		// Prepared before for this organization: its words and signals.
		in2.Segments, in2.Signals = src.Segments, signals(src.Signals)
		proj.Transcript, proj.Duration = src.TranscriptOrigin, src.Duration
	} else {
		caps, err := s.Videos.Captions(fctx, c.Source)
		switch {
		case err == nil:
			captions = caps.Segments
			in2.Segments, proj.Transcript = captions, project.TranscriptCaptions
		case errors.Is(err, videosite.ErrForbidden):
			return project.Project{}, videoError(err)
		case !errors.Is(err, videosite.ErrNoCaptions):
			// Preparation transcribes what the captions would have said.
			s.log().WarnContext(ctx, "captions unavailable at creation", "source", key, "err", err)
		}
	}
	if len(c.Vocabulary) > 0 {
		// The vocabulary corrects the words the clips are ranked on.
		in2.Segments = transcript.Build(in2.Segments, transcript.Edits{Vocabulary: c.Vocabulary}).Edited()
	}
	res, err := s.Moments.Rank(ctx, in2)
	if err != nil {
		return project.Project{}, fmt.Errorf("ranking moments: %w", err)
	}
	proj.Analysis, proj.Clips = res.Analysis, res.Clips
	if proj.Transcript == "" {
		proj.Clips = []moments.Clip{}
	}
	job, err := events.New(ctx, events.ClipsJobPrepareSource, Source, p.OrgID, events.ClipsPrepareJob{ProjectID: proj.ID, Tier: p.Tier})
	if err != nil {
		return project.Project{}, err
	}
	if err := s.Store.Create(ctx, proj, captions, job); err != nil {
		return project.Project{}, err
	}
	proj.UpdatedAt = proj.CreatedAt
	return proj, nil
}

// signals converts measured signals for the moments engine.
func signals(m moments.Signals) *moments.Signals {
	if m.Step <= 0 {
		return nil
	}
	return &m
}

// Project returns the organization's project.
func (s *API) Project(ctx context.Context, orgID, id string) (project.Project, error) {
	return s.Store.Project(ctx, orgID, id)
}

// Projects returns a page of the organization's projects, newest first.
func (s *API) Projects(ctx context.Context, orgID string, offset, limit int) ([]project.Project, int, error) {
	return s.Store.Projects(ctx, orgID, offset, limit)
}

// videoError maps a video failure at creation onto the API's errors.
func videoError(err error) error {
	const field = "video_site_url"
	switch {
	case errors.Is(err, videosite.ErrForbidden):
		return apierr.Field(field, "this address may not be fetched")
	case errors.Is(err, videosite.ErrInvalidURL):
		return apierr.Field(field, "not a reachable video: "+reason(err))
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, videosite.ErrUnavailable):
		return apierr.Wrap(apierr.Unavailable, "the video could not be read; try again", err).With("source", "videoSite")
	}
	return fmt.Errorf("reading the video: %w", err)
}

// reason is the part of a videosite error a user can read: what follows
// its sentinel's text.
func reason(err error) string {
	msg, prefix := err.Error(), videosite.ErrInvalidURL.Error()+": "
	if len(msg) > len(prefix) && msg[:len(prefix)] == prefix {
		return msg[len(prefix):]
	}
	return "the address did not answer with a video"
}
