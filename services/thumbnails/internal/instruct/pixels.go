package instruct

import (
	"image"
	"image/color"
)

func clamp8(v float64) uint8 {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return uint8(v + 0.5)
}

// eachRGB rewrites every pixel's colour channels with f.
func eachRGB(m *image.NRGBA, f func(r, g, b float64) (float64, float64, float64)) {
	for i := 0; i < len(m.Pix); i += 4 {
		r, g, b := f(float64(m.Pix[i]), float64(m.Pix[i+1]), float64(m.Pix[i+2]))
		m.Pix[i], m.Pix[i+1], m.Pix[i+2] = clamp8(r), clamp8(g), clamp8(b)
	}
}

// brightness lifts every channel towards white by a (a > 0), or scales
// it towards black (a < 0): blacks stay black when brightening and whites
// stay white when darkening, so nothing clips.
func brightness(m *image.NRGBA, a float64) {
	eachRGB(m, func(r, g, b float64) (float64, float64, float64) {
		if a >= 0 {
			return 255 - (255-r)*(1-a), 255 - (255-g)*(1-a), 255 - (255-b)*(1-a)
		}
		return r * (1 + a), g * (1 + a), b * (1 + a)
	})
}

// contrast stretches (a > 0) or compresses every channel about the
// picture's mean luma.
func contrast(m *image.NRGBA, a float64) {
	var sum float64
	for i := 0; i < len(m.Pix); i += 4 {
		sum += 0.299*float64(m.Pix[i]) + 0.587*float64(m.Pix[i+1]) + 0.114*float64(m.Pix[i+2])
	}
	mean := sum / float64(max(1, len(m.Pix)/4))
	k := 1 + a
	eachRGB(m, func(r, g, b float64) (float64, float64, float64) {
		return mean + (r-mean)*k, mean + (g-mean)*k, mean + (b-mean)*k
	})
}

// saturation moves every pixel away from (a > 0) or towards its grey.
func saturation(m *image.NRGBA, a float64) {
	k := 1 + a
	eachRGB(m, func(r, g, b float64) (float64, float64, float64) {
		l := 0.299*r + 0.587*g + 0.114*b
		return l + (r-l)*k, l + (g-l)*k, l + (b-l)*k
	})
}

func mirror(m *image.NRGBA) {
	w := m.Rect.Dx()
	for y := range m.Rect.Dy() {
		row := m.Pix[y*m.Stride : y*m.Stride+4*w]
		for l, r := 0, w-1; l < r; l, r = l+1, r-1 {
			for k := range 4 {
				row[4*l+k], row[4*r+k] = row[4*r+k], row[4*l+k]
			}
		}
	}
}

// border paints a frame of c around the picture: 1 %, 2 % or 4 % of the
// shorter side for thin, medium and thick.
func border(m *image.NRGBA, c color.RGBA, width string) {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	share := map[string]int{"thin": 1, "medium": 2, "thick": 4}[width]
	t := max(2, min(w, h)*share/100)
	px := color.NRGBA{c.R, c.G, c.B, 255}
	for y := range h {
		for x := range w {
			if x < t || y < t || x >= w-t || y >= h-t {
				m.SetNRGBA(x, y, px)
			}
		}
	}
}
