package libvips

import (
	"image"
	"testing"
)

// MallocInUse sees libvips' pixel buffers: encoding a large picture
// allocates in the C heap, and what is freed is no longer counted.
func TestMallocInUse(t *testing.T) {
	Start()
	before := MallocInUse()
	if before <= 0 {
		t.Fatalf("C heap in use %d", before)
	}
	if _, err := EncodeJPEG(image.NewRGBA(image.Rect(0, 0, 2000, 2000)), 80); err != nil {
		t.Fatal(err)
	}
	Trim()
	if after := MallocInUse(); after > before+16<<20 {
		t.Fatalf("C heap in use %d after the encode, %d before: its buffers were kept", after, before)
	}
}
