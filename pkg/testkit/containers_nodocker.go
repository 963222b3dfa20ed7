//go:build !testcontainers

package testkit

import "testing"

// containerAddr without the testcontainers build tag cannot start anything;
// it says how to get a container-backed run.
func containerAddr(t testing.TB, name string) string {
	t.Helper()
	t.Logf("testkit: a Docker engine is present but this binary was built without -tags testcontainers; %s stays unset", name)
	return ""
}
