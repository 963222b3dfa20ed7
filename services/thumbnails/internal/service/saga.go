package service

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/credits"
	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/pkg/platform/s3store"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// Operations, as billing's usage history names them.
const (
	OpGenerate   = "thumbnails.generate"
	OpVariations = "thumbnails.variations"
	OpRemix      = "thumbnails.remix"
)

// itemConcurrency bounds the engine calls one variations request runs at
// once: the machine's cores are shared with every other request.
const itemConcurrency = 2

// Namespaces of the derived ids; changing them would re-key every retry.
var (
	thumbnailNS = uuid.MustParse("8b1f0f2e-6a43-4f43-9d57-3f0f6c1b52a1")
	completedNS = uuid.MustParse("0c7d6b55-2f0e-4e1a-b8a8-6d1f1c7f8e20")
	createdNS   = uuid.MustParse("5a0f4c8e-93a4-4f0b-8a61-2d0c3e9b7f14")
)

// ResultID is the id of item i of a paid request (a thumbnail, or a
// critique): a UUIDv5 of the request's first reservation id for that item
// (credits.ReservationID, generation 0), so a retried request (same
// Idempotency-Key) names the same result, which is then returned instead
// of made and paid again.
func ResultID(orgID, operation, key string, item int) string {
	return uuid.NewSHA1(thumbnailNS, []byte(credits.ReservationID(orgID, operation, key, item, 0))).String()
}

// seedOf is the engine seed of a thumbnail: the first 8 bytes of its id,
// so the same id always draws the same picture.
func seedOf(id string) uint64 {
	u := uuid.MustParse(id)
	return binary.BigEndian.Uint64(u[:8])
}

// job is one thumbnail of a paid request: the row it will be (id, kind,
// prompt and references set) and what the engine is asked.
type job struct {
	t    thumbnail.Thumbnail
	req  engine.Request
	vary bool
	// render, when set, draws the picture instead of the engine (the
	// edits); t.Engine then names what drew it.
	render func(context.Context) (engine.Result, error)
}

// paid is a paid request about to run: its jobs, with ids derived from
// the request key.
type paid struct {
	op   string
	key  string
	org  string
	jobs []job
}

// newPaid derives the ids of n thumbnails of a request by p; the caller
// fills each job's row and request.
func newPaid(p principal.Principal, op string, n int) *paid {
	pd := &paid{op: op, key: credits.KeyOf(p), org: p.OrgID, jobs: make([]job, n)}
	for i := range pd.jobs {
		id := ResultID(p.OrgID, op, pd.key, i)
		pd.jobs[i] = job{t: thumbnail.Thumbnail{ID: id, OrgID: p.OrgID, Seed: seedOf(id), FaceIDs: []string{}}}
		pd.jobs[i].req.Seed = pd.jobs[i].t.Seed
	}
	return pd
}

// replay returns the thumbnails an earlier run of the same request
// already made, in item order; none means the request runs.
func (s *Service) replay(ctx context.Context, pd *paid) ([]thumbnail.Thumbnail, error) {
	ids := make([]string, len(pd.jobs))
	for i, j := range pd.jobs {
		ids[i] = j.t.ID
	}
	found, err := s.Store.ThumbnailsByID(ctx, pd.org, ids)
	if err != nil || len(found) == 0 {
		return nil, err
	}
	byID := make(map[string]thumbnail.Thumbnail, len(found))
	for _, t := range found {
		byID[t.ID] = t
	}
	var out []thumbnail.Thumbnail
	for _, id := range ids {
		if t, ok := byID[id]; ok {
			out = append(out, t)
		}
	}
	return out, nil
}

// run reserves one credit per job, all or nothing, then draws and stores
// every job, itemConcurrency at a time. Each job settles its own
// reservation: completed with its thumbnail, or failed (refunded). It
// returns the thumbnails made, in job order; when none was made, the
// error of the first job.
func (s *Service) run(ctx context.Context, pd *paid) ([]thumbnail.Thumbnail, error) {
	items := make([]credits.Item, len(pd.jobs))
	for i, j := range pd.jobs {
		items[i] = credits.Item{Credits: 1, ResourceType: "thumbnail", ResourceID: j.t.ID}
	}
	rs, err := s.Credits.Reserve(ctx, credits.Request{OrgID: pd.org, Operation: pd.op, Key: pd.key, Items: items})
	if err != nil {
		return nil, err
	}
	made := make([]thumbnail.Thumbnail, len(rs))
	errs := make([]error, len(rs))
	sem := make(chan struct{}, itemConcurrency)
	var wg sync.WaitGroup
	for i, r := range rs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			made[i], errs[i] = s.draw(ctx, pd.jobs[i], r)
		})
	}
	wg.Wait()
	var out []thumbnail.Thumbnail
	for i, err := range errs {
		if err == nil {
			out = append(out, made[i])
		}
	}
	if len(out) == 0 {
		return nil, errs[0]
	}
	return out, nil
}

// draw runs one job under reservation r: engine (or the job's own
// render) within the work deadline, then keep. Any failure refunds r and
// removes what was written.
func (s *Service) draw(ctx context.Context, j job, r credits.Reservation) (thumbnail.Thumbnail, error) {
	t := j.t
	t.ReservationID = r.ID
	render := j.render
	if render == nil {
		t.Engine = s.Engine.Name()
		draw := s.Engine.Generate
		if j.vary {
			draw = s.Engine.Vary
		}
		render = func(ctx context.Context) (engine.Result, error) { return draw(ctx, j.req) }
	}
	res, err := s.within(ctx, render)
	if err != nil {
		s.fail(ctx, t, &r, "engine: "+err.Error(), outcomeOf(err))
		return t, engineError(err)
	}
	if res.Engine != "" {
		t.Engine, t.Warning = res.Engine, res.Warning
	}
	if res.Applied != nil {
		t.Applied = res.Applied
	}
	return s.keep(ctx, t, res, &r)
}

// keep puts the picture of t in the bucket, then stores t with its
// created event in one transaction, which also completes r (nil for a
// free edit). When that fails, the picture is removed and r refunded.
func (s *Service) keep(ctx context.Context, t thumbnail.Thumbnail, res engine.Result, r *credits.Reservation) (thumbnail.Thumbnail, error) {
	ext := "jpg"
	if res.ContentType == "image/png" {
		ext = "png"
	}
	t.ImageKey = pictureKey(t.OrgID, t.ID, r, ext)
	t.Width, t.Height = res.Width, res.Height
	if err := s.Blobs.Put(ctx, t.ImageKey, bytes.NewReader(res.Data), int64(len(res.Data)), res.ContentType); err != nil {
		s.fail(ctx, t, r, "storage: the picture could not be stored", outcomeFailed)
		return t, err
	}
	t.CreatedAt = s.now()
	created, err := events.NewWithID(ctx, uuid.NewSHA1(createdNS, []byte(t.ID)).String(), events.ThumbnailsThumbnailCreated, Source, t.OrgID,
		events.ThumbnailCreated{ThumbnailID: t.ID, ImageURL: s.URL(t.ImageKey), Prompt: t.Prompt, CollectionID: t.CollectionID})
	if err != nil {
		return t, err
	}
	if r == nil {
		err = s.Store.SaveFree(ctx, t, []events.Envelope{created})
	} else {
		var completed events.Envelope
		if completed, err = s.CompletedEvent(ctx, *r); err != nil {
			return t, err
		}
		err = s.Store.Save(ctx, t, *r, []events.Envelope{created}, completed)
	}
	if err != nil {
		s.remove(ctx, t.ImageKey)
		if errors.Is(err, credits.ErrSettled) {
			// The recovery pass refunded it while we worked: the picture
			// must not be delivered unpaid.
			countGeneration(t, outcomeFailed)
			return t, errRefundedMeanwhile(err)
		}
		s.fail(ctx, t, r, "database: the thumbnail could not be stored", outcomeFailed)
		return t, err
	}
	countGeneration(t, outcomeCompleted)
	return t, nil
}

// pictureKey is the bucket key of thumbnail id's picture made under
// reservation r (nil: a free edit). A paid picture's key names its
// reservation too: a retry with the same Idempotency-Key makes the same
// thumbnail under a new reservation, and work wrongly taken for dead may
// still finish beside it, so each attempt writes and removes only its own
// object.
func pictureKey(orgID, id string, r *credits.Reservation, ext string) string {
	if r == nil {
		return s3store.Key(orgID, "thumbnails", id, ext)
	}
	return s3store.Key(orgID, "thumbnails", id+"-"+r.ID, ext)
}

// fail counts t's failure and refunds r (nil: a free edit).
func (s *Service) fail(ctx context.Context, t thumbnail.Thumbnail, r *credits.Reservation, reason, outcome string) {
	countGeneration(t, outcome)
	if r != nil {
		s.refund(ctx, *r, reason)
	}
}

// refund fails r (Credits.Refund outlives the request: a client that hung
// up still gets its credits back). When even that fails the reservation
// stays open and the recovery pass fails it.
func (s *Service) refund(ctx context.Context, r credits.Reservation, reason string) {
	if err := s.Credits.Refund(ctx, reason, r); err != nil {
		s.log().ErrorContext(ctx, "refunding reservation", "reservation_id", r.ID, "err", err)
	}
}

// errRefundedMeanwhile is the answer when the recovery pass refunded the
// reservation while the work ran (credits.ErrSettled on storing): the
// result must not be delivered unpaid.
func errRefundedMeanwhile(err error) error {
	return apierr.Wrap(apierr.Unavailable, "the request took too long and was cancelled; nothing was charged, retry", err)
}

// CompletedEvent is the completed event of reservation r. Its id derives
// from r's, so the request and the recovery pass write the same event.
func (s *Service) CompletedEvent(ctx context.Context, r credits.Reservation) (events.Envelope, error) {
	return events.NewWithID(ctx, uuid.NewSHA1(completedNS, []byte(r.ID)).String(), events.ThumbnailsOperationCompleted, Source, r.OrgID,
		events.OperationCompleted{ReservationID: r.ID, Operation: r.Operation, ResourceID: r.ResourceID})
}

// ResolveReservation is the recovery pass's judge (credits.Resolver) of a
// reservation of this service left open: its thumbnail or critique is
// stored (Completed, with the completed event the request writes), or it
// is not and never will be (Failed, and the picture the work may have put
// in the bucket is removed). Work still running cannot be told apart, so
// the recovery grace must exceed the longest generation.
func (s *Service) ResolveReservation(ctx context.Context, r credits.Reservation) (credits.Resolution, error) {
	stored, err := s.Store.HasResult(ctx, r.ID)
	switch {
	case err != nil:
		return credits.Resolution{}, err
	case stored:
		env, err := s.CompletedEvent(ctx, r)
		return credits.Resolution{Verdict: credits.Completed, Event: env}, err
	}
	s.removeOrphan(ctx, r)
	return credits.Resolution{Verdict: credits.Failed, Reason: "the service stopped before the thumbnail was stored"}, nil
}

// removeOrphan removes the picture a job of reservation r may have put in
// the bucket before the process stopped (its row was never written).
func (s *Service) removeOrphan(ctx context.Context, r credits.Reservation) {
	if _, err := uuid.Parse(r.ResourceID); err != nil || r.ResourceType != "thumbnail" {
		return
	}
	for _, ext := range []string{"jpg", "png"} {
		s.remove(ctx, pictureKey(r.OrgID, r.ResourceID, &r, ext))
	}
}

// engineError is the client's view of an engine failure: a provider that
// cannot draw now is 503 provider_unavailable with details.engine the
// reason (quota_exhausted, rate_limited, no_image, unavailable) and the
// provider's own Retry-After when it gave one (never an invented one);
// a refusal is 400 unsupported_prompt with the provider's reason.
func engineError(err error) error {
	switch {
	case errors.Is(err, engine.ErrUnavailable):
		reason, msg := engine.ReasonUnreachable, "the image provider is unavailable; nothing was charged, retry later"
		var o *engine.Outage
		if errors.As(err, &o) {
			reason = o.Reason
		}
		switch reason {
		case engine.ReasonQuotaExhausted:
			msg = "the image provider's quota for this service is exhausted; nothing was charged, retry once the operator has restored it"
		case engine.ReasonRateLimited:
			msg = "the image provider is rate limiting this service; nothing was charged, retry later"
		case engine.ReasonNoImage:
			msg = "the image provider answered without a picture; nothing was charged, retry"
		}
		e := apierr.Wrap(apierr.ProviderUnavailable, msg, err).With("engine", reason)
		if o != nil && o.RetryAfter > 0 {
			e = e.With("retryAfter", int64(math.Ceil(o.RetryAfter.Seconds())))
		}
		return e
	case errors.Is(err, engine.ErrRejected):
		e := apierr.Wrap(apierr.UnsupportedPrompt, "the image provider refused this request; nothing was charged", err)
		var r *engine.Refusal
		if errors.As(err, &r) {
			e = e.With("reason", r.Reason)
		}
		return e
	}
	return fmt.Errorf("engine: %w", err)
}
