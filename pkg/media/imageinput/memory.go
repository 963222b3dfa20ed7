package imageinput

import (
	"errors"
	"fmt"
	"math"
	"time"

	"hookline.dev/pkg/media/imagecheck"
	"hookline.dev/pkg/media/membudget"
	"hookline.dev/pkg/platform/apierr"
)

// MemoryError is the client's answer when n bytes of a process's image
// memory budget of size bytes could not be acquired for the picture (or
// the pictures) of field: a picture that needs more than the whole budget
// is a 400 naming field, since it could never be processed; a budget that
// stayed full is a 503 unavailable whose details.retryAfter (seconds) the
// transport also sends as Retry-After. Any other error (the context's) is
// returned as it is.
func MemoryError(field string, n, size int64, err error) error {
	var busy *membudget.BusyError
	switch {
	case errors.Is(err, membudget.ErrTooLarge):
		return apierr.Field(field, fmt.Sprintf("processing this picture would need %d MB of memory; this service processes at most %d MB of pictures at once",
			n/1_000_000, size/1_000_000))
	case errors.As(err, &busy):
		retry := max(1, int64(math.Ceil(busy.RetryAfter.Seconds())))
		return apierr.Wrap(apierr.Unavailable, fmt.Sprintf("the service is busy processing other pictures; retry after %d s", retry), err).
			With("retryAfter", retry)
	}
	return err
}

// NewBudget returns a process's image memory budget of size bytes whose
// acquisitions wait at most wait. It must hold at least one picture's
// decode (imagecheck.MaxDecodeBytes): a smaller one would refuse pictures
// that every other check accepts.
func NewBudget(size int64, wait time.Duration) (*membudget.Budget, error) {
	if size < imagecheck.MaxDecodeBytes {
		return nil, fmt.Errorf("imageinput: an image memory budget of %d MB is below one picture's decode of %d MB",
			size/1_000_000, imagecheck.MaxDecodeBytes/1_000_000)
	}
	return membudget.New(size, wait)
}
