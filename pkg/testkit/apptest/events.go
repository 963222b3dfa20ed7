package apptest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go/jetstream"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/testkit"
)

// waitWithin bounds the waits for what the service does asynchronously
// (consume, relay): long enough for a loaded machine, it only catches a
// service that never gets there.
const waitWithin = 30 * time.Second

// Envelope is a new event of typ about org, as source would write it.
func (s *Service) Envelope(typ, source, org string, data any) events.Envelope {
	s.T.Helper()
	env, err := events.New(context.Background(), typ, source, org, data)
	if err != nil {
		s.T.Fatal(err)
	}
	return env
}

// Emit publishes a new event of typ about org as source's outbox relay
// would, and returns it.
func (s *Service) Emit(typ, source, org string, data any) events.Envelope {
	s.T.Helper()
	env := s.Envelope(typ, source, org, data)
	s.Publish(env)
	return env
}

// Deliver publishes a new event of typ about org as source's outbox relay
// would, and waits until the service's consumer named consumer has handled
// it.
func (s *Service) Deliver(typ, source, consumer, org string, data any) events.Envelope {
	s.T.Helper()
	env := s.Emit(typ, source, org, data)
	s.WaitProcessed(consumer, env.ID)
	return env
}

// Publish sends env into the service's namespace as its producer's outbox
// relay would: with the event id as message id, so JetStream drops a
// second copy within its duplicate window.
func (s *Service) Publish(env events.Envelope) {
	s.T.Helper()
	s.publish(env, env.ID)
}

// Republish sends env again under a new message id: JetStream stores it,
// so only the consumer's inbox can tell the duplicate.
func (s *Service) Republish(env events.Envelope) {
	s.T.Helper()
	s.publish(env, uuid.NewString())
}

func (s *Service) publish(env events.Envelope, msgID string) {
	s.T.Helper()
	b, err := json.Marshal(env)
	if err != nil {
		s.T.Fatal(err)
	}
	if _, err := s.Bus.JS.Publish(context.Background(), s.Bus.Subject(env.Type), b, jetstream.WithMsgID(msgID)); err != nil {
		s.T.Fatalf("publish %s: %v", env.Type, err)
	}
}

// WaitProcessed waits until the service's consumer named consumer (its
// inbox's name for it; "" for any) has handled every event of ids.
func (s *Service) WaitProcessed(consumer string, ids ...string) {
	s.T.Helper()
	testkit.Eventually(s.T, waitWithin, "events processed", func() bool {
		var n int
		_ = s.Pool.QueryRow(context.Background(), `SELECT count(*) FROM inbox WHERE event_id = ANY($1) AND ($2 = '' OR consumer = $2)`,
			ids, consumer).Scan(&n)
		return n == len(ids)
	})
}

// WaitOutboxDrained waits until the outbox relay of the schema of pool has
// published every event written there.
func WaitOutboxDrained(t testing.TB, pool *pgxpool.Pool) {
	t.Helper()
	testkit.Eventually(t, waitWithin, "outbox drained", func() bool {
		n, err := messaging.OutboxPending(context.Background(), pool)
		return err == nil && n == 0
	})
}

// StreamEvents returns the events of stream (events.Stream…) in the
// service's namespace, once the service's outbox has drained.
func (s *Service) StreamEvents(stream string) []events.Envelope {
	s.T.Helper()
	WaitOutboxDrained(s.T, s.Pool)
	ctx := context.Background()
	st, err := s.Bus.JS.Stream(ctx, s.Bus.StreamName(stream))
	if err != nil {
		s.T.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		s.T.Fatal(err)
	}
	var out []events.Envelope
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		m, err := st.GetMsg(ctx, seq)
		if err != nil {
			continue // deleted, or past a limit
		}
		env, err := events.Parse(m.Data)
		if err != nil {
			s.T.Fatal(err)
		}
		out = append(out, env)
	}
	return out
}
