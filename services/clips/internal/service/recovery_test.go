package service_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/credits"
	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/testkit"
	"hookline.dev/pkg/testkit/apptest"
	"hookline.dev/services/clips/internal/postgres"
	"hookline.dev/services/clips/internal/render"
	"hookline.dev/services/clips/internal/service"
	"hookline.dev/services/clips/migrations"
)

// TestRestartSettlesWhatTheDeadAPILeft: the API process dies with two
// render reservations open, one whose render was never stored (it died
// between reserving and queueing) and one queued. The next API process's
// first recovery pass fails the first at once, though the grace is long,
// and leaves the queued one to its worker, now its own to look at again
// after the grace.
func TestRestartSettlesWhatTheDeadAPILeft(t *testing.T) {
	ctx := t.Context()
	pool := apptest.Database(t, "clipsrecovery", messaging.Migrations, credits.Migrations, migrations.FS)
	bus := apptest.Bus(t, "clips-recovery-test")
	stop, err := bus.Serve(ctx, events.BillingReserveRPC, "billing", func(context.Context, []byte) ([]byte, error) {
		return json.Marshal(events.ReserveReply{Outcome: events.ReserveOK})
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })
	client := func() *credits.Client {
		c, err := credits.New(credits.Config{Billing: bus, Pool: pool, Source: service.Source, FailedSubject: events.ClipsRenderFailed,
			FailedPayload: service.FailedPayload, Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	dead, next := client(), client()
	store := postgres.New(pool, next)
	svc := &service.API{Core: service.Core{Renders: store}}
	for _, c := range []*credits.Client{dead, next} {
		if err := c.Start(ctx, svc.ResolveReservation); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
	}

	org, project, now := uuid.NewString(), uuid.NewString(), time.Now().UTC()
	if _, err := pool.Exec(ctx, `INSERT INTO projects (id, org_id, source_url, source_key, video_title, format, download_status, step,
		analysis, clips, created_at, updated_at, ready_at) VALUES ($1, $2, 'https://v/1', 'url:https://v/1', 't', 'portrait', 'ready', 'done',
		'{}', '[]', $3, $3, $3)`, project, org, now); err != nil {
		t.Fatal(err)
	}
	queued, unqueued := uuid.NewString(), uuid.NewString()
	rs, err := dead.Reserve(ctx, credits.Request{OrgID: org, Operation: render.Operation, Key: "req:" + uuid.NewString(), Items: []credits.Item{
		{Credits: render.CreditsPerClip, ResourceType: render.ResourceType, ResourceID: queued},
		{Credits: render.CreditsPerClip, ResourceType: render.ResourceType, ResourceID: unqueued},
	}})
	if err != nil {
		t.Fatal(err)
	}
	job, err := events.New(ctx, events.ClipsJobRender, service.Source, org, events.ClipsRenderJob{RenderID: queued})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.CreateRenders(ctx, []render.Render{{ID: queued, OrgID: org, ProjectID: project, ClipID: "c1", Format: "portrait",
		Status: render.Pending, Step: render.StepQueued, Credits: render.CreditsPerClip, ReservationID: rs[0].ID, CreatedAt: now, UpdatedAt: now}},
		[]events.Envelope{job}); err != nil {
		t.Fatal(err)
	}
	if n, err := next.Recover(ctx, 10*time.Minute, svc.ResolveReservation); err != nil || n != 0 {
		t.Fatalf("while the first API lives: settled %d (%v)", n, err)
	}
	dead.Close() // the first API dies
	testkit.Eventually(t, 10*time.Second, "the next API settled the unqueued render's reservation", func() bool {
		n, err := next.Recover(ctx, 10*time.Minute, svc.ResolveReservation)
		if err != nil {
			t.Fatal(err)
		}
		return n == 1
	})
	state := func(id string) string {
		var s string
		if err := pool.QueryRow(ctx, `SELECT state FROM credit_reservations WHERE reservation_id = $1`, id).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if a, b := state(rs[0].ID), state(rs[1].ID); a != "reserved" || b != "failed" {
		t.Fatalf("queued render's reservation %s, unqueued one's %s; want reserved, failed", a, b)
	}
	if n, err := next.Recover(ctx, 10*time.Minute, svc.ResolveReservation); err != nil || n != 0 {
		t.Fatalf("the queued render's reservation was settled before its render ended: %d (%v)", n, err)
	}
}
