package service

import (
	"context"
	"image"
	"testing"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/media/vision/dlib"
	"hookline.dev/pkg/testkit"
	"hookline.dev/services/thumbnails/internal/edits/matte"
)

// countingRemover is the classical remover, counting its calls.
type countingRemover struct {
	matte.Classical
	calls int
}

func (c *countingRemover) Remove(ctx context.Context, img image.Image, faces []vision.Face) (*image.NRGBA, error) {
	c.calls++
	return c.Classical.Remove(ctx, img, faces)
}

// A saved face is cut out once per picture: the second use reads the
// cache, a new picture URL is cut out again, and the least recently used
// entry goes beyond the bound. A picture without a face has no cut-out.
func TestSavedFaceCutoutIsCached(t *testing.T) {
	det, err := dlib.Open("")
	if err != nil {
		t.Fatal(err)
	}
	photo := testkit.EvalPhoto(t, "astronaut.png")
	faces := det.Detect(photo)
	if len(faces) == 0 {
		t.Fatal("no face on the astronaut")
	}
	crop := vision.SquareCrop(photo, faces[0], 256)
	rm := &countingRemover{}
	s := &Service{Faces: det, Matte: rm, Cutouts: NewCutouts(2)}
	first, err := s.cutout(t.Context(), "face-1 a.jpg", crop)
	if err != nil || first == nil || first.Rect != image.Rect(0, 0, 256, 256) {
		t.Fatalf("cut-out %v, err %v", first, err)
	}
	if again, _ := s.cutout(t.Context(), "face-1 a.jpg", crop); again != first || rm.calls != 1 {
		t.Fatalf("second use: %d remover calls, same mask %v", rm.calls, again == first)
	}
	if _, err := s.cutout(t.Context(), "face-1 b.jpg", crop); err != nil || rm.calls != 2 {
		t.Fatalf("new picture: %d remover calls, err %v", rm.calls, err)
	}
	plain := image.NewRGBA(image.Rect(0, 0, 64, 64))
	if m, err := s.cutout(t.Context(), "face-2 c.jpg", plain); m != nil || err != nil || rm.calls != 2 {
		t.Fatalf("faceless picture: mask %v, err %v, %d calls", m, err, rm.calls)
	}
	if n := s.Cutouts.Len(); n != 2 {
		t.Fatalf("%d entries held, bound 2", n)
	}
	if _, err := s.cutout(t.Context(), "face-1 a.jpg", crop); err != nil || rm.calls != 3 {
		t.Fatalf("evicted entry: %d remover calls, err %v", rm.calls, err)
	}
}
