package media_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"hookline.dev/services/clips/internal/media"
	"hookline.dev/services/clips/internal/mediatest"
)

// A whole file decodes its whole length; the same file cut after its
// index (a download that ended early) still declares that length but
// decodes a fraction of it.
func TestAnalyzeTellsHowMuchDecodes(t *testing.T) {
	mediatest.Require(t)
	dir := t.TempDir()
	whole := mediatest.Video(t, dir, mediatest.VideoSpec{Width: 160, Height: 90, Scenes: scenes("testsrc2", 20.0)})
	tools := media.Tools{}
	for file, want := range map[string][2]float64{whole: {20, 20}, mediatest.Truncated(t, whole, dir, 0.1): {0, 5}} {
		info, err := tools.Probe(context.Background(), file)
		if err != nil || math.Abs(info.Duration-20) > 0.2 {
			t.Fatalf("probe: %+v %v; want the declared 20 s", info, err)
		}
		sig, err := tools.Analyze(context.Background(), file, info, nil)
		if err != nil {
			t.Fatal(err)
		}
		if sig.Decoded < want[0]-0.5 || sig.Decoded > want[1]+0.5 {
			t.Errorf("%s: %.2f s decoded, want %v", file, sig.Decoded, want)
		}
	}
}

// ffmpeg giving up on a picture it cannot allocate is a DecodeError
// naming ffmpeg's first complaint, not its last.
func TestAnalyzeUndecodablePicture(t *testing.T) {
	mediatest.Require(t)
	file := mediatest.HugePicture(t, t.TempDir())
	tools := media.Tools{}
	info, err := tools.Probe(context.Background(), file)
	if err != nil || !info.HasVideo {
		t.Fatalf("probe: %+v %v", info, err)
	}
	_, err = tools.Analyze(context.Background(), file, info, nil)
	var de *media.DecodeError
	if !errors.As(err, &de) || !errors.Is(err, media.ErrUndecodable) || de.Reason != "Picture size 16383x16383 is invalid" {
		t.Fatalf("err %v, want a DecodeError saying the picture size is invalid", err)
	}
	if strings.Contains(de.Reason, "@ 0x") {
		t.Errorf("the reason keeps ffmpeg's context: %q", de.Reason)
	}
}
