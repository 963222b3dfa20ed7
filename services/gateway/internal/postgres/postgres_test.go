package postgres_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/pkg/testkit"
	"hookline.dev/services/gateway/internal/idempotency"
	"hookline.dev/services/gateway/internal/org"
	"hookline.dev/services/gateway/internal/postgres"
	"hookline.dev/services/gateway/internal/ratelimit"
	"hookline.dev/services/gateway/migrations"
)

func newPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	schema := testkit.Schema(t, "gwpg")
	ctx := context.Background()
	pool, err := pgkit.Connect(ctx, testkit.DatabaseURL(t), schema, pgkit.Options{MaxConns: 12})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := pgkit.Migrate(ctx, pool, messaging.Migrations); err != nil {
		t.Fatal(err)
	}
	if err := pgkit.Migrate(ctx, pool, migrations.FS); err != nil {
		t.Fatal(err)
	}
	return pool
}

func TestOrgsStore(t *testing.T) {
	t.Parallel()
	pool := newPool(t)
	s := postgres.NewOrgs(pool)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Microsecond)

	o := org.Organization{ID: uuid.New(), Name: "Acme", Tier: "pro", CreatedAt: now}
	if err := s.CreateOrganization(ctx, o); err != nil {
		t.Fatal(err)
	}
	// The event sits in the outbox, written in the same transaction (no
	// relay runs in this test).
	var payload []byte
	if err := pool.QueryRow(ctx, `SELECT payload FROM outbox WHERE subject = $1`, events.GatewayOrganizationCreated).Scan(&payload); err != nil {
		t.Fatalf("no outbox row: %v", err)
	}
	env, err := events.Parse(payload)
	if err != nil || env.OrgID != o.ID.String() {
		t.Fatalf("outbox envelope %s: %v", payload, err)
	}

	secret, _ := org.GenerateKey(nil)
	exp := now.Add(time.Hour)
	k := org.APIKey{ID: uuid.New(), OrganizationID: o.ID, Name: "ci", Prefix: org.DisplayPrefix(secret), Hash: org.HashKey(secret), CreatedAt: now, ExpiresAt: &exp}
	if err := s.CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	orphan := k
	orphan.ID, orphan.OrganizationID, orphan.Hash = uuid.New(), uuid.New(), org.HashKey("other")
	if err := s.CreateKey(ctx, orphan); !errors.Is(err, org.ErrOrganizationNotFound) {
		t.Fatalf("key for a missing org: %v", err)
	}

	id, err := s.IdentityByHash(ctx, org.HashKey(secret))
	if err != nil {
		t.Fatal(err)
	}
	if id.Organization.ID != o.ID || id.Organization.Name != "Acme" || id.Key.ID != k.ID || id.Key.Hash != k.Hash ||
		!id.Key.ExpiresAt.Equal(exp) || id.Key.RevokedAt != nil || !id.Key.CreatedAt.Equal(now) {
		t.Fatalf("identity = %+v", id)
	}
	if _, err := s.IdentityByHash(ctx, org.HashKey("nope")); !errors.Is(err, org.ErrKeyNotFound) {
		t.Fatalf("unknown hash: %v", err)
	}

	first := now.Add(time.Minute)
	if r, err := s.RevokeKey(ctx, k.ID, first); err != nil || r.RevokedAt == nil || !r.RevokedAt.Equal(first) || r.Hash != k.Hash {
		t.Fatalf("revoke = %+v, %v", r, err)
	}
	if r, err := s.RevokeKey(ctx, k.ID, first.Add(time.Hour)); err != nil || !r.RevokedAt.Equal(first) {
		t.Fatalf("second revoke moved the time: %+v, %v", r, err)
	}
	if _, err := s.RevokeKey(ctx, uuid.New(), now); !errors.Is(err, org.ErrKeyNotFound) {
		t.Fatalf("unknown key: %v", err)
	}

	g := org.Grant{ID: uuid.New(), OrganizationID: o.ID, Credits: 10, Kind: org.Purchased, Reason: "promo", CreatedAt: now}
	if err := s.GrantCredits(ctx, g); err != nil {
		t.Fatal(err)
	}
	if err := s.GrantCredits(ctx, org.Grant{ID: uuid.New(), OrganizationID: uuid.New(), Credits: 1, Kind: org.Purchased, Reason: "x"}); !errors.Is(err, org.ErrOrganizationNotFound) {
		t.Fatalf("grant to a missing org: %v", err)
	}
	var grantPayload []byte
	if err := pool.QueryRow(ctx, `SELECT payload FROM outbox WHERE id = $1`, g.ID).Scan(&grantPayload); err != nil {
		t.Fatalf("grant event not in the outbox under the grant id: %v", err)
	}
	n, err := messaging.OutboxPending(ctx, pool)
	if err != nil || n != 2 {
		t.Fatalf("outbox holds %d rows (%v), want 2", n, err)
	}
}

func TestIdempotencyStore(t *testing.T) {
	t.Parallel()
	pool := newPool(t)
	s := postgres.NewIdempotency(pool)
	ctx := context.Background()
	scope := uuid.NewString()
	now := time.Now().UTC().Truncate(time.Microsecond)
	fp := idempotency.FingerprintOf("POST", "/a", "", []byte("1"))
	claim := func(key string, at time.Time, f idempotency.Fingerprint) (bool, idempotency.Record) {
		t.Helper()
		ok, rec, err := s.Claim(ctx, idempotency.Claim{Scope: scope, Key: key, Fingerprint: f, CreatedAt: at, LockedUntil: at.Add(time.Minute), ExpiresAt: at.Add(24 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		return ok, rec
	}

	t.Run("concurrent claims have one winner", func(t *testing.T) {
		var wins atomic.Int32
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() {
				ok, _, err := s.Claim(ctx, idempotency.Claim{Scope: scope, Key: "race", Fingerprint: fp, CreatedAt: now, LockedUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Hour)})
				if err != nil {
					t.Error(err)
				}
				if ok {
					wins.Add(1)
				}
			})
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("%d winners", wins.Load())
		}
	})

	t.Run("complete and read back", func(t *testing.T) {
		if ok, _ := claim("done", now, fp); !ok {
			t.Fatal("first claim lost")
		}
		ok, rec := claim("done", now, fp)
		if ok || rec.State != idempotency.InFlight || rec.Fingerprint != fp {
			t.Fatalf("second claim: %v %+v", ok, rec)
		}
		body := []byte("{\"data\":{\"x\":1}}\n")
		if err := s.Complete(ctx, scope, "done", fp, idempotency.Response{Status: 201, ContentType: "application/json", Body: body}); err != nil {
			t.Fatal(err)
		}
		_, rec = claim("done", now.Add(time.Hour), fp)
		if rec.State != idempotency.Done || rec.Response.Status != 201 || rec.Response.ContentType != "application/json" || string(rec.Response.Body) != string(body) {
			t.Fatalf("record = %+v", rec)
		}
		// A finished record outlives its lock, not its expiry.
		if ok, _ := claim("done", now.Add(24*time.Hour), fp); !ok {
			t.Fatal("expired record not replaced")
		}
	})

	t.Run("an abandoned claim is taken over after its lock", func(t *testing.T) {
		claim("stale", now, fp)
		if ok, _ := claim("stale", now.Add(59*time.Second), fp); ok {
			t.Fatal("taken over while locked")
		}
		if ok, _ := claim("stale", now.Add(time.Minute), fp); !ok {
			t.Fatal("not taken over after the lock ran out")
		}
	})

	t.Run("release frees the key, only for the same fingerprint", func(t *testing.T) {
		claim("rel", now, fp)
		other := idempotency.FingerprintOf("POST", "/a", "", []byte("2"))
		if err := s.Release(ctx, scope, "rel", other); err != nil {
			t.Fatal(err)
		}
		if ok, _ := claim("rel", now, fp); ok {
			t.Fatal("released by another fingerprint")
		}
		if err := s.Release(ctx, scope, "rel", fp); err != nil {
			t.Fatal(err)
		}
		if ok, _ := claim("rel", now, fp); !ok {
			t.Fatal("not released")
		}
	})

	t.Run("purge deletes expired records only", func(t *testing.T) {
		other := uuid.NewString()
		for i, at := range []time.Time{now.Add(-48 * time.Hour), now.Add(-25 * time.Hour), now} {
			_, _, err := s.Claim(ctx, idempotency.Claim{Scope: other, Key: string(rune('a' + i)), Fingerprint: fp, CreatedAt: at, LockedUntil: at.Add(time.Minute), ExpiresAt: at.Add(24 * time.Hour)})
			if err != nil {
				t.Fatal(err)
			}
		}
		var before int
		_ = pool.QueryRow(ctx, `SELECT count(*) FROM idempotency_records`).Scan(&before)
		n, err := s.Purge(ctx, now)
		if err != nil || n != 2 {
			t.Fatalf("purged %d (%v), want 2", n, err)
		}
		var after int
		_ = pool.QueryRow(ctx, `SELECT count(*) FROM idempotency_records`).Scan(&after)
		if before-after != 2 {
			t.Fatalf("rows %d → %d", before, after)
		}
	})
}

func TestRateBucketsTakeAndPurge(t *testing.T) {
	pool := newPool(t)
	st := postgres.NewRateBuckets(pool)
	ctx := context.Background()
	lim := ratelimit.Limit{Rate: 0.001, Burst: 5}

	want := []ratelimit.Lease{{Granted: 2, Left: 3}, {Granted: 2, Left: 1}, {Granted: 1, Left: 0}, {Granted: 0, Left: 0}}
	for i, w := range want {
		got, err := st.Take(ctx, "k", lim, 2)
		if err != nil {
			t.Fatal(err)
		}
		if got.Granted != w.Granted || got.Left < w.Left || got.Left > w.Left+0.01 {
			t.Fatalf("take %d: %+v, want %+v", i+1, got, w)
		}
	}

	// Concurrent takes of one key never grant more than the bucket holds.
	var granted atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				l, err := st.Take(ctx, "shared", lim, 1)
				if err != nil {
					t.Error(err)
					return
				}
				granted.Add(int64(l.Granted))
			}
		})
	}
	wg.Wait()
	if granted.Load() != 5 {
		t.Fatalf("80 concurrent takes granted %d tokens from a bucket of 5", granted.Load())
	}

	// A full bucket is purged, a drained one kept.
	if _, err := st.Take(ctx, "full", ratelimit.Limit{Rate: 1000, Burst: 1}, 1); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 5*time.Second, "the refilled bucket purged", func() bool {
		n, err := st.Purge(ctx)
		return err == nil && n == 1
	})
	var left int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM rate_buckets`).Scan(&left); err != nil || left != 2 {
		t.Fatalf("%d buckets left (%v), want the 2 drained ones", left, err)
	}
}
