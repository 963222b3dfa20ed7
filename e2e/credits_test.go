package e2e

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"hookline.dev/pkg/contracts/credits"
	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/pkg/testkit"
)

// lostReply forwards reserve calls to the real billing and, when lose is
// set, throws billing's answer away and reports a timeout: the reservation
// is applied, but the caller never learns it.
type lostReply struct {
	bus      *messaging.Bus
	lose     atomic.Bool
	answered atomic.Int32
}

func (l *lostReply) Request(ctx context.Context, subject string, req, reply any) error {
	if !l.lose.Load() {
		return l.bus.Request(ctx, subject, req, reply)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var got events.ReserveReply
	if err := l.bus.Request(ctx, subject, req, &got); err != nil {
		return fmt.Errorf("billing did not answer: %w", err)
	}
	if got.Outcome != events.ReserveOK {
		return fmt.Errorf("billing did not apply the reservation: %+v", got)
	}
	l.answered.Add(1)
	return fmt.Errorf("%w: %w", messaging.ErrUnavailable, context.DeadlineExceeded)
}

// TestPaidOperationSaga runs a paid operation's side of the credit saga,
// as thumbnails and clips will (pkg/contracts/credits with its own schema, outbox
// and relay), against the real billing behind the gateway.
func TestPaidOperationSaga(t *testing.T) {
	s := startStack(t)
	orgID, key := s.newOrg("free") // 10 credits
	testkit.Eventually(t, 15*time.Second, "account opened", func() bool {
		return s.credits(key)["credits"].(map[string]any)["total"] == float64(10)
	})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pool, err := pgkit.Connect(ctx, testkit.DatabaseURL(t), testkit.Schema(t, "e2e_paid"), pgkit.Options{MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := pgkit.Migrate(ctx, pool, messaging.Migrations); err != nil {
		t.Fatal(err)
	}
	if err := pgkit.Migrate(ctx, pool, credits.Migrations); err != nil {
		t.Fatal(err)
	}
	bus := s.bus("e2e-paid")
	relayDone := make(chan error, 1)
	go func() { relayDone <- messaging.NewRelay(pool, bus, slog.Default()).Run(ctx) }()
	defer func() {
		cancel()
		if err := <-relayDone; err != nil {
			t.Errorf("relay: %v", err)
		}
	}()
	billing := &lostReply{bus: bus}
	client, err := credits.New(credits.Config{Billing: billing, Pool: pool, Source: "thumbnails", FailedSubject: events.ThumbnailsOperationFailed})
	if err != nil {
		t.Fatal(err)
	}
	usage := func() map[string]string { return s.usage(key) }
	total := func() float64 { return s.credits(key)["credits"].(map[string]any)["total"].(float64) }
	item := func(n int64) credits.Item {
		return credits.Item{Credits: n, ResourceType: "thumbnail", ResourceID: "t1"}
	}

	// Billing applies the reservation, its answer is lost: 503, and the
	// failed event the client wrote makes billing refund it.
	billing.lose.Store(true)
	_, err = client.Reserve(ctx, credits.Request{OrgID: orgID, Operation: "thumbnails.generate", Key: "idem:lost", Items: []credits.Item{item(4)}})
	if !apierr.Is(err, apierr.Unavailable) || billing.answered.Load() != 1 {
		t.Fatalf("lost answer: %v (billing answered %d)", err, billing.answered.Load())
	}
	lost := credits.ReservationID(orgID, "thumbnails.generate", "idem:lost", 0, 0)
	testkit.Eventually(t, 15*time.Second, "lost reservation refunded", func() bool { return usage()[lost] == "refunded" })
	if got := total(); got != 10 {
		t.Fatalf("credits after the refund: %v, want 10", got)
	}
	billing.lose.Store(false)

	// Two items where the second does not fit: 402, and the first, which
	// billing held, is refunded.
	_, err = client.Reserve(ctx, credits.Request{OrgID: orgID, Operation: "thumbnails.variations", Key: "idem:two", Items: []credits.Item{item(6), item(6)}})
	if !apierr.Is(err, apierr.InsufficientCredits) {
		t.Fatalf("two items over the balance: %v", err)
	}
	first := credits.ReservationID(orgID, "thumbnails.variations", "idem:two", 0, 0)
	testkit.Eventually(t, 15*time.Second, "first item released", func() bool { return usage()[first] == "refunded" })
	if _, held := usage()[credits.ReservationID(orgID, "thumbnails.variations", "idem:two", 1, 0)]; held {
		t.Fatal("the refused item was recorded by billing")
	}

	// The ordinary path: reserved, then completed with the work's result.
	rs, err := client.Reserve(ctx, credits.Request{OrgID: orgID, Operation: "thumbnails.generate", Key: "idem:ok", Items: []credits.Item{item(3)}})
	if err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 15*time.Second, "reservation held", func() bool { return total() == 7 })
	done, err := events.New(ctx, events.ThumbnailsOperationCompleted, "thumbnails", orgID,
		events.OperationCompleted{ReservationID: rs[0].ID, Operation: rs[0].Operation, ResourceID: rs[0].ResourceID})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Complete(ctx, tx, rs[0], done); err != nil {
		_ = tx.Rollback(ctx)
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 15*time.Second, "reservation committed", func() bool { return usage()[rs[0].ID] == "committed" })
	if got := total(); got != 7 {
		t.Fatalf("credits after the commit: %v, want 7", got)
	}
}
