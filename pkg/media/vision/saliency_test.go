package vision

import (
	"image"
	"image/color"
	"testing"
)

// A bright square on a plain background is where the eye goes.
func TestSaliencyFindsTheOddRegion(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 1280, 720))
	for y := range 720 {
		for x := range 1280 {
			c := color.RGBA{R: 40, G: 60, B: 90, A: 255}
			if x >= 900 && x < 1100 && y >= 100 && y < 300 {
				c = color.RGBA{R: 250, G: 220, B: 40, A: 255}
			}
			img.Set(x, y, c)
		}
	}
	sal := Saliency(img)
	var in, out float64
	var nin, nout int
	for i, v := range sal {
		x, y := (i%SaliencySize)*1280/SaliencySize, (i/SaliencySize)*720/SaliencySize
		if x >= 860 && x < 1140 && y >= 60 && y < 340 {
			in, nin = in+v, nin+1
		} else {
			out, nout = out+v, nout+1
		}
	}
	if in, out := in/float64(nin), out/float64(nout); in <= 5*out {
		t.Errorf("mean saliency around the square %.3f, elsewhere %.3f", in, out)
	}
}
