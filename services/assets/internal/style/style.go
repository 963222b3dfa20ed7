// Package style turns a set of reference images into a style profile: a
// small dominant-colour palette and a few global tone measurements. The
// assets service stores the profile with a style so that later generation
// (the local compositor or a hosted image model's prompt) can follow the
// look of the references without re-reading them.
package style

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
)

// PaletteSize is the number of swatches in a profile's palette when the
// references hold at least that many distinct colours.
const PaletteSize = 5

// MaxSamplesPerImage bounds the pixels read from one reference. A regular
// grid of this many samples estimates the colour distribution of a photo as
// well as every pixel does, and keeps ten 720p references far below the
// 300 ms budget.
const MaxSamplesPerImage = 20_000

// Errors returned by Analyze. Callers map both to a 400 that names the
// offending reference.
var (
	// ErrNoImages means Analyze was given no references at all.
	ErrNoImages = errors.New("style: no reference images")
	// ErrEmptyImage means a reference is nil, has no pixels, or has no
	// pixel that is at least half opaque. The wrapping error names its
	// zero-based index.
	ErrEmptyImage = errors.New("style: reference image has no visible pixels")
)

// Swatch is one palette colour and the share of the references it covers.
type Swatch struct {
	// Hex is the colour as lowercase "#rrggbb" in sRGB.
	Hex string
	// Weight is the fraction of the (equally weighted) references' pixels
	// that belong to this colour's cluster, 0..1.
	Weight float64
}

// Profile summarises the look of a set of references. Every reference
// counts equally, whatever its size, because a user uploading one large and
// one small image means both as examples.
//
// Pixels that are more than half transparent are ignored; the others are
// taken at their colour, ignoring alpha. "Luminance" below is relative
// luminance: Y = 0.2126 R + 0.7152 G + 0.0722 B on linearised sRGB, so
// black is 0, white is 1 and sRGB mid grey (#808080) is about 0.22.
type Profile struct {
	// Palette holds the dominant colours, found by k-means in CIELAB (D65)
	// so that clusters follow perceived rather than numeric colour
	// differences. It has PaletteSize swatches, fewer only when the
	// references contain fewer distinct colours. Weights sum to 1 and the
	// swatches are sorted by weight, largest first (ties by Hex).
	Palette []Swatch
	// Brightness is the mean luminance, 0 (black) .. 1 (white): the mean
	// over references of each reference's mean luminance.
	Brightness float64
	// Contrast is RMS contrast: the standard deviation of luminance within
	// a reference, averaged over references. 0 for a flat image; at most
	// 0.5, reached by an image half black and half white. It is measured
	// per reference so that a light and a dark reference do not add up to
	// a contrasty style.
	Contrast float64
	// Saturation is the mean HSV saturation, (max−min)/max of the sRGB
	// components (0 for black), 0 (greys) .. 1 (pure hues).
	Saturation float64
	// Warmth is the mean of (R−B)/255 on sRGB components, −1 (pure blue)
	// .. 1 (pure red); oranges and reds are positive, blues negative,
	// neutrals and greens near 0.
	Warmth float64
}

// Analyze computes the profile of imgs. seed fixes k-means' random
// initialisation: the same images and seed always give the same profile.
// It returns ErrNoImages for an empty slice and an error wrapping
// ErrEmptyImage, naming the index, for a reference with nothing to measure.
func Analyze(imgs []image.Image, seed int64) (Profile, error) {
	if len(imgs) == 0 {
		return Profile{}, ErrNoImages
	}
	var (
		p    Profile
		hist histogram
	)
	for i, img := range imgs {
		st, err := sampleImage(img, &hist)
		if err != nil {
			return Profile{}, fmt.Errorf("%w: image %d", err, i)
		}
		p.Brightness += st.brightness
		p.Contrast += st.contrast
		p.Saturation += st.saturation
		p.Warmth += st.warmth
	}
	n := float64(len(imgs))
	p.Brightness /= n
	p.Contrast /= n
	p.Saturation /= n
	p.Warmth /= n
	p.Palette = palette(hist.points(), seed)
	return p, nil
}

// imageStats are one reference's tone measurements.
type imageStats struct {
	brightness, contrast, saturation, warmth float64
}

// sampleImage reads a grid of at most MaxSamplesPerImage pixels of img,
// returns its tone measurements and adds its colours to hist as one image.
func sampleImage(img image.Image, hist *histogram) (imageStats, error) {
	if img == nil {
		return imageStats{}, ErrEmptyImage
	}
	b := img.Bounds()
	if b.Empty() {
		return imageStats{}, ErrEmptyImage
	}
	step := gridStep(b.Dx(), b.Dy())
	at := pixelReader(img)

	// Samples are gathered first so that luminance variance can be taken
	// around the known mean: the one-pass E[Y²]−E[Y]² form cancels
	// catastrophically and reports a tiny contrast for flat images.
	samples := make([]color.NRGBA, 0, (b.Dx()/step+1)*(b.Dy()/step+1))
	for y := b.Min.Y + gridStart(b.Dy(), step); y < b.Max.Y; y += step {
		for x := b.Min.X + gridStart(b.Dx(), step); x < b.Max.X; x += step {
			if c := at(x, y); c.A >= 128 {
				samples = append(samples, c)
			}
		}
	}
	if len(samples) == 0 {
		return imageStats{}, ErrEmptyImage
	}

	var sumY, sumS, sumW float64
	for _, c := range samples {
		sumY += luminance(c)
		sumS += hsvSaturation(c)
		sumW += float64(int(c.R)-int(c.B)) / 255
		hist.add(c)
	}
	n := float64(len(samples))
	mean := sumY / n
	var sumD2 float64
	for _, c := range samples {
		d := luminance(c) - mean
		sumD2 += d * d
	}
	hist.endImage()
	return imageStats{
		brightness: mean,
		contrast:   math.Sqrt(sumD2 / n),
		saturation: sumS / n,
		warmth:     sumW / n,
	}, nil
}

// gridStep returns the smallest sampling stride whose grid over a w×h image
// has at most MaxSamplesPerImage points.
func gridStep(w, h int) int {
	step := 1
	if px := w * h; px > MaxSamplesPerImage {
		// The square-root estimate is exact for large, squarish images;
		// the loop corrects it for thin ones, where partial rows add up.
		step = int(math.Sqrt(float64(px) / MaxSamplesPerImage))
	}
	for ceilDiv(w, step)*ceilDiv(h, step) > MaxSamplesPerImage {
		step++
	}
	return step
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// gridStart offsets the grid by half a stride so samples sit mid-cell, but
// never past the middle of a side shorter than the stride, which would
// leave a thin image with no samples at all.
func gridStart(side, step int) int { return min(step/2, side/2) }

// luminance is the relative luminance of c, 0..1.
func luminance(c color.NRGBA) float64 {
	return 0.2126*srgbToLinear8[c.R] + 0.7152*srgbToLinear8[c.G] + 0.0722*srgbToLinear8[c.B]
}

func hsvSaturation(c color.NRGBA) float64 {
	hi := max(c.R, c.G, c.B)
	if hi == 0 {
		return 0
	}
	return float64(hi-min(c.R, c.G, c.B)) / float64(hi)
}

// pixelReader returns a function giving the non-premultiplied colour at
// (x, y). Decoders produce a handful of concrete types; reading those
// directly avoids an interface allocation per pixel in image.Image.At.
func pixelReader(img image.Image) func(x, y int) color.NRGBA {
	switch m := img.(type) {
	case *image.YCbCr:
		return func(x, y int) color.NRGBA {
			yi, ci := m.YOffset(x, y), m.COffset(x, y)
			r, g, b := color.YCbCrToRGB(m.Y[yi], m.Cb[ci], m.Cr[ci])
			return color.NRGBA{r, g, b, 255}
		}
	case *image.NRGBA:
		return func(x, y int) color.NRGBA {
			p := m.Pix[m.PixOffset(x, y):]
			return color.NRGBA{p[0], p[1], p[2], p[3]}
		}
	case *image.RGBA:
		return func(x, y int) color.NRGBA {
			p := m.Pix[m.PixOffset(x, y):]
			return unpremultiply(uint32(p[0])*0x101, uint32(p[1])*0x101, uint32(p[2])*0x101, uint32(p[3])*0x101)
		}
	case *image.Gray:
		return func(x, y int) color.NRGBA {
			v := m.Pix[m.PixOffset(x, y)]
			return color.NRGBA{v, v, v, 255}
		}
	default:
		return func(x, y int) color.NRGBA {
			return unpremultiply(img.At(x, y).RGBA())
		}
	}
}

// unpremultiply converts 16-bit premultiplied components to 8-bit straight
// colour.
func unpremultiply(r, g, b, a uint32) color.NRGBA {
	switch a {
	case 0:
		return color.NRGBA{}
	case 0xffff:
		return color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 255} //nolint:gosec // G115: color.Color components are 16-bit, so >>8 fits in 8 bits
	}
	un := func(v uint32) uint8 { return uint8(min(0xffff, (v*0xffff+a/2)/a) >> 8) }
	return color.NRGBA{un(r), un(g), un(b), uint8(a >> 8)} //nolint:gosec // G115: color.Color alpha is 16-bit, so >>8 fits in 8 bits
}
