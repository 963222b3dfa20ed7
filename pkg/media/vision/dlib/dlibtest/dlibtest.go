// Package dlibtest shares one dlib model among the tests of a test
// binary: the landmark model takes about a second and 100 MB to load, and
// a Model is safe for concurrent use.
package dlibtest

import (
	"sync"
	"testing"

	"hookline.dev/pkg/media/vision/dlib"
)

var model = sync.OnceValues(func() (*dlib.Model, error) { return dlib.Open("") })

// Model is the process's dlib model (Debian's landmark model); a test
// fails when it cannot be loaded.
func Model(t testing.TB) *dlib.Model {
	t.Helper()
	m, err := model()
	if err != nil {
		t.Fatal(err)
	}
	return m
}
