// Package testkit gives integration tests real dependencies: Postgres,
// NATS JetStream and MinIO at the HOOKLINE_TEST_* addresses that `make test`
// provides. Each test gets its own Postgres schema, NATS namespace and
// bucket, so packages can run in parallel against one set of servers.
// A test whose dependency is missing is skipped with instructions, so
// `go test ./...` with no server running passes or skips with a reason;
// under `make test` (HOOKLINE_TEST_REQUIRE=1) it fails instead, so a run
// that promises everything cannot pass by skipping.
package testkit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Variables read by the kit.
const (
	EnvDatabaseURL = "HOOKLINE_TEST_DATABASE_URL"
	EnvNATSURL     = "HOOKLINE_TEST_NATS_URL"
	EnvS3Endpoint  = "HOOKLINE_TEST_S3_ENDPOINT"
	EnvS3AccessKey = "HOOKLINE_TEST_S3_ACCESS_KEY"
	EnvS3SecretKey = "HOOKLINE_TEST_S3_SECRET_KEY" //nolint:gosec // G101: the name of an environment variable, not a credential
	// EnvRequire, when set (scripts/test.sh sets it), makes a missing
	// dependency fail the test instead of skipping it.
	EnvRequire = "HOOKLINE_TEST_REQUIRE"
)

// require returns the value of an environment variable, or ends the test
// (Missing).
func require(t testing.TB, name string) string {
	t.Helper()
	if v := os.Getenv(name); v != "" {
		return v
	}
	if v := fromContainers(t, name); v != "" {
		return v
	}
	Missing(t, name+" is not set: run the tests with `make test`, which starts Postgres, NATS JetStream and MinIO and sets HOOKLINE_TEST_*; or `eval \"$(scripts/deps.sh start)\"`; or, with a Docker engine, build with -tags testcontainers (`make test-containers`)")
	return ""
}

// Missing ends a test that cannot run here because something outside it
// is missing (a server, a tool): a skip that says why, or a failure when
// EnvRequire is set.
func Missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv(EnvRequire) != "" {
		t.Fatalf("%s (%s is set: nothing may be skipped)", why, EnvRequire)
	}
	t.Skip(why)
}

// Suffix returns a short random lowercase identifier for names that must
// not collide between concurrently running tests.
func Suffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// DatabaseURL is the test Postgres URL.
func DatabaseURL(t testing.TB) string { return require(t, EnvDatabaseURL) }

// NATSURL is the test NATS URL (JetStream enabled).
func NATSURL(t testing.TB) string { return require(t, EnvNATSURL) }

// Schema creates a fresh schema for the test and drops it afterwards.
func Schema(t testing.TB, prefix string) string {
	t.Helper()
	url := DatabaseURL(t)
	name := strings.ToLower(prefix) + "_t" + Suffix()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("testkit: connect postgres at %s: %v", url, err)
	}
	defer func() { _ = conn.Close(ctx) }()
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("testkit: create schema: %v", err)
	}
	t.Cleanup(func() {
		if os.Getenv("HOOKLINE_TEST_KEEP") != "" {
			t.Logf("testkit: keeping schema %s", name)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Logf("testkit: drop schema %s: %v", name, err)
			return
		}
		defer func() { _ = c.Close(ctx) }()
		if _, err := c.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
			t.Logf("testkit: drop schema %s: %v", name, err)
		}
	})
	return name
}

// Namespace returns a NATS namespace unique to the test; services and
// messaging helpers given it prefix their subjects and streams with it.
func Namespace(t testing.TB) string {
	t.Helper()
	url := NATSURL(t)
	ns := "t" + Suffix()
	t.Cleanup(func() { deleteStreams(t, url, strings.ToUpper(ns)+"_") })
	return ns
}

// deleteStreams removes the streams a test's namespace created, so a long
// test run does not leave JetStream with thousands of idle streams.
func deleteStreams(t testing.TB, url, prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Logf("testkit: clean up streams: %v", err)
		return
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return
	}
	names := js.StreamNames(ctx)
	var doomed []string
	for name := range names.Name() {
		if strings.HasPrefix(name, prefix) {
			doomed = append(doomed, name)
		}
	}
	for _, name := range doomed {
		if err := js.DeleteStream(ctx, name); err != nil {
			t.Logf("testkit: delete stream %s: %v", name, err)
		}
	}
}

// S3 describes a test bucket.
type S3 struct {
	Endpoint, AccessKey, SecretKey, Bucket string
}

// Bucket returns MinIO credentials and a bucket name unique to the test.
// The bucket is created by the code under test (EnsureBucket).
func Bucket(t testing.TB) S3 {
	t.Helper()
	return S3{
		Endpoint:  require(t, EnvS3Endpoint),
		AccessKey: require(t, EnvS3AccessKey),
		SecretKey: require(t, EnvS3SecretKey),
		Bucket:    "hl-t" + Suffix(),
	}
}

// Getenv builds a getenv function over vars, falling back to nothing else,
// so a service under test sees exactly the configuration the test chose.
func Getenv(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// WaitHTTP polls url until it answers 200 or the deadline passes.
func WaitHTTP(t testing.TB, url string, within time.Duration) {
	t.Helper()
	waitHTTP(t, url, within, nil)
}

// waitHTTP is WaitHTTP that gives up as soon as r, the server behind url
// (nil: not ours to watch), has exited.
func waitHTTP(t testing.TB, url string, within time.Duration, r *running) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		resp, err := httpGet(url)
		if err == nil && resp == 200 {
			return
		}
		if r != nil {
			if gone, rerr := r.exited(); gone {
				t.Fatalf("testkit: %s exited before %s was ready: %v", r.name, url, rerr)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("testkit: %s not ready after %s (last: status %d, err %v)", url, within, resp, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Eventually polls cond until it holds or the deadline passes. It polls
// every 10 ms at first and backs off to every 100 ms: a condition that
// holds soon is seen at once, and a long wait (a render, a retry) does not
// spend the cores it waits for on polling, each poll of an end-to-end
// test being a request through the gateway checked against the OpenAPI
// document.
func Eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	pause := 10 * time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("testkit: %s did not happen within %s", what, within)
		}
		time.Sleep(pause)
		pause = min(2*pause, 100*time.Millisecond)
	}
}
