package critique

import (
	"bytes"
	"image/jpeg"
	"slices"
	"testing"
	"time"
)

// BenchmarkCritique1280x720 is a whole critique of a 1280×720 JPEG
// thumbnail as the service decodes it, face detection included. It
// reports the median time per critique too (p50-ms).
func BenchmarkCritique1280x720(b *testing.B) {
	p, _ := poster(b, 1280, 720)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, p, &jpeg.Options{Quality: 90}); err != nil {
		b.Fatal(err)
	}
	img, err := jpeg.Decode(&buf)
	if err != nil {
		b.Fatal(err)
	}
	d, err := detector()
	if err != nil {
		b.Fatal(err)
	}
	var times []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		analyze(b, img, d.Detect(img), "gaming")
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2])/float64(time.Millisecond), "p50-ms")
}
