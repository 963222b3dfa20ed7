package service

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"hookline.dev/pkg/contracts/credits"
	"hookline.dev/pkg/media/imageinput"
	"hookline.dev/pkg/media/membudget"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/services/thumbnails/internal/edits"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// checkedImages checks every URL as a w×h JPEG and decodes nothing: a
// decode fails with decodeErr.
type checkedImages struct {
	Images
	w, h      int
	decodeErr error
	decoded   int
}

func (c *checkedImages) Check(_ context.Context, _, _, rawURL string) (imageinput.Image, error) {
	return imageinput.Image{URL: rawURL, Width: c.w, Height: c.h, Format: "jpeg", DecodeBytes: int64(c.w * c.h * 3 / 2)}, nil
}

func (c *checkedImages) CheckAll(context.Context, string, string, []string) ([]imageinput.Image, error) {
	return nil, nil
}

func (c *checkedImages) Decode(context.Context, string, string, imageinput.Image) (imageinput.Image, error) {
	c.decoded++
	return imageinput.Image{}, c.decodeErr
}

// noReplays is a store in which no request ran before.
type noReplays struct{ Store }

func (noReplays) ThumbnailsByID(context.Context, string, []string) ([]thumbnail.Thumbnail, error) {
	return nil, nil
}

// countedCredits counts reservations and refuses them all.
type countedCredits struct{ reserved int }

func (c *countedCredits) Reserve(context.Context, credits.Request) ([]credits.Reservation, error) {
	c.reserved++
	return nil, errors.New("no billing in this test")
}

func (c *countedCredits) Refund(context.Context, string, ...credits.Reservation) error { return nil }

type compositor struct{ engine.Engine }

func (compositor) Name() string { return localEngine }

// replace is a paid edit (background-replace) of imageUrl u.
func replace(t *testing.T) (edits.Op, edits.Body) {
	t.Helper()
	for _, op := range edits.All() {
		if op.Name() == "background-replace" {
			url, prompt := "https://example.com/u.jpg", "a sunset beach"
			return op, &edits.BackgroundReplaceBody{ImageURL: &url, BackgroundPrompt: &prompt}
		}
	}
	t.Fatal("no background-replace")
	return nil, nil
}

func memoryService(t *testing.T, size int64, w, h int) (*Service, *checkedImages, *countedCredits) {
	t.Helper()
	b, err := membudget.New(size, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	imgs := &checkedImages{w: w, h: h, decodeErr: apierr.Field("imageUrl", "image data cannot be decoded")}
	cr := &countedCredits{}
	return &Service{Store: noReplays{}, EditImages: imgs, Credits: cr, Engine: compositor{}, Memory: b}, imgs, cr
}

var caller = principal.Principal{OrgID: "0b6d3c4e-8a1f-4c2d-9e7b-5a6f1d2c3b4a", KeyID: "k"}

// A paid edit that finds the memory taken waits the budget's wait, then
// is a 503 with Retry-After, before a picture is decoded or a credit
// reserved.
func TestEditWaitsThenAnswersBusyWithoutCharging(t *testing.T) {
	s, imgs, cr := memoryService(t, 1<<30, 100, 100)
	release, err := s.Memory.Acquire(t.Context(), 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	op, body := replace(t)
	_, err = s.Edit(t.Context(), caller, op, body)
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Code != apierr.Unavailable || ae.Details["retryAfter"] != int64(1) {
		t.Fatalf("err %v, want 503 with retryAfter", err)
	}
	if imgs.decoded != 0 || cr.reserved != 0 {
		t.Errorf("%d decodes, %d reservations before the memory was there", imgs.decoded, cr.reserved)
	}
}

// A picture whose edit needs more than the whole budget is a 400 naming
// its field at once.
func TestEditLargerThanTheBudgetIsRefused(t *testing.T) {
	s, imgs, cr := memoryService(t, 200<<20, 8000, 5000)
	op, body := replace(t)
	_, err := s.Edit(t.Context(), caller, op, body)
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Code != apierr.InvalidRequest {
		t.Fatalf("err %v, want 400", err)
	}
	if fields, _ := ae.Details["fields"].(map[string]string); !strings.Contains(fields["imageUrl"], "would need") {
		t.Errorf("fields %v", ae.Details["fields"])
	}
	if imgs.decoded != 0 || cr.reserved != 0 {
		t.Errorf("%d decodes, %d reservations", imgs.decoded, cr.reserved)
	}
}

// The memory an edit acquired is given back when it fails.
func TestEditGivesTheMemoryBack(t *testing.T) {
	s, imgs, _ := memoryService(t, 1<<30, 100, 100)
	op, body := replace(t)
	if _, err := s.Edit(t.Context(), caller, op, body); !apierr.Is(err, apierr.InvalidRequest) {
		t.Fatalf("err %v, want the decode's 400", err)
	}
	if imgs.decoded != 1 || s.Memory.InUse() != 0 || s.Memory.TakePeak() == 0 {
		t.Errorf("%d decodes; %d bytes still held", imgs.decoded, s.Memory.InUse())
	}
}
