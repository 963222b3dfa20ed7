// Package onnxrt shares the process's ONNX Runtime environment between
// the models that run on it (thumbnails' matting model, clips' speech
// model). onnxruntime_go loads the shared library once per process and
// keeps one environment, so every model acquires it and the last release
// destroys it.
package onnxrt

import (
	"fmt"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// Version is the ONNX Runtime release whose C API onnxruntime_go is
// built for; scripts/deps.sh unpacks its library from onnxruntime-node.
const Version = "1.24.1"

var env struct {
	sync.Mutex
	library string
	users   int
}

// Acquire loads ONNX Runtime from libraryPath (libonnxruntime.so.1 from
// the onnxruntime-node npm package, of Version) unless it is loaded
// already, and counts one more user. It fails when the library cannot be
// loaded, or when another library was loaded before: a process holds one.
// Each successful Acquire must be matched by a Release.
func Acquire(libraryPath string) error {
	env.Lock()
	defer env.Unlock()
	if env.users > 0 {
		if env.library != libraryPath {
			return fmt.Errorf("onnxruntime is already loaded from %s", env.library)
		}
		env.users++
		return nil
	}
	ort.SetSharedLibraryPath(libraryPath)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		return fmt.Errorf("load onnxruntime from %s: %w", libraryPath, err)
	}
	env.library, env.users = libraryPath, 1
	return nil
}

// Release counts one user less and destroys the environment when none is
// left.
func Release() {
	env.Lock()
	defer env.Unlock()
	env.users--
	if env.users == 0 {
		// Nothing is left to use the environment; the error could only
		// say it was not initialised.
		_ = ort.DestroyEnvironment()
	}
}
