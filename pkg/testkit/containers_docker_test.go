//go:build testcontainers

package testkit

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNoDockerFailsLoudly: with -tags testcontainers, an unset
// HOOKLINE_TEST_DATABASE_URL and a Docker host that does not answer, a test
// asking for the database fails, naming the cause; it does not skip.
func TestNoDockerFailsLoudly(t *testing.T) {
	if os.Getenv("TESTKIT_NEEDS_DATABASE") == "1" {
		DatabaseURL(t)
		return
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestNoDockerFailsLoudly$", "-test.v") //nolint:gosec // G204: this test binary itself
	cmd.Env = append(os.Environ(), "TESTKIT_NEEDS_DATABASE=1", EnvDatabaseURL+"=",
		// Port 1 on loopback: nothing answers. The properties file would
		// take precedence over DOCKER_HOST, so point HOME elsewhere.
		"DOCKER_HOST=tcp://127.0.0.1:1", "HOME="+t.TempDir(), "DOCKER_CONFIG="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the run without Docker passed:\n%s", out)
	}
	if !strings.Contains(string(out), "--- FAIL") || strings.Contains(string(out), "--- SKIP") ||
		!strings.Contains(string(out), "found no Docker engine") {
		t.Fatalf("want a failure naming the missing engine, got:\n%s", out)
	}
}
