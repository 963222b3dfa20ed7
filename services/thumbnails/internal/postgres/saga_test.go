package postgres_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"hookline.dev/pkg/contracts/credits"
	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/media/imageinput"
	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/pkg/platform/s3store"
	"hookline.dev/pkg/testkit"
	"hookline.dev/pkg/testkit/apptest"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/postgres"
	"hookline.dev/services/thumbnails/internal/service"
	"hookline.dev/services/thumbnails/internal/tesseract"
	"hookline.dev/services/thumbnails/internal/thumbnail"
	"hookline.dev/services/thumbnails/migrations"
)

// fakeEngine is the test double of engine.Engine: it calls draw.
type fakeEngine struct {
	draw func(ctx context.Context, req engine.Request) (engine.Result, error)
}

func (f *fakeEngine) Name() string { return "fake" }
func (f *fakeEngine) Generate(ctx context.Context, req engine.Request) (engine.Result, error) {
	return f.draw(ctx, req)
}
func (f *fakeEngine) Vary(ctx context.Context, req engine.Request) (engine.Result, error) {
	return f.draw(ctx, req)
}

// picture is a small real JPEG.
func picture(t testing.TB) engine.Result {
	img := image.NewRGBA(image.Rect(0, 0, 32, 18))
	for i := range img.Pix {
		img.Pix[i] = 200
	}
	img.Set(1, 1, color.Black)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return engine.Result{Data: buf.Bytes(), ContentType: "image/jpeg", Width: 32, Height: 18}
}

// world is a service over real Postgres, MinIO and NATS, whose reserve
// calls a test responder answers ok (billing itself runs in the app
// tests), with a test engine.
type world struct {
	ctx    context.Context
	pool   *pgxpool.Pool
	blobs  *s3store.Store
	store  *postgres.Store
	client *credits.Client
	bus    *messaging.Bus
	svc    *service.Service
	eng    *fakeEngine
}

func newWorld(t *testing.T) *world {
	t.Helper()
	ctx := t.Context()
	pool := apptest.Database(t, "thumbsvc", messaging.Migrations, credits.Migrations, migrations.FS)
	bus := apptest.Bus(t, "thumbnails-service-test")
	stop, err := bus.Serve(ctx, events.BillingReserveRPC, "billing", func(context.Context, []byte) ([]byte, error) {
		return json.Marshal(events.ReserveReply{Outcome: events.ReserveOK})
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })
	s3 := testkit.Bucket(t)
	blobs, err := s3store.New(s3store.Config{Endpoint: s3.Endpoint, AccessKey: s3.AccessKey, SecretKey: s3.SecretKey, Bucket: s3.Bucket})
	if err != nil {
		t.Fatal(err)
	}
	if err := blobs.EnsureBucket(ctx); err != nil {
		t.Fatal(err)
	}
	client, err := credits.New(credits.Config{Billing: bus, Pool: pool, Source: service.Source,
		FailedSubject: events.ThumbnailsOperationFailed, Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	w := &world{ctx: ctx, pool: pool, blobs: blobs, client: client, bus: bus, store: postgres.New(pool, client), eng: &fakeEngine{}}
	faces, err := vision.New()
	if err != nil {
		t.Fatal(err)
	}
	ocr, err := tesseract.New(tesseract.DefaultDir, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ocr.Close() })
	w.svc = &service.Service{Store: w.store, Blobs: blobs, Images: &imageinput.Source{Store: blobs}, EditImages: &imageinput.Source{Store: blobs},
		Credits: client, Engine: w.eng, Faces: faces, OCR: ocr}
	return w
}

// settlement is the terminal event of a reservation in the outbox.
func (w *world) settlement(t *testing.T, org string) (typ string, d events.OperationFailed) {
	t.Helper()
	rows, err := w.pool.Query(w.ctx, `SELECT payload FROM outbox ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	raws, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range raws {
		env, err := events.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if env.OrgID == org && (env.Type == events.ThumbnailsOperationFailed || env.Type == events.ThumbnailsOperationCompleted) {
			if typ != "" {
				t.Fatalf("two settlements: %s and %s", typ, env.Type)
			}
			typ = env.Type
			if err := env.Decode(&d); err != nil {
				t.Fatal(err)
			}
		}
	}
	return typ, d
}

func (w *world) journal(t *testing.T, org string) (id, state string) {
	t.Helper()
	if err := w.pool.QueryRow(w.ctx, `SELECT reservation_id::text, state FROM credit_reservations WHERE org_id = $1`, org).Scan(&id, &state); err != nil {
		t.Fatal(err)
	}
	return id, state
}

func caller(org string) principal.Principal {
	return principal.Principal{OrgID: org, RequestID: uuid.NewString()}
}

func prompt(s string) *string { return &s }

// TestEngineFailureRefunds: a failing engine call fails the reservation
// with the failed event billing refunds on, and stores nothing.
func TestEngineFailureRefunds(t *testing.T) {
	w := newWorld(t)
	for _, tc := range []struct {
		err    error
		status apierr.Code
	}{
		{engine.ErrUnavailable, apierr.ProviderUnavailable},
		{engine.ErrRejected, apierr.UnsupportedPrompt},
		{errors.New("boom"), ""},
	} {
		org := uuid.NewString()
		w.eng.draw = func(context.Context, engine.Request) (engine.Result, error) { return engine.Result{}, tc.err }
		_, err := w.svc.Generate(w.ctx, caller(org), thumbnail.GenerateInput{Prompt: prompt("x")})
		var ae *apierr.Error
		switch {
		case tc.status != "" && !apierr.Is(err, tc.status):
			t.Fatalf("%v: error %v, want %s", tc.err, err, tc.status)
		case tc.status == "" && (err == nil || errors.As(err, &ae)):
			t.Fatalf("%v: error %v, want an internal error", tc.err, err)
		}
		id, state := w.journal(t, org)
		typ, d := w.settlement(t, org)
		if state != "failed" || typ != events.ThumbnailsOperationFailed || d.ReservationID != id || d.Reason == "" {
			t.Fatalf("%v: journal %s, settlement %s %+v", tc.err, state, typ, d)
		}
		if ts, n, _ := w.store.Thumbnails(w.ctx, org, thumbnail.Filter{}, 0, 10); n != 0 {
			t.Fatalf("stored %+v", ts)
		}
	}
}

// TestVariationsPartialFailure: the items that fail are refunded one by
// one, the others complete.
func TestVariationsPartialFailure(t *testing.T) {
	w := newWorld(t)
	org := uuid.NewString()
	w.eng.draw = func(context.Context, engine.Request) (engine.Result, error) { return picture(t), nil }
	parent, err := w.svc.Generate(w.ctx, caller(org), thumbnail.GenerateInput{Prompt: prompt("parent")})
	if err != nil {
		t.Fatal(err)
	}
	// Every other engine call fails.
	var calls atomic.Int64
	w.eng.draw = func(_ context.Context, req engine.Request) (engine.Result, error) {
		if req.Parent == nil {
			t.Error("variation without its parent picture")
		}
		if calls.Add(1)%2 == 0 {
			return engine.Result{}, engine.ErrUnavailable
		}
		return picture(t), nil
	}
	count := 10
	vs, err := w.svc.Variations(w.ctx, caller(org), thumbnail.VariationsInput{ThumbnailID: &parent.ID, Count: &count})
	if err != nil {
		t.Fatal(err)
	}
	var completed, failed int
	rows, _ := w.pool.Query(w.ctx, `SELECT state FROM credit_reservations WHERE org_id = $1 AND operation = $2`, org, service.OpVariations)
	states, _ := pgx.CollectRows(rows, pgx.RowTo[string])
	for _, s := range states {
		switch s {
		case "completed":
			completed++
		case "failed":
			failed++
		}
	}
	if len(vs) != 5 || completed != 5 || failed != 5 {
		t.Fatalf("%d made, journal %v", len(vs), states)
	}
}

// TestCrashRecovery: the process stops between the reservation and the
// result (the engine never returns). The recovery pass then fails the
// reservation with its failed event, removes the picture the work may
// have put, and a work that resumes late cannot store an unpaid thumbnail.
func TestCrashRecovery(t *testing.T) {
	w := newWorld(t)
	org := uuid.NewString()
	entered, release := make(chan engine.Request, 1), make(chan struct{})
	w.eng.draw = func(_ context.Context, req engine.Request) (engine.Result, error) {
		entered <- req
		<-release // the crashed process: nothing after the reservation happens
		return picture(t), nil
	}
	done := make(chan error, 1)
	go func() {
		_, err := w.svc.Generate(context.WithoutCancel(w.ctx), caller(org), thumbnail.GenerateInput{Prompt: prompt("crash")})
		done <- err
	}()
	<-entered
	id, state := w.journal(t, org)
	if state != "reserved" {
		t.Fatalf("journal %s during the work", state)
	}
	// The object the dead process had put before its row was written.
	var resourceID string
	if err := w.pool.QueryRow(w.ctx, `SELECT resource_id FROM credit_reservations WHERE reservation_id = $1`, id).Scan(&resourceID); err != nil {
		t.Fatal(err)
	}
	key := s3store.Key(org, "thumbnails", resourceID+"-"+id, "jpg")
	pic := picture(t)
	if err := w.blobs.Put(w.ctx, key, bytes.NewReader(pic.Data), int64(len(pic.Data)), pic.ContentType); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 10*time.Second, "recovery settled the reservation", func() bool {
		n, err := w.client.Recover(w.ctx, 100*time.Millisecond, w.svc.ResolveReservation)
		if err != nil {
			t.Fatal(err)
		}
		return n == 1
	})
	if _, state := w.journal(t, org); state != "failed" {
		t.Fatalf("journal %s after recovery", state)
	}
	typ, d := w.settlement(t, org)
	if typ != events.ThumbnailsOperationFailed || d.ReservationID != id {
		t.Fatalf("settlement %s %+v", typ, d)
	}
	if _, err := w.blobs.Stat(w.ctx, key); !errors.Is(err, s3store.ErrNotFound) {
		t.Fatalf("orphaned object after recovery: %v", err)
	}

	// The stalled work resumes: it must not deliver what was refunded.
	close(release)
	if err := <-done; !apierr.Is(err, apierr.Unavailable) {
		t.Fatalf("late work: %v, want 503", err)
	}
	if _, n, _ := w.store.Thumbnails(w.ctx, org, thumbnail.Filter{}, 0, 10); n != 0 {
		t.Fatal("a refunded thumbnail was stored")
	}
	if _, err := w.blobs.Stat(w.ctx, key); !errors.Is(err, s3store.ErrNotFound) {
		t.Fatalf("late work left its object: %v", err)
	}
	if typ, _ := w.settlement(t, org); typ != events.ThumbnailsOperationFailed {
		t.Fatalf("settlement %s", typ)
	}
}

// TestRecoveryCompletes: a reservation whose thumbnail was stored is
// completed by the recovery pass with the same completed event the
// request writes.
func TestRecoveryCompletes(t *testing.T) {
	w := newWorld(t)
	org := uuid.NewString()
	w.eng.draw = func(context.Context, engine.Request) (engine.Result, error) { return picture(t), nil }
	th, err := w.svc.Generate(w.ctx, caller(org), thumbnail.GenerateInput{Prompt: prompt("done")})
	if err != nil {
		t.Fatal(err)
	}
	r := credits.Reservation{ID: th.ReservationID, OrgID: org, Operation: service.OpGenerate, ResourceType: "thumbnail", ResourceID: th.ID}
	got, err := w.svc.ResolveReservation(w.ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := w.svc.CompletedEvent(w.ctx, r)
	if got.Verdict != credits.Completed || got.Event.ID != want.ID {
		t.Errorf("resolution %+v", got)
	}
}

// The recovery pass judges a critique's reservation like a thumbnail's:
// completed when the critique was stored, failed when it never was.
func TestRecoveryJudgesCritiques(t *testing.T) {
	w := newWorld(t)
	org := uuid.NewString()
	pic := picture(t)
	key := s3store.Key(org, "uploads", uuid.NewString(), "jpg")
	if err := w.blobs.Put(w.ctx, key, bytes.NewReader(pic.Data), int64(len(pic.Data)), pic.ContentType); err != nil {
		t.Fatal(err)
	}
	url := w.blobs.PublicURL(key)
	caller := caller(org)
	c, err := w.svc.Critique(w.ctx, caller, &url, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := w.svc.Critique(w.ctx, caller, &url, nil)
	if err != nil || again.ID != c.ID {
		t.Fatalf("a retry of the same request answers the stored critique: %v %v", again.ID, err)
	}
	for _, tc := range []struct {
		id   string
		want credits.Verdict
	}{{c.ID, credits.Completed}, {uuid.NewString(), credits.Failed}} {
		r := credits.Reservation{ID: uuid.NewString(), OrgID: org, Operation: service.OpCritique, ResourceType: "critique", ResourceID: tc.id}
		if tc.want == credits.Completed {
			if err := w.pool.QueryRow(w.ctx, `SELECT reservation_id::text FROM critiques WHERE id = $1`, c.ID).Scan(&r.ID); err != nil {
				t.Fatal(err)
			}
		}
		got, err := w.svc.ResolveReservation(w.ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		if got.Verdict != tc.want {
			t.Errorf("critique %s: verdict %v, want %v", tc.id, got.Verdict, tc.want)
		}
	}
}

// TestRestartSettlesWhatTheDeadProcessLeft: a process dies with paid
// work in flight (a generation and a variations request stalled in the
// engine). The next process's first recovery pass settles every
// reservation the dead one owned at once, though the grace is ten
// minutes, and none of another live process; the dead work, resumed,
// delivers nothing unpaid.
func TestRestartSettlesWhatTheDeadProcessLeft(t *testing.T) {
	w := newWorld(t)
	if err := w.client.Start(w.ctx, w.svc.ResolveReservation); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.client.Close)
	org := uuid.NewString()
	w.eng.draw = func(context.Context, engine.Request) (engine.Result, error) { return picture(t), nil }
	parent, err := w.svc.Generate(w.ctx, caller(org), thumbnail.GenerateInput{Prompt: prompt("parent")})
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}, 10), make(chan struct{})
	w.eng.draw = func(context.Context, engine.Request) (engine.Result, error) {
		entered <- struct{}{}
		<-release
		return picture(t), nil
	}
	done := make(chan error, 2)
	go func() {
		_, err := w.svc.Generate(w.ctx, caller(org), thumbnail.GenerateInput{Prompt: prompt("in flight")})
		done <- err
	}()
	go func() {
		count := 3
		_, err := w.svc.Variations(w.ctx, caller(org), thumbnail.VariationsInput{ThumbnailID: &parent.ID, Count: &count})
		done <- err
	}()
	for range 3 { // the generation and two variations (itemConcurrency) drawing
		<-entered
	}
	open := func() int {
		var n int
		if err := w.pool.QueryRow(w.ctx, `SELECT count(*) FROM credit_reservations WHERE org_id = $1 AND state IN ('reserving', 'reserved')`, org).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := open(); n != 4 {
		t.Fatalf("%d reservations open in flight, want 4", n)
	}

	next, err := credits.New(credits.Config{Billing: w.bus, Pool: w.pool, Source: service.Source,
		FailedSubject: events.ThumbnailsOperationFailed, Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := next.Start(w.ctx, w.svc.ResolveReservation); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(next.Close)
	if n, err := next.Recover(w.ctx, 10*time.Minute, w.svc.ResolveReservation); err != nil || n != 0 {
		t.Fatalf("while the first process lives: settled %d (%v)", n, err)
	}
	w.client.Close() // the first process dies
	testkit.Eventually(t, 10*time.Second, "the restarted process settled the dead one's reservations", func() bool {
		n, err := next.Recover(w.ctx, 10*time.Minute, w.svc.ResolveReservation)
		if err != nil {
			t.Fatal(err)
		}
		return n == 4
	})
	if n := open(); n != 0 {
		t.Fatalf("%d reservations still open", n)
	}
	rows, err := w.pool.Query(w.ctx, `SELECT payload FROM outbox`)
	if err != nil {
		t.Fatal(err)
	}
	raws, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, raw := range raws {
		if env, err := events.Parse(raw); err == nil && env.OrgID == org && env.Type == events.ThumbnailsOperationFailed {
			failed++
		}
	}
	if failed != 4 {
		t.Fatalf("%d failed events, want 4", failed)
	}

	close(release) // the dead work resumes: nothing of it is delivered
	for range 2 {
		if err := <-done; !apierr.Is(err, apierr.Unavailable) {
			t.Fatalf("dead work answered %v, want 503", err)
		}
	}
	if _, n, _ := w.store.Thumbnails(w.ctx, org, thumbnail.Filter{}, 0, 10); n != 1 {
		t.Fatalf("%d thumbnails stored, want the parent alone", n)
	}
}

// TestRetryAfterTheProcessDied: a process dies while it generates a
// thumbnail, and the client retries the request (same Idempotency-Key)
// at the restarted process before any recovery pass. The retry settles
// the dead process's reservation (refunded: nothing was stored) and runs
// at once instead of answering 409 until a pass; while the first process
// lived, the same retry was a 409.
func TestRetryAfterTheProcessDied(t *testing.T) {
	w := newWorld(t)
	if err := w.client.Start(w.ctx, w.svc.ResolveReservation); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.client.Close)
	org := uuid.NewString()
	p := principal.Principal{OrgID: org, RequestID: uuid.NewString(), IdempotencyKey: "k-" + uuid.NewString()}
	entered, release := make(chan struct{}, 1), make(chan struct{})
	var dead atomic.Bool
	w.eng.draw = func(context.Context, engine.Request) (engine.Result, error) {
		if dead.Load() {
			return picture(t), nil // the restarted process draws
		}
		entered <- struct{}{}
		<-release
		return picture(t), nil // the work taken for dead finishes after all
	}
	done := make(chan error, 1)
	go func() {
		_, err := w.svc.Generate(w.ctx, p, thumbnail.GenerateInput{Prompt: prompt("killed mid-request")})
		done <- err
	}()
	<-entered
	retry := principal.Principal{OrgID: org, RequestID: uuid.NewString(), IdempotencyKey: p.IdempotencyKey}
	if _, err := w.svc.Generate(w.ctx, retry, thumbnail.GenerateInput{Prompt: prompt("killed mid-request")}); !apierr.Is(err, apierr.IdempotencyConflict) {
		t.Fatalf("retry while the first process lives: %v, want 409", err)
	}

	next, err := credits.New(credits.Config{Billing: w.bus, Pool: w.pool, Source: service.Source,
		FailedSubject: events.ThumbnailsOperationFailed, Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	restarted := *w.svc
	restarted.Store, restarted.Credits = postgres.New(w.pool, next), next
	if err := next.Start(w.ctx, restarted.ResolveReservation); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(next.Close)
	first, _ := w.journal(t, org)
	w.client.Close() // the first process dies
	dead.Store(true)
	testkit.Eventually(t, 10*time.Second, "the dead process's lock dropped", func() bool {
		var held bool
		if err := w.pool.QueryRow(w.ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks l JOIN credit_reservations r ON r.owner::bigint = l.objid::bigint
			WHERE l.locktype = 'advisory' AND l.objsubid = 2 AND r.reservation_id = $1)`, first).Scan(&held); err != nil {
			t.Fatal(err)
		}
		return !held
	})
	got, err := restarted.Generate(w.ctx, retry, thumbnail.GenerateInput{Prompt: prompt("killed mid-request")})
	if err != nil {
		t.Fatalf("retry after the first process died: %v", err)
	}
	if got.ID != service.ResultID(org, service.OpGenerate, credits.KeyOf(p), 0) {
		t.Fatalf("retry made thumbnail %s, not the request's", got.ID)
	}
	states := map[string]string{}
	rows, err := w.pool.Query(w.ctx, `SELECT reservation_id::text, state FROM credit_reservations WHERE org_id = $1`, org)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, state string
		if err := rows.Scan(&id, &state); err != nil {
			t.Fatal(err)
		}
		states[id] = state
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(states) != 2 || states[first] != "failed" || states[got.ReservationID] != "completed" {
		t.Fatalf("reservations %v: want the dead one (%s) failed and the retry's (%s) completed", states, first, got.ReservationID)
	}

	close(release) // the dead work resumes: its reservation is refunded once
	if err := <-done; err == nil {
		t.Fatal("the dead work was answered as done")
	}
	// It removed only what it had put: the retry's thumbnail keeps its picture.
	if _, err := w.blobs.Stat(w.ctx, got.ImageKey); err != nil {
		t.Fatalf("the retry's picture %s after the late work gave up: %v", got.ImageKey, err)
	}
	rows, err = w.pool.Query(w.ctx, `SELECT payload FROM outbox ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	raws, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		t.Fatal(err)
	}
	settled := map[string][]string{}
	for _, raw := range raws {
		env, err := events.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		var d events.Settlement
		if env.OrgID == org && (env.Type == events.ThumbnailsOperationFailed || env.Type == events.ThumbnailsOperationCompleted) {
			if err := env.Decode(&d); err != nil {
				t.Fatal(err)
			}
			settled[d.ReservationID] = append(settled[d.ReservationID], env.Type)
		}
	}
	if len(settled) != 2 || len(settled[first]) != 1 || settled[first][0] != events.ThumbnailsOperationFailed ||
		len(settled[got.ReservationID]) != 1 || settled[got.ReservationID][0] != events.ThumbnailsOperationCompleted {
		t.Fatalf("settlements %v: want the dead reservation failed once and the retry's completed once", settled)
	}
}
