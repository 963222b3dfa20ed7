package testkit

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sync"
	"testing"
)

// builds holds one build per main package, shared by the tests of a test
// binary.
var builds sync.Map // import path → *build

type build struct {
	once sync.Once
	bin  string
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
	v, _ := builds.LoadOrStore(pkg, &build{})
	b := v.(*build)
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "hookline-bin")
		if err != nil {
			b.err = err
			return
		}
		b.bin = filepath.Join(dir, path.Base(pkg))
		out, err := exec.CommandContext(context.Background(), "go", "build", "-o", b.bin, pkg).CombinedOutput() //nolint:gosec // G204: a package path chosen by the test
		if err != nil {
			b.err = fmt.Errorf("build %s: %w: %s", pkg, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.bin
}
