package imageinput

import (
	"context"
	"fmt"

	"golang.org/x/sync/semaphore"

	"hookline.dev/pkg/imagecheck"
)

// DefaultDecodeBudget is the process-wide decode budget when a Source has
// none: two images at the per-image limit. Decoding is CPU-bound, so on
// the few cores a service gets more parallel decodes would not finish
// sooner, only hold more memory.
const DefaultDecodeBudget = 2 * imagecheck.MaxDecodeBytes

// DecodeBudget bounds the memory held by the decodes in progress, in
// bytes as estimated by imagecheck.Header.DecodeBytes: a decode waits
// until its bytes fit. One per process bounds the whole process, however
// many requests decode at once.
type DecodeBudget struct {
	sem *semaphore.Weighted
}

// NewDecodeBudget returns a budget of n bytes. n must be at least
// imagecheck.MaxDecodeBytes, so every accepted image fits on its own.
func NewDecodeBudget(n int64) (*DecodeBudget, error) {
	if n < imagecheck.MaxDecodeBytes {
		return nil, fmt.Errorf("imageinput: decode budget %d bytes is below one image's limit of %d", n, int64(imagecheck.MaxDecodeBytes))
	}
	return &DecodeBudget{sem: semaphore.NewWeighted(n)}, nil
}

var defaultBudget, _ = NewDecodeBudget(DefaultDecodeBudget)

func (s *Source) budget() *DecodeBudget {
	if s.Budget != nil {
		return s.Budget
	}
	return defaultBudget
}

// acquire waits until n bytes fit in the budget or ctx ends.
func (b *DecodeBudget) acquire(ctx context.Context, n int64) (release func(), err error) {
	n = max(n, 1)
	if err := b.sem.Acquire(ctx, n); err != nil {
		return nil, err
	}
	return func() { b.sem.Release(n) }, nil
}
