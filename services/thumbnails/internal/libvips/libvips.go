// Package libvips starts libvips for the whole service, configured in one
// place, and holds the libvips calls its image packages share. The
// generator (compose) and the edits (adjust) both decode and encode with
// it; govips ignores every Startup after the first, so a configuration
// spread over packages would be whichever ran first.
//
// libvips is configured for a service that works on several pictures at
// once on few cores: parallelism comes from requests, so each operation
// runs on one thread. Its memory is counted in the service's image memory
// budget (pkg/media/membudget): every libvips operation runs inside a request
// that acquired what its pictures take, libvips' share included, so
// libvips may keep nothing beyond them: its operation cache holds no
// operation, no byte and no file (every input is a new buffer, so it
// would never hit anyway).
//
// What libvips frees goes back to glibc's malloc, which keeps it in the
// arena of the thread that freed it: with an arena per thread (up to 8
// per core) and libvips' worker threads coming and going, a process that
// decoded a few 40 MP pictures kept hundreds of MiB it no longer used,
// outside any budget. Start caps the arenas at two, and Trim, run once
// the image work has stopped, hands the free pages back to the system.
package libvips

/*
#include <malloc.h>
*/
import "C"

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"sync"

	"github.com/davidbyttow/govips/v2/vips"
)

// mallocArenas is how many malloc arenas the process's C side may use:
// more would only keep more freed memory.
const mallocArenas = 2

// concurrency is how many threads one libvips operation may use.
const concurrency = 1

var startOnce sync.Once

// Start starts libvips with the service's configuration. It may be called
// any number of times, from anywhere: only the first call starts it. The
// service calls it at start-up; the packages that call libvips call it
// before their first call, so that neither a test nor a forgotten
// start-up leaves govips to start with its defaults.
func Start() {
	startOnce.Do(func() {
		C.mallopt(C.M_ARENA_MAX, mallocArenas)
		vips.LoggingSettings(nil, vips.LogLevelWarning)
		vips.Startup(&vips.Config{
			ConcurrencyLevel: concurrency,
			MaxCacheFiles:    0,
			MaxCacheMem:      0,
			MaxCacheSize:     0,
		})
	})
}

// Trim returns the C heap's free memory (libvips' freed pixel buffers)
// to the system. It walks every arena, so it is for quiet moments, after
// debug.FreeOSMemory has done the same for the Go heap.
func Trim() {
	C.malloc_trim(0)
}

// EncodeJPEG encodes an opaque picture at quality q (1..100), without
// metadata. The pixels reach libvips as an uncompressed PNG, the cheapest
// form govips takes in, and libjpeg-turbo encodes them, several times
// faster than Go's encoder at thumbnail sizes.
func EncodeJPEG(opaque *image.RGBA, q int) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(opaque.Pix)*3/4 + 64<<10)
	if err := stagePNG.Encode(&buf, opaque); err != nil {
		return nil, fmt.Errorf("libvips: stage picture: %w", err)
	}
	Start()
	ref, err := vips.LoadImageFromBuffer(buf.Bytes(), nil)
	if err != nil {
		return nil, fmt.Errorf("libvips: load staged picture: %w", err)
	}
	defer ref.Close()
	data, _, err := ref.ExportJpeg(&vips.JpegExportParams{StripMetadata: true, Quality: q})
	if err != nil {
		return nil, fmt.Errorf("libvips: encode JPEG: %w", err)
	}
	return data, nil
}

// stagePNG writes without compression: the PNG only carries pixels from
// Go to libvips in memory.
var stagePNG = png.Encoder{CompressionLevel: png.NoCompression}
