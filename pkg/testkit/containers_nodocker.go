//go:build !testcontainers

package testkit

import "testing"

// containerAddr without the testcontainers build tag cannot start anything;
// it only says how to get a container-backed run: build with
// `-tags testcontainers` (e.g. `go test -tags testcontainers ./...`) to
// start dependencies in Docker (see containers_docker.go).
func containerAddr(t testing.TB, name string) string {
	t.Helper()
	t.Logf("testkit: a Docker engine is present but this binary was built without -tags testcontainers; %s stays unset (build with -tags testcontainers to start dependencies in Docker)", name)
	return ""
}
