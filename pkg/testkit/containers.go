package testkit

import (
	"os"
	"testing"
)

// fromContainers is where testcontainers-go would start a dependency when a
// Docker engine is present. Without one it returns "" and the caller fails
// with instructions.
func fromContainers(t testing.TB, name string) string {
	t.Helper()
	if _, err := os.Stat("/var/run/docker.sock"); err != nil {
		return ""
	}
	return containerAddr(t, name)
}
