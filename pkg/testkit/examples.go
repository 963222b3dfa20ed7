package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// EnvWriteExamples is the one switch of the example generators: tests that
// write pictures for reviewers into a module's testdata/examples do so only
// when it is "1".
const EnvWriteExamples = "HOOKLINE_WRITE_EXAMPLES"

// ExamplesDir is the first call of a test that only writes examples: it
// skips the test unless HOOKLINE_WRITE_EXAMPLES=1, and otherwise returns
// testdata/examples/<parts…> of the module under test, created if missing.
func ExamplesDir(t testing.TB, parts ...string) string {
	t.Helper()
	if os.Getenv(EnvWriteExamples) != "1" {
		t.Skip("set " + EnvWriteExamples + "=1 to write the examples into testdata/examples")
	}
	return examplesDir(t, parts)
}

// ExamplesDirIfAsked is ExamplesDir for a test that checks something and
// writes examples on the side: without HOOKLINE_WRITE_EXAMPLES=1 it
// returns "" and the test goes on without writing them.
func ExamplesDirIfAsked(t testing.TB, parts ...string) string {
	t.Helper()
	if os.Getenv(EnvWriteExamples) != "1" {
		return ""
	}
	return examplesDir(t, parts)
}

func examplesDir(t testing.TB, parts []string) string {
	t.Helper()
	dir := filepath.Join(append([]string{moduleDir(t), "testdata", "examples"}, parts...)...)
	if err := os.MkdirAll(dir, 0o755); err != nil { //nolint:gosec // G301: examples are for reading
		t.Fatal(err)
	}
	return dir
}

// moduleDir is the directory of the go.mod above the test's package, the
// directory `go test` runs it in.
func moduleDir(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			t.Fatalf("testkit: no go.mod in %s or above", wd)
		}
	}
}
