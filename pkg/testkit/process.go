package testkit

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// ServiceEnv is the environment of a service under test: its schema and
// HTTP address, the test Postgres and NATS (in namespace), the principal
// secret and warn-level logs; overrides are name, value pairs applied last.
func ServiceEnv(t testing.TB, schema, namespace, addr, secret string, overrides ...string) map[string]string {
	t.Helper()
	env := map[string]string{
		"HOOKLINE_DATABASE_URL":     DatabaseURL(t),
		"HOOKLINE_NATS_URL":         NATSURL(t),
		"HOOKLINE_NATS_NAMESPACE":   namespace,
		"HOOKLINE_DB_SCHEMA":        schema,
		"HOOKLINE_HTTP_ADDR":        addr,
		"HOOKLINE_PRINCIPAL_SECRET": secret,
		"HOOKLINE_LOG_LEVEL":        "warn",
	}
	for i := 0; i+1 < len(overrides); i += 2 {
		env[overrides[i]] = overrides[i+1]
	}
	return env
}

// Env is the bucket's part of a service's environment, as name, value
// pairs for ServiceEnv's overrides.
func (s S3) Env() []string {
	return []string{"HOOKLINE_S3_ENDPOINT", s.Endpoint, "HOOKLINE_S3_ACCESS_KEY", s.AccessKey,
		"HOOKLINE_S3_SECRET_KEY", s.SecretKey, "HOOKLINE_S3_BUCKET", s.Bucket}
}

// Client connects to MinIO as the bucket's owner, for tests that look at
// or plant objects. The bucket and everything in it are removed when the
// test ends; call Client before starting the service, so the removal runs
// after the service has stopped.
func (s S3) Client(t testing.TB) *minio.Client {
	t.Helper()
	c, err := minio.New(s.Endpoint, &minio.Options{Creds: credentials.NewStaticV4(s.AccessKey, s.SecretKey, ""), Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.RemoveBucketWithOptions(context.Background(), s.Bucket, minio.RemoveBucketOptions{ForceDelete: true})
	})
	return c
}

// StartProcess runs the binary bin as a process named name with the
// environment env (on top of the test's own), its output in a log file
// that is printed when the test fails. The process is interrupted and
// waited for when the test ends; a test may kill it earlier to simulate
// a crash.
func StartProcess(t testing.TB, name, bin string, env ...string) *exec.Cmd {
	t.Helper()
	return StartProcessOn(t, name, bin, nil, env...)
}

// StartProcessOn is StartProcess with ports the process inherits: each
// variable of ports (HOOKLINE_HTTP_ADDR, HOOKLINE_DEBUG_ADDR) is set to
// fd:N, the process's copy of that port's socket.
func StartProcessOn(t testing.TB, name, bin string, ports map[string]*Port, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(context.Background(), bin) // stopped by the cleanup below, or by the test
	cmd.Env = append(os.Environ(), env...)
	for _, k := range slices.Sorted(maps.Keys(ports)) {
		ports[k].Pass(cmd, k)
	}
	logf, err := os.OpenFile(filepath.Join(t.TempDir(), name+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600) //nolint:gosec // G304: the test's own temporary directory
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		if st, err := cmd.Process.Wait(); err == nil {
			t.Logf("process %s used %.2f CPU-s", name, (st.UserTime() + st.SystemTime()).Seconds())
		}
		_ = logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name()) //nolint:gosec // G304: the log file created above
			t.Logf("%s log:\n%s", name, b)
		}
	})
	return cmd
}

// EnvList turns an environment map into NAME=value entries.
func EnvList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// FacePhoto is pigo's sample photo of a real face (JPEG), read from the
// pinned module on disk: the test images of face detection, face crops
// and compositing. A missing module fails the test.
func FacePhoto(t testing.TB) []byte {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "go", "list", "-m", "-f", "{{.Dir}}", "github.com/esimov/pigo").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Fatalf("locating github.com/esimov/pigo: %v (run `go mod download` in services/assets)", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "testdata", "sample.jpg")) //nolint:gosec // G304: a file of the pinned module
	if err != nil {
		t.Fatal(err)
	}
	return b
}
