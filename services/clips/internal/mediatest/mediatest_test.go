package mediatest_test

import (
	"context"
	"math"
	"testing"

	"hookline.dev/services/clips/internal/media"
	"hookline.dev/services/clips/internal/mediatest"
)

func TestSpeechSpans(t *testing.T) {
	mediatest.Require(t)
	path, spans := mediatest.Speech(t, t.TempDir(), "One sentence here. And a second, longer sentence follows it!", "en-us+f2", 140)
	if len(spans) != 2 || spans[0].Text != "One sentence here." || spans[1].Text != "And a second, longer sentence follows it!" {
		t.Fatalf("spans %+v", spans)
	}
	if spans[0].Start != 0 || spans[0].End <= 0.5 || math.Abs(spans[1].Start-spans[0].End-0.4) > 0.001 || spans[1].End <= spans[1].Start+1 {
		t.Errorf("spans %+v", spans)
	}
	info, err := (media.Tools{}).Probe(context.Background(), path)
	if err != nil || !info.HasAudio || math.Abs(info.Duration-spans[1].End-0.4) > 0.01 {
		t.Errorf("%+v %v, last sentence ends at %.2f", info, err, spans[1].End)
	}
}

func TestVideo(t *testing.T) {
	mediatest.Require(t)
	path := mediatest.Video(t, t.TempDir(), mediatest.VideoSpec{
		Width: 320, Height: 240, Scenes: []mediatest.Scene{{Colour: "red", Seconds: 1.5}, {Colour: "testsrc2", Seconds: 1}},
		Bursts: []float64{1}, BurstSeconds: 0.5,
	})
	info, err := (media.Tools{}).Probe(context.Background(), path)
	if err != nil || info.Width != 320 || info.Height != 240 || info.VideoCodec != "h264" || info.AudioCodec != "aac" || math.Abs(info.Duration-2.5) > 0.1 {
		t.Errorf("%+v %v", info, err)
	}
}
