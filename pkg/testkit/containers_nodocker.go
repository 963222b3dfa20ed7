//go:build !testcontainers

package testkit

import "testing"

// fromContainers without the testcontainers build tag starts nothing: the
// caller fails the test with instructions (see require), one of which is
// to build with `-tags testcontainers` (containers_docker.go).
func fromContainers(testing.TB, string) string { return "" }
