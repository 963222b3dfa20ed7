package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"hookline.dev/pkg/testkit"
)

// TestThirdPartyClients runs scripts/clients/run.sh against the stack:
// clients generated from the served document by oapi-codegen, ogen,
// @hey-api/openapi-ts and openapi-typescript are compiled and make real
// calls; the official MCP TypeScript SDK and the inspector CLI call /mcp;
// standardwebhooks verifies a delivery. The tools are installed by
// scripts/test-clients.sh (make test-clients), which sets
// HOOKLINE_CLIENTS_NPM; without it the test is skipped.
func TestThirdPartyClients(t *testing.T) {
	npm := os.Getenv("HOOKLINE_CLIENTS_NPM")
	if npm == "" {
		t.Skip("run by make test-clients, which installs the third-party tools")
	}
	s := startStack(t)
	s.startWebhooks(testkit.Schema(t, "e2e_clients_webhooks"))
	_, key := s.newOrg("pro")
	s.waitTotal(key, 500)

	script, err := filepath.Abs("../scripts/clients/run.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), script)
	cmd.Env = append(os.Environ(), "HOOKLINE_BASE_URL="+s.base, "HOOKLINE_API_KEY="+key)
	if os.Getenv("HOOKLINE_CLIENTS_WORK") == "" {
		cmd.Env = append(cmd.Env, "HOOKLINE_CLIENTS_WORK="+t.TempDir())
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	for lines.Scan() {
		t.Log(lines.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("scripts/clients/run.sh: %v", err)
	}
}
