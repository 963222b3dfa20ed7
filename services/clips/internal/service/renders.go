package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"hookline.dev/pkg/contracts/credits"
	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/pkg/platform/s3store"
	"hookline.dev/services/clips/internal/captions"
	"hookline.dev/services/clips/internal/censor"
	"hookline.dev/services/clips/internal/ffrender"
	"hookline.dev/services/clips/internal/moments"
	"hookline.dev/services/clips/internal/project"
	"hookline.dev/services/clips/internal/render"
	"hookline.dev/services/clips/internal/transcript"
	"hookline.dev/services/clips/internal/translate"
)

// Renders is the render side of the store (*postgres.Store); it settles a
// render's reservation in the transaction that ends the render. Every
// method may also return a database failure.
type Renders interface {
	// CreateRenders stores renders and their jobs in one transaction.
	CreateRenders(ctx context.Context, rs []render.Render, jobs []events.Envelope) error
	// Render errors: render.ErrNotFound (also another organization's).
	Render(ctx context.Context, orgID, id string) (render.Render, error)
	// Renders returns a page of a project's renders, newest first, and
	// the total.
	Renders(ctx context.Context, orgID, projectID string, offset, limit int) ([]render.Render, int, error)
	// RenderByReservation errors: render.ErrNotFound (never stored).
	RenderByReservation(ctx context.Context, reservationID string) (render.Render, error)
	// AttemptRender counts an attempt of a pending or rendering render
	// and marks it rendering; one that ended comes back as it is. Errors:
	// render.ErrNotFound.
	AttemptRender(ctx context.Context, orgID, id string, now time.Time) (render.Render, error)
	// RenderProgress records the step and progress of a running render.
	RenderProgress(ctx context.Context, id, step string, progress int, now time.Time) error
	// CompleteRender ends r as completed with its objects and completes
	// res with completed, in one transaction; a render already ended is
	// left alone. Errors: credits.ErrSettled (res was failed meanwhile;
	// nothing stored).
	CompleteRender(ctx context.Context, r render.Render, res credits.Reservation, completed events.Envelope, now time.Time) error
	// FailRender ends r as failed with reason and refunds res, in one
	// transaction; a render already ended is left alone. Errors:
	// credits.ErrSettled (res completed already).
	FailRender(ctx context.Context, r render.Render, res credits.Reservation, reason string, now time.Time) error
}

// RenderSettings are the renders' output settings.
type RenderSettings struct {
	// Height is the long side: 1920 (1080×1920 / 1920×1080) or 1280 (720p).
	Height int
	// HookSeconds and EndCardSeconds are the hook title's and end card's
	// lengths.
	HookSeconds, EndCardSeconds float64
}

// Batch is the answer to a render request.
type Batch struct {
	Renders []render.Render
	Credits int64
}

// StartRenders reserves 2 credits per clip and queues one render each.
// The request is all or nothing: a refused reservation releases the
// others and queues nothing.
func (s *API) StartRenders(ctx context.Context, p principal.Principal, projectID string, in render.CreateInput) (Batch, error) {
	proj, err := s.Store.Project(ctx, p.OrgID, projectID)
	if err != nil {
		return Batch{}, err
	}
	if proj.Status != project.Ready {
		return Batch{}, apierr.New(apierr.SourceNotReady, "the project's source video is not ready; poll the project until downloadStatus is ready").
			With("downloadStatus", string(proj.Status))
	}
	c, err := render.Validate(in, proj)
	if err != nil {
		return Batch{}, err
	}
	if l := c.Options.CaptionLanguage; l != "" && l != translate.Spoken && len(s.Translators.Engines(translate.Spoken, l)) == 0 {
		sup := s.Translators.Supported(translate.Spoken)
		return Batch{}, apierr.Field("options.captionLanguage",
			fmt.Sprintf("captions cannot be translated from %s into %s here; supported: %s", translate.Spoken, l, strings.Join(sup, ", "))).
			With("supported", sup)
	}
	if c.BrandID != "" {
		if _, err := s.brand(ctx, p.OrgID, c.BrandID); err != nil {
			return Batch{}, err
		}
	}
	if id := c.Options.MusicTrackID; id != "" {
		if _, err := s.Music.Track(ctx, id); errors.Is(err, render.ErrNoTrack) {
			return Batch{}, apierr.Field("options.musicTrackId", "no such music track")
		} else if err != nil {
			return Batch{}, err
		}
	}
	now := s.now()
	rs := make([]render.Render, len(c.ClipIDs))
	items := make([]credits.Item, len(c.ClipIDs))
	for i, id := range c.ClipIDs {
		rs[i] = render.Render{
			ID: newID(), OrgID: p.OrgID, ProjectID: proj.ID, ClipID: id, Format: c.Format, Style: c.Style, BrandID: c.BrandID,
			Options: c.Options, Status: render.Pending, Step: render.StepQueued, Credits: render.CreditsPerClip, CreatedAt: now, UpdatedAt: now,
		}
		items[i] = credits.Item{Credits: render.CreditsPerClip, ResourceType: render.ResourceType, ResourceID: rs[i].ID}
	}
	reservations, err := s.Credits.Reserve(ctx, credits.Request{OrgID: p.OrgID, Operation: render.Operation, Key: credits.KeyOf(p), Items: items})
	if err != nil {
		return Batch{}, err
	}
	jobs := make([]events.Envelope, len(rs))
	for i := range rs {
		rs[i].ReservationID = reservations[i].ID
		if jobs[i], err = events.New(ctx, events.ClipsJobRender, Source, p.OrgID, events.ClipsRenderJob{RenderID: rs[i].ID}); err != nil {
			return Batch{}, err
		}
	}
	if err := s.Renders.CreateRenders(ctx, rs, jobs); err != nil {
		// Nothing is queued: refund now (the recovery pass would, later).
		if ferr := s.Credits.Refund(ctx, "the renders could not be stored", reservations...); ferr != nil {
			s.log().ErrorContext(ctx, "refunding unstored renders", "err", ferr)
		}
		return Batch{}, err
	}
	return Batch{Renders: rs, Credits: int64(len(rs)) * render.CreditsPerClip}, nil
}

// Render returns the organization's render.
func (s *API) Render(ctx context.Context, orgID, id string) (render.Render, error) {
	return s.Renders.Render(ctx, orgID, id)
}

// ProjectRenders returns a page of a project's renders; another
// organization's project is not found.
func (s *API) ProjectRenders(ctx context.Context, orgID, projectID string, offset, limit int) ([]render.Render, int, error) {
	if _, err := s.Store.Project(ctx, orgID, projectID); err != nil {
		return nil, 0, err
	}
	return s.Renders.Renders(ctx, orgID, projectID, offset, limit)
}

// reservation is the journal's view of r's reservation.
func reservation(r render.Render) credits.Reservation {
	return credits.Reservation{ID: r.ReservationID, OrgID: r.OrgID, Operation: render.Operation, Credits: r.Credits,
		ResourceType: render.ResourceType, ResourceID: r.ID}
}

// HandleRender runs one delivery of a render job.
func (s *Worker) HandleRender(ctx context.Context, e events.Envelope) error {
	var job events.ClipsRenderJob
	if err := json.Unmarshal(e.Data, &job); err != nil || job.RenderID == "" {
		return events.Invalid(fmt.Errorf("render job %s: bad payload: %w", e.ID, err))
	}
	r, err := s.Renders.AttemptRender(ctx, e.OrgID, job.RenderID, s.now())
	if errors.Is(err, render.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if r.Status != render.Rendering {
		return nil // ended by an earlier delivery
	}
	return s.runAttempt(ctx, attempt{
		kind: kindRendering, table: "renders", id: r.ID, count: r.Attempts,
		work: func() error { return s.renderAndSettle(ctx, r) },
		end: func(reason string) error {
			return s.Renders.FailRender(ctx, r, reservation(r), reason, s.now())
		},
	})
}

// renderAndSettle renders r and completes it with its reservation.
func (s *Worker) renderAndSettle(ctx context.Context, r render.Render) error {
	if err := s.render(ctx, &r); err != nil {
		return err
	}
	completed, err := events.New(ctx, events.ClipsRenderCompleted, Source, r.OrgID, events.RenderCompleted{
		ReservationID: r.ReservationID, RenderID: r.ID, ProjectID: r.ProjectID, ClipID: r.ClipID, OutputURL: s.URL(r.OutputKey)})
	if err != nil {
		return err
	}
	err = s.Renders.CompleteRender(ctx, r, reservation(r), completed, s.now())
	if errors.Is(err, credits.ErrSettled) {
		// The reservation was failed meanwhile (refunded): the render is
		// not delivered as paid.
		return fail("the render's reservation expired before it finished")
	}
	return err
}

// render makes r's MP4, captions and crop path and stores them.
func (s *Worker) render(ctx context.Context, r *render.Render) error {
	proj, err := s.Store.Project(ctx, r.OrgID, r.ProjectID)
	if err != nil {
		return err
	}
	var clip moments.Clip
	for _, c := range proj.Clips {
		if c.ID == r.ClipID {
			clip = c
		}
	}
	if clip.ID == "" {
		return fail("the clip is no longer part of the project")
	}
	src, ok, err := s.Store.Source(ctx, r.OrgID, proj.SourceKey)
	if err != nil {
		return err
	}
	if !ok {
		return fail("the project's source is missing")
	}
	file, err := s.sourceFile(ctx, src.MediaKey)
	if err != nil {
		return err
	}
	info, err := s.Media.Probe(ctx, file)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp(s.WorkDir, "clips-render-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()

	set := s.RenderSettings
	w, h := set.Height*9/16, set.Height
	if r.Format == project.Landscape {
		w, h = h, w
	}
	// The words as the creator left them: corrected, and the deleted ones
	// cut from the picture and the sound.
	edits, err := s.Transcripts.TranscriptEdits(ctx, r.OrgID, r.ProjectID)
	if err != nil {
		return err
	}
	kept, deleted := transcript.Build(src.Segments, edits).Clip(clip.Start, clip.End)
	text := captions.Spec{Style: r.Style, Words: clipWords(kept, clip.Start, clip.End), Keywords: clip.Keywords,
		Emphasis: r.Options.KeywordEmphasis, EndCard: r.Options.EndCardText}
	if r.Options.HookTitle {
		text.Hook, text.HookSeconds = clip.Hook, set.HookSeconds
	}
	if r.Options.Broll {
		skip := 2.0
		if r.Options.HookTitle {
			skip = set.HookSeconds
		}
		text.Cutaways = captions.Cutaways(text.Words, clip.Keywords, skip, cutawaySeconds, clip.End-clip.Start, maxCutaways)
	}
	cutaways := len(text.Cutaways)
	var footage []ffrender.Footage
	if text.Cutaways, footage, err = s.footageFor(ctx, text.Cutaways); err != nil {
		return err
	}
	var censored []ffrender.Span
	if r.Options.Censor != censor.None && r.Options.Censor != "" {
		if censored, err = s.censored(ctx, r.OrgID, &text); err != nil {
			return err
		}
	}
	var frame, logo string
	if r.BrandID != "" {
		b, err := s.Brands.Brand(ctx, r.OrgID, r.BrandID)
		switch {
		case errors.Is(err, render.ErrNoBrand):
			// Deleted since the request: the render goes on without it.
		case err != nil:
			return err
		default:
			if r.Options.BrandFrame {
				frame = b.FrameColor()
			}
			if logo, err = s.brandLogo(ctx, b, dir); err != nil {
				return err
			}
		}
	}
	var music string
	if r.Options.Music || r.Options.MusicTrackID != "" {
		if music, err = s.musicFor(ctx, *r, clip.Mood, clip.ID); err != nil {
			return err
		}
	}
	r.Notes = notes(*r, cutaways, len(footage), frame != "", music != "")
	if r.Options.AutoZoom && (h < w || info.Height > info.Width) {
		r.Notes = append(r.Notes, "autoZoom: punch-ins follow the tracked face, which only a portrait render of a landscape source has; rendered without")
	}
	var spoken []captions.Word
	if err := s.translate(ctx, r, &text, &spoken); err != nil {
		return err
	}
	job := ffrender.Job{Source: file, SrcW: info.Width, SrcH: info.Height, HasAudio: info.HasAudio, Start: clip.Start, End: clip.End,
		Width: w, Height: h, Scenes: src.Signals.Scenes, Text: text, ProgressBar: r.Options.ProgressBar,
		EndCardSeconds: set.EndCardSeconds, Dir: dir, Frame: frame, Logo: logo, Music: music, Footage: footage,
		RemoveSilences: r.Options.RemoveSilences, RemoveFillers: r.Options.RemoveFillers, AutoZoom: r.Options.AutoZoom,
		Cuts: clipSpans(deleted, clip.Start), Spoken: spoken}
	job.Layout = r.Options.Layout
	job.Censor, job.Censored = r.Options.Censor, censored
	job.Samples = src.Faces
	var lastWrite time.Time
	res, err := s.Renderer.Render(ctx, job, func(step string, done float64) {
		s.steps.enter(kindRendering, r.ID, step)
		if time.Since(lastWrite) < 500*time.Millisecond && step == ffrender.StepEncoding {
			return
		}
		lastWrite = time.Now()
		if err := s.Renders.RenderProgress(ctx, r.ID, step, int(done*100), s.now()); err != nil {
			s.log().WarnContext(ctx, "render progress", "render", r.ID, "err", err)
		}
	})
	if errors.Is(err, ffrender.ErrFFmpeg) {
		return fail("rendering failed: ffmpeg could not encode the clip")
	}
	if err != nil {
		return err
	}
	s.steps.enter(kindRendering, r.ID, render.StepUploading)
	r.SecondsRemoved = res.SecondsRemoved
	r.Notes = append(r.Notes, res.Notes...)
	if err := s.Renders.RenderProgress(ctx, r.ID, render.StepUploading, 96, s.now()); err != nil {
		return err
	}
	base := s3store.OrgPrefix(r.OrgID) + "clips/renders/" + r.ID // public: orgs/<org>/...
	r.OutputKey, r.CaptionsKey, r.CropKey = base+".mp4", base+"."+string(render.ExportSRT), ""
	if err := s.putFile(ctx, res.Output, r.OutputKey, "video/mp4"); err != nil {
		return err
	}
	cut := exportCut(clip.Title, info, w, h, clip.Start, clip.End, res)
	if err := s.storeExports(ctx, r, base, res, cut); err != nil {
		return err
	}
	if len(res.Crop) > 0 {
		b, err := ffrender.EncodeCropPath(info.Width, info.Height, clip.Start, res.Crop)
		if err != nil {
			return err
		}
		r.CropKey = base + ".crop.json"
		if err := s.Blobs.Put(ctx, r.CropKey, strings.NewReader(string(b)), int64(len(b)), "application/json"); err != nil {
			return err
		}
	}
	return nil
}

// translate puts the captions and the hook into the render's caption
// language, after the censor masked the words (a masked word stays
// masked: no engine knows it) and the cutaways were placed on the spoken
// words; spoken gets the words as spoken, which the jump cuts are
// planned from. A preferred engine that failed is said in the notes.
func (s *Worker) translate(ctx context.Context, r *render.Render, text *captions.Spec, spoken *[]captions.Word) error {
	l := r.Options.CaptionLanguage
	if l == "" || l == translate.Spoken {
		return nil
	}
	res, err := s.Translators.Captions(ctx, translate.Spoken, l, text.Words, text.Hook)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		s.log().WarnContext(ctx, "translating captions", "render", r.ID, "err", err)
		return fail("the captions could not be translated into %s", l)
	}
	*spoken = text.Words
	text.Words, text.Hook = res.Words, res.Hook
	r.CaptionTranslation = &res.Translation
	if res.Fallback != "" {
		r.Notes = append(r.Notes, fmt.Sprintf("captionLanguage: translated by %s (%s quality): the preferred engine failed", res.Engine, res.Quality))
	}
	return nil
}

// B-roll without a library: generated keyword cards.
const (
	cutawaySeconds = 1.4
	maxCutaways    = 3
)

// notes say which requested options this render could not honour, or
// honoured otherwise than asked.
func notes(r render.Render, cutaways, footage int, framed, music bool) []string {
	n := []string{}
	if (r.Options.Music || r.Options.MusicTrackID != "") && !music {
		n = append(n, "music: the music library has no track (or the track was removed); rendered without music")
	}
	switch {
	case r.Options.Broll && cutaways > footage:
		n = append(n, fmt.Sprintf("broll: %d of %d keyword cutaways had no footage in the b-roll library; generated kinetic typography for those", cutaways-footage, cutaways))
	case r.Options.Broll && cutaways == 0:
		n = append(n, "broll: no keyword is spoken where a cutaway fits; rendered without")
	}
	if r.Options.BrandFrame && !framed {
		n = append(n, "brandFrame: the brand has no colour in #rrggbb form, or was deleted; rendered without the frame")
	}
	return n
}

// clipWords are the transcript's words of a clip in seconds from its
// start, ending by its end.
func clipWords(ws []transcript.Word, start, end float64) []captions.Word {
	out := make([]captions.Word, len(ws))
	for i, w := range ws {
		out[i] = captions.Word{Start: w.Start - start, End: min(w.End, end) - start, Text: w.Text}
	}
	return out
}

// clipSpans are spans of the source in seconds from start.
func clipSpans(spans []transcript.Span, start float64) []ffrender.Span {
	out := make([]ffrender.Span, len(spans))
	for i, sp := range spans {
		out[i] = ffrender.Span{From: sp.From - start, To: sp.To - start}
	}
	return out
}

// sourceFile is a local copy of the stored source, kept between renders
// of the same source on this worker.
func (s *Worker) sourceFile(ctx context.Context, key string) (string, error) {
	return s.cached(ctx, key, ".mp4")
}

// cached is a local copy of a stored object, kept on this worker.
func (s *Worker) cached(ctx context.Context, key, ext string) (string, error) {
	sum := sha256.Sum256([]byte(key))
	dir := filepath.Join(s.workDir(), "hookline-sources")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, hex.EncodeToString(sum[:12])+ext)
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	rc, err := s.Blobs.Get(ctx, key)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", key, err)
	}
	defer func() { _ = rc.Close() }()
	tmp, err := os.CreateTemp(dir, "download-*")
	if err != nil {
		return "", err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	_, err = io.Copy(tmp, rc)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	return path, os.Rename(tmp.Name(), path)
}

func (s *Core) workDir() string {
	if s.WorkDir != "" {
		return s.WorkDir
	}
	return os.TempDir()
}

func (s *Core) putFile(ctx context.Context, file, key, contentType string) error {
	f, err := os.Open(file) //nolint:gosec // G304: a path the service chose
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	return s.Blobs.Put(ctx, key, f, st.Size(), contentType)
}

// ResolveReservation is the recovery pass's judge (credits.Resolver) of a
// render reservation left open: none stored (the API died between reserve
// and queueing) is failed; a completed one is completed; a running one is
// left to its worker.
func (s *API) ResolveReservation(ctx context.Context, res credits.Reservation) (credits.Resolution, error) {
	r, err := s.Renders.RenderByReservation(ctx, res.ID)
	switch {
	case errors.Is(err, render.ErrNotFound):
		return credits.Resolution{Verdict: credits.Failed, Reason: "the render was never queued"}, nil
	case err != nil:
		return credits.Resolution{}, err
	}
	switch r.Status {
	case render.Completed:
		env, err := events.New(ctx, events.ClipsRenderCompleted, Source, r.OrgID, events.RenderCompleted{
			ReservationID: r.ReservationID, RenderID: r.ID, ProjectID: r.ProjectID, ClipID: r.ClipID, OutputURL: s.URL(r.OutputKey)})
		return credits.Resolution{Verdict: credits.Completed, Event: env}, err
	case render.Failed:
		return credits.Resolution{Verdict: credits.Failed, Reason: r.Error}, nil
	}
	return credits.Resolution{Verdict: credits.Running}, nil
}

// FailedPayload is the clips.render.failed.v1 data of a reservation.
func FailedPayload(r credits.Reservation, reason string) any {
	return events.RenderFailed{ReservationID: r.ID, RenderID: r.ResourceID, Reason: reason, Credits: r.Credits}
}

// URL is the public address of a stored object ("" for none).
func (s *Core) URL(key string) string {
	if key == "" || s.PublicURL == nil {
		return ""
	}
	return s.PublicURL(key)
}
