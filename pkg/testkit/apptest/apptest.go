// Package apptest runs a service under test the way its app tests use it:
// in-process through its Run, on a Postgres schema, a NATS namespace and,
// when asked, a bucket of its own. It calls the service over HTTP as the
// gateway does, with a signed principal; publishes events to it as their
// producers' outbox relays would; and reads what the service stored: its
// tables, its streams, its bucket. A service's harness_test.go adds only
// what is its own (its configuration, its fakes, its records).
//
// It is a package of its own, not part of testkit, because it is built on
// pkg/platform/messaging, whose own tests use testkit.
package apptest

import (
	"context"
	"maps"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/minio/minio-go/v7"

	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/pkg/testkit"
)

// Secret is the principal secret the services under test share with the
// callers that sign for them (Sign, and fakes that check principals).
const Secret = "test-principal-secret-0123456789abcdef"

// Config describes a service to start.
type Config struct {
	// Name names the service: the prefix of its schema, its log lines and
	// the test's NATS connection.
	Name string
	// Run is the service's entry point, as its main calls it.
	Run testkit.RunFunc
	// Bucket gives the service a bucket of its own (HOOKLINE_S3_*),
	// removed once the service has stopped.
	Bucket bool
	// Env is name, value pairs over testkit.ServiceEnv's environment: the
	// service's own settings, then the test's overrides.
	Env []string
}

// Service is a service under test. It runs until the test ends, unless the
// test stops it earlier.
type Service struct {
	T    testing.TB
	Name string
	// URL is the base URL of its HTTP API.
	URL string
	// Env is the environment it runs with. Restart reads it again, so a
	// test may change it in between.
	Env map[string]string
	// Schema is its database schema, and Pool a pool on that schema as
	// the tests' database user (who may read and write any table).
	Schema string
	Pool   *pgxpool.Pool
	// Bus is a connection to its NATS namespace.
	Bus *messaging.Bus
	// S3 is its bucket and Minio a client of it, when Config.Bucket asked
	// for one.
	S3    testkit.S3
	Minio *minio.Client
	// Client is the HTTP client of Do, Must and Fetch.
	Client *http.Client

	run  testkit.RunFunc
	port *testkit.Port
	stop func()
}

// Start runs the service described by cfg and waits until it is ready.
func Start(t testing.TB, cfg Config) *Service {
	t.Helper()
	s := &Service{T: t, Name: cfg.Name, run: cfg.Run, Client: &http.Client{Timeout: 60 * time.Second}}
	env := cfg.Env
	if cfg.Bucket {
		s.S3 = testkit.Bucket(t)
		s.Minio = s.S3.Client(t) // before the service: the bucket goes after it stops
		env = append(s.S3.Env(), env...)
	}
	s.port = testkit.ReservePort(t)
	s.URL = s.port.URL
	s.Env = testkit.ServiceEnv(t, testkit.Schema(t, cfg.Name), testkit.Namespace(t), s.port.Addr, Secret, env...)
	s.Schema = s.Env["HOOKLINE_DB_SCHEMA"]
	ctx := context.Background()
	nc, err := messaging.Connect(ctx, testkit.NATSURL(t), cfg.Name+"-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if s.Bus, err = messaging.NewBus(nc, s.Env["HOOKLINE_NATS_NAMESPACE"]); err != nil {
		t.Fatal(err)
	}
	s.Restart()
	// After the start: the service's migrations have made the tables.
	if s.Pool, err = pgkit.Connect(ctx, testkit.DatabaseURL(t), s.Schema, pgkit.Options{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Pool.Close)
	return s
}

// Stop stops the service and waits until it has; it does nothing when the
// service is not running.
func (s *Service) Stop() {
	if s.stop != nil {
		s.stop()
		s.stop = nil
	}
}

// Restart stops the service if it runs, then runs it again with Env and
// waits until it is ready. It listens on the port the harness holds for
// the whole test (Env's HOOKLINE_HTTP_ADDR names it), so URL stays.
func (s *Service) Restart() {
	s.T.Helper()
	s.Stop()
	s.stop = testkit.StartService(s.T, s.Name, s.run, s.EnvWith("HOOKLINE_HTTP_ADDR", s.port.InProcess(s.T)), s.URL+"/readyz")
}

// EnvWith is a copy of Env with name, value pairs changed: the environment
// of another process of the service (a worker, a second replica).
func (s *Service) EnvWith(kv ...string) map[string]string {
	env := maps.Clone(s.Env)
	for i := 0; i+1 < len(kv); i += 2 {
		env[kv[i]] = kv[i+1]
	}
	return env
}
