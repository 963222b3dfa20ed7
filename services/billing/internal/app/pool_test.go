package app_test

import (
	"context"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"hookline.dev/pkg/testkit"
)

// TestDatabaseOutOfConnectionsAnswers503: when Postgres refuses billing a
// connection (too many clients), a read answers 503 unavailable in the
// envelope, not 500, and answers again once connections are free. Billing
// runs as a role limited to two sessions: its relay holds one, its pool
// gives its connections back after HOOKLINE_DB_MAX_CONN_IDLE, and the test
// takes the other.
func TestDatabaseOutOfConnectionsAnswers503(t *testing.T) {
	ctx := t.Context()
	admin, err := pgx.Connect(ctx, testkit.DatabaseURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Close(context.Background()) })
	role := "hl_limited_" + testkit.Suffix()
	exec := func(sql string) {
		t.Helper()
		if _, err := admin.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec(`CREATE ROLE ` + role + ` LOGIN CONNECTION LIMIT 2`)
	// Registered first, so it runs after the schema is dropped.
	t.Cleanup(func() {
		for _, sql := range []string{`REVOKE CREATE ON DATABASE postgres FROM ` + role, `DROP OWNED BY ` + role, `DROP ROLE ` + role} {
			if _, err := admin.Exec(context.Background(), sql); err != nil {
				t.Errorf("%s: %v", sql, err)
			}
		}
	})
	schema := testkit.Schema(t, "billing_limited")
	exec(`GRANT CREATE ON DATABASE postgres TO ` + role)
	exec(`ALTER SCHEMA ` + schema + ` OWNER TO ` + role)

	u, err := url.Parse(testkit.DatabaseURL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	h := newHarness(t, "HOOKLINE_DATABASE_URL", u.String(), "HOOKLINE_DB_SCHEMA", schema, "HOOKLINE_DB_MAX_CONN_IDLE", "100ms")

	sessions := func() int {
		var n int
		_ = admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE usename = $1`, role).Scan(&n)
		return n
	}
	testkit.Eventually(t, 10*time.Second, "only the relay's session left", func() bool { return sessions() == 1 })
	hog, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = hog.Close(ctx) }()
	// The limit is reached: the next session is refused with 53300.
	_, err = pgx.Connect(ctx, u.String())
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "53300" {
		t.Fatalf("a third session: %v, want too_many_connections", err)
	}

	org := uuid.NewString()
	if e := readJSON(t, h.Do("GET", "/account/credits", org, nil), 503); e["code"] != "unavailable" {
		t.Fatalf("out of connections: %v, want code unavailable", e)
	}

	_ = hog.Close(ctx)
	testkit.Eventually(t, 10*time.Second, "billing reads again", func() bool {
		return h.Do("GET", "/account/credits", org, nil).Status == 200 // the database answered: no account yet, no credits
	})
}
