package pgkit_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5/pgconn"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/pkg/testkit"
)

func TestMigrateAppliesOnceInOrder(t *testing.T) {
	ctx := context.Background()
	schema := testkit.Schema(t, "pgkit")
	pool, err := pgkit.Connect(ctx, testkit.DatabaseURL(t), schema, pgkit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	fs := fstest.MapFS{
		"0001_a.sql": {Data: []byte(`CREATE TABLE t (n int); INSERT INTO t VALUES (1);`)},
		"0002_b.sql": {Data: []byte(`INSERT INTO t SELECT max(n) + 1 FROM t;`)},
	}
	for range 3 {
		if err := pgkit.Migrate(ctx, pool, fs); err != nil {
			t.Fatal(err)
		}
	}
	var n, rows int
	if err := pool.QueryRow(ctx, `SELECT max(n), count(*) FROM t`).Scan(&n, &rows); err != nil {
		t.Fatal(err)
	}
	if n != 2 || rows != 2 {
		t.Fatalf("max %d rows %d: migrations ran out of order or twice", n, rows)
	}
	var sp string
	_ = pool.QueryRow(ctx, `SHOW search_path`).Scan(&sp)
	if sp != schema {
		t.Fatalf("search_path %q", sp)
	}
	// A failing migration leaves nothing half-applied.
	fs["0003_bad.sql"] = &fstest.MapFile{Data: []byte(`INSERT INTO t VALUES (3); SELECT * FROM missing;`)}
	if err := pgkit.Migrate(ctx, pool, fs); err == nil {
		t.Fatal("bad migration applied")
	}
	_ = pool.QueryRow(ctx, `SELECT count(*) FROM t`).Scan(&rows)
	if rows != 2 {
		t.Fatalf("failed migration left %d rows", rows)
	}
	if _, err := pgkit.Connect(ctx, testkit.DatabaseURL(t), "Bad-Name", pgkit.Options{}); err == nil {
		t.Fatal("invalid schema name accepted")
	}
}

func TestUnavailable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&pgconn.PgError{Code: "53300"}, true}, // too_many_connections
		{fmt.Errorf("postgres: balance: %w", &pgconn.PgError{Code: "57P03"}), true},
		{&pgconn.PgError{Code: "08006"}, true},
		{&pgconn.PgError{Code: "23505"}, false},
		{&pgconn.PgError{Code: "42P01"}, false},
		{errors.New("boom"), false},
		{nil, false},
	} {
		if got := pgkit.Unavailable(tc.err); got != tc.want {
			t.Errorf("Unavailable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
	var ae *apierr.Error
	if err := pgkit.MapUnavailable(&pgconn.PgError{Code: "53300"}); !errors.As(err, &ae) || ae.Code != apierr.Unavailable {
		t.Errorf("MapUnavailable(53300) = %v, want an unavailable API error", err)
	}
	other := errors.New("other")
	if err := pgkit.MapUnavailable(other); err != other { //nolint:errorlint // identity is the point
		t.Errorf("MapUnavailable changed an unrelated error: %v", err)
	}
}
