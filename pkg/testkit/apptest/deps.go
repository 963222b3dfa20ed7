package apptest

import (
	"io/fs"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/pkg/testkit"
)

// Database is a pool on a fresh schema named after name, with the
// migrations applied in order, for a test of an adapter or a use case
// that needs Postgres but not a whole service. It is closed when the test
// ends.
func Database(t testing.TB, name string, migrations ...fs.FS) *pgxpool.Pool {
	t.Helper()
	ctx := t.Context()
	pool, err := pgkit.Connect(ctx, testkit.DatabaseURL(t), testkit.Schema(t, name), pgkit.Options{MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	for _, m := range migrations {
		if err := pgkit.Migrate(ctx, pool, m); err != nil {
			t.Fatal(err)
		}
	}
	return pool
}

// Bus is a connection to a fresh NATS namespace, named client in the
// server's connection list; it is closed when the test ends.
func Bus(t testing.TB, client string) *messaging.Bus {
	t.Helper()
	nc, err := messaging.Connect(t.Context(), testkit.NATSURL(t), client)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	bus, err := messaging.NewBus(nc, testkit.Namespace(t))
	if err != nil {
		t.Fatal(err)
	}
	return bus
}
