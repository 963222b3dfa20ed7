package pgkit_test

import (
	"context"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/pkg/testkit"
)

// serviceRole runs deploy/postgres/service-role.sh (the script make up and
// docker compose use) and returns a database URL that logs in as the role.
func serviceRole(t *testing.T, admin, role, schema string) string {
	t.Helper()
	cmd := exec.Command("../../../deploy/postgres/service-role.sh", admin, role, schema)
	cmd.Env = append(os.Environ(), "HOOKLINE_ROLE_PASSWORD=pw-"+role)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("service-role.sh %s %s: %v\n%s", role, schema, err, out)
	}
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(role, "pw-"+role)
	return u.String()
}

// TestServiceRoleOwnsOnlyItsSchema: a service's role migrates its own
// schema, including one an older stack created as another role, and gets
// permission denied on another service's schema.
func TestServiceRoleOwnsOnlyItsSchema(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	admin := testkit.DatabaseURL(t)
	suffix := testkit.Suffix()
	roleA, roleB := "hookline_ta"+suffix, "hookline_tb"+suffix
	schemaA, schemaB := testkit.Schema(t, "role_a"), testkit.Schema(t, "role_b")
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), admin)
		if err != nil {
			t.Logf("drop roles: %v", err)
			return
		}
		defer func() { _ = c.Close(context.Background()) }()
		for _, r := range []string{roleA, roleB} {
			id := pgx.Identifier{r}.Sanitize()
			if _, err := c.Exec(context.Background(), "DROP OWNED BY "+id+" CASCADE; DROP ROLE "+id); err != nil {
				t.Logf("drop role %s: %v", r, err)
			}
		}
	})

	// Schema A as an older stack left it: a table owned by the admin role.
	adminPool, err := pgkit.Connect(ctx, admin, schemaA, pgkit.Options{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = adminPool.Exec(ctx, `CREATE TABLE legacy (id int PRIMARY KEY)`)
	adminPool.Close()
	if err != nil {
		t.Fatal(err)
	}

	urlA := serviceRole(t, admin, roleA, schemaA)
	urlB := serviceRole(t, admin, roleB, schemaB)
	serviceRole(t, admin, roleB, schemaB) // idempotent

	open := func(u, schema string) func(sql string) error {
		pool, err := pgkit.Connect(ctx, u, schema, pgkit.Options{MaxConns: 2})
		if err != nil {
			t.Fatalf("connect to %s: %v", schema, err)
		}
		t.Cleanup(pool.Close)
		return func(sql string) error { _, err := pool.Exec(ctx, sql); return err }
	}
	asA, asB := open(urlA, schemaA), open(urlB, schemaB)
	for _, sql := range []string{
		`CREATE TABLE IF NOT EXISTS secrets (v text)`,
		`INSERT INTO secrets VALUES ('mine')`,
		`INSERT INTO legacy VALUES (1)`, // taken over from the admin role
		`CREATE FUNCTION one() RETURNS int LANGUAGE sql AS 'SELECT 1'`,
	} {
		if err := asA(sql); err != nil {
			t.Fatalf("role A in its own schema: %s: %v", sql, err)
		}
	}
	if err := asB(`CREATE TABLE secrets (v text)`); err != nil {
		t.Fatalf("role B in its own schema: %v", err)
	}

	a, b := pgx.Identifier{schemaA}.Sanitize(), pgx.Identifier{schemaB}.Sanitize()
	for who, try := range map[string]func(string) error{"A": asA, "B": asB} {
		other := b
		if who == "B" {
			other = a
		}
		for _, sql := range []string{
			`SELECT * FROM ` + other + `.secrets`,
			`INSERT INTO ` + other + `.secrets VALUES ('theirs')`,
			`CREATE TABLE ` + other + `.planted (v text)`,
		} {
			var pgErr *pgconn.PgError
			if err := try(sql); !errors.As(err, &pgErr) || pgErr.Code != "42501" {
				t.Errorf("role %s: %s: err %v, want permission denied (42501)", who, sql, err)
			}
		}
	}
}
