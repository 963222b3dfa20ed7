// Package pgkit connects a service to its own Postgres schema and applies
// the service's embedded migrations. Every connection of a pool has
// search_path set to the schema, so SQL in services names no schema.
package pgkit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"hookline.dev/pkg/platform/apierr"
)

var schemaName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// Options tune a pool; zero values keep pgx defaults. A pool never keeps
// idle connections open for their own sake (MinConns is pgx's 0): each one
// counts against the server's max_connections.
type Options struct {
	MaxConns int32
	// MaxConnIdleTime closes connections idle this long (pgx: 30 min).
	MaxConnIdleTime time.Duration
}

// Connect opens a pool whose connections use schema, creating the schema
// when it does not exist.
func Connect(ctx context.Context, url, schema string, opt Options) (*pgxpool.Pool, error) {
	if !schemaName.MatchString(schema) {
		return nil, fmt.Errorf("pgkit: invalid schema name %q", schema)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("pgkit: parse url: %w", err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	cfg.ConnConfig.Tracer = newQueryTracer(schema)
	if opt.MaxConns > 0 {
		cfg.MaxConns = opt.MaxConns
	}
	if opt.MaxConnIdleTime > 0 {
		cfg.MaxConnIdleTime = opt.MaxConnIdleTime
		// Idle connections are closed by the health check, so it must run
		// at least that often.
		cfg.HealthCheckPeriod = min(cfg.HealthCheckPeriod, opt.MaxConnIdleTime)
	}
	if err := ensureSchema(ctx, cfg.ConnConfig, schema); err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgkit: connect: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgkit: ping: %w", err)
	}
	return pool, nil
}

func ensureSchema(ctx context.Context, cc *pgx.ConnConfig, schema string) error {
	conn, err := pgx.ConnectConfig(ctx, cc.Copy())
	if err != nil {
		return fmt.Errorf("pgkit: connect: %w", err)
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	// Concurrent first starts race on CREATE SCHEMA IF NOT EXISTS; the
	// advisory lock makes the check-and-create atomic.
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtext('hookline.schema.' || $1))`, schema); err != nil {
		return fmt.Errorf("pgkit: lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtext('hookline.schema.' || $1))`, schema) //nolint:errcheck // the connection closes right after
	if _, err := conn.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{schema}.Sanitize()); err != nil {
		return fmt.Errorf("pgkit: create schema %s: %w", schema, err)
	}
	return nil
}

// Migrate applies, in name order, every NNNN_name.sql file of migrations
// not yet recorded in the schema's schema_migrations table. Each file runs
// in its own transaction; an advisory lock keeps replicas from racing.
func Migrate(ctx context.Context, pool *pgxpool.Pool, migrations fs.FS) error {
	names, err := fs.Glob(migrations, "*.sql")
	if err != nil {
		return fmt.Errorf("pgkit: list migrations: %w", err)
	}
	sort.Strings(names)
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("pgkit: acquire: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtext('hookline.migrate.' || current_schema()))`); err != nil {
		return fmt.Errorf("pgkit: migration lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtext('hookline.migrate.' || current_schema()))`) //nolint:errcheck // released with the session anyway
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version text PRIMARY KEY,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return fmt.Errorf("pgkit: migrations table: %w", err)
	}
	for _, name := range names {
		version := strings.TrimSuffix(name, ".sql")
		var done bool
		if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`, version).Scan(&done); err != nil {
			return fmt.Errorf("pgkit: check %s: %w", version, err)
		}
		if done {
			continue
		}
		sql, err := fs.ReadFile(migrations, name)
		if err != nil {
			return fmt.Errorf("pgkit: read %s: %w", name, err)
		}
		err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, string(sql)); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, version)
			return err
		})
		if err != nil {
			return fmt.Errorf("pgkit: apply %s: %w", name, err)
		}
	}
	return nil
}

// InTx runs fn in a transaction, committing when it returns nil.
func InTx(ctx context.Context, pool *pgxpool.Pool, fn func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, pool, fn)
}

// IsUniqueViolation reports a unique_violation (23505), optionally on a
// named constraint.
func IsUniqueViolation(err error, constraint string) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "23505" {
		return false
	}
	return constraint == "" || pe.ConstraintName == constraint
}

// Unavailable reports whether err means the database cannot serve now
// rather than that the request is wrong: the server refused the connection
// (too_many_connections 53300 and the rest of class 53, insufficient
// resources; cannot_connect_now 57P03 while it starts or stops), the
// session was ended by an administrator or a crash (57P01, 57P02), a
// connection exception (class 08), or no connection could be made at all.
// Such failures pass once load or the outage does, so callers answer 503,
// never 500.
func Unavailable(err error) bool {
	if ce := (*pgconn.ConnectError)(nil); errors.As(err, &ce) {
		return true
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	return strings.HasPrefix(pe.Code, "53") || strings.HasPrefix(pe.Code, "08") ||
		pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
}

// MapUnavailable turns an Unavailable error into the API's 503
// (apierr.Unavailable, the cause kept for logs) and returns any other error
// unchanged: it is every service's error mapper's database clause.
func MapUnavailable(err error) error {
	if err != nil && Unavailable(err) {
		return apierr.Wrap(apierr.Unavailable, "the database is busy or unreachable; retry later", err)
	}
	return err
}

// Page runs a list's count and one page of it in one round trip: countSQL
// takes args, pageSQL takes args followed by offset and limit. It returns
// the page (nil when empty) and the list's total.
func Page[T any](ctx context.Context, pool *pgxpool.Pool, countSQL, pageSQL string, args []any, offset, limit int, scan func(pgx.Row) (T, error)) ([]T, int, error) {
	var total int
	var items []T
	b := &pgx.Batch{}
	b.Queue(countSQL, args...).QueryRow(func(r pgx.Row) error { return r.Scan(&total) })
	b.Queue(pageSQL, append(args, offset, limit)...).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			it, err := scan(rows)
			if err != nil {
				return err
			}
			items = append(items, it)
		}
		return rows.Err()
	})
	if err := pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, 0, fmt.Errorf("pgkit: list: %w", err)
	}
	return items, total, nil
}

// One scans the single row of a query with scan. A missing row is
// notFound, the domain's error for it; any other failure is wrapped as a
// database error.
func One[T any](row pgx.Row, scan func(pgx.Row) (T, error), notFound error) (T, error) {
	v, err := scan(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return v, notFound
	}
	if err != nil {
		return v, fmt.Errorf("postgres: %w", err)
	}
	return v, nil
}

// Querier runs a query: a pool, a connection or a transaction.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// All runs a query and scans each of its rows with scan. A failure is
// wrapped as a database error that says what was read.
func All[T any](ctx context.Context, db Querier, what string, scan func(pgx.Row) (T, error), sql string, args ...any) ([]T, error) {
	rows, err := db.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", what, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (T, error) { return scan(r) })
	if err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", what, err)
	}
	return out, nil
}

// Scalar scans a row of one column, for All.
func Scalar[T any](row pgx.Row) (T, error) {
	var v T
	err := row.Scan(&v)
	return v, err
}
