package testkit

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// builds holds one build per set of main packages, shared by the tests of
// a test binary.
var builds sync.Map // the packages, space-separated → *build

type build struct {
	once sync.Once
	dir  string
	err  error
}

// Build compiles the main package pkg (an import path such as
// hookline.dev/services/billing/cmd/billing) once per test binary and
// returns the binary's path. It builds without the race detector: the
// binary runs beside the code under test (a counterpart service, or the
// service itself as a process a test kills), the in-process tests cover
// the same code with it, and it must start quickly.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	return filepath.Join(BuildAll(t, pkg), path.Base(pkg))
}

// BuildAll is Build for several main packages at once (one go build, which
// links them side by side): it returns the directory that holds each
// binary under its package's last element. A test binary that starts its
// services anew in every test links them once instead of in every test.
// RemoveBuilds deletes the directories.
func BuildAll(t testing.TB, pkgs ...string) string {
	t.Helper()
	v, _ := builds.LoadOrStore(strings.Join(pkgs, " "), &build{})
	b := v.(*build)
	b.once.Do(func() {
		b.dir, b.err = os.MkdirTemp("", "hookline-bin")
		if b.err != nil {
			return
		}
		args := append([]string{"build", "-o", b.dir + "/"}, pkgs...)
		out, err := exec.CommandContext(context.Background(), "go", args...).CombinedOutput() //nolint:gosec // G204: package paths chosen by the test
		if err != nil {
			b.err = fmt.Errorf("build %s: %w: %s", strings.Join(pkgs, " "), err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.dir
}

// RemoveBuilds deletes what Build and BuildAll built; a TestMain calls it
// after m.Run.
func RemoveBuilds() {
	builds.Range(func(_, v any) bool {
		if d := v.(*build).dir; d != "" {
			_ = os.RemoveAll(d)
		}
		return true
	})
}
