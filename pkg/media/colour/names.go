package colour

import (
	"image/color"
	"strconv"
	"strings"
)

// Names are the colour words the edit grammars understand (background,
// filter and edit prompts), tuned to read well on a thumbnail rather than
// taken from CSS: "red" is a warm red, "black" a near black. The service
// README lists them.
var Names = map[string]color.RGBA{
	"red": {220, 38, 38, 255}, "crimson": {190, 18, 60, 255}, "maroon": {128, 20, 40, 255},
	"orange": {249, 115, 22, 255}, "coral": {255, 127, 80, 255}, "peach": {255, 190, 152, 255},
	"yellow": {250, 204, 21, 255}, "gold": {212, 175, 55, 255}, "golden": {212, 175, 55, 255},
	"green": {34, 160, 80, 255}, "lime": {132, 204, 22, 255}, "olive": {110, 120, 40, 255},
	"mint": {152, 230, 190, 255}, "emerald": {16, 150, 110, 255},
	"teal": {13, 148, 136, 255}, "turquoise": {45, 212, 191, 255}, "cyan": {6, 182, 212, 255},
	"blue": {37, 99, 235, 255}, "navy": {20, 35, 90, 255}, "indigo": {67, 56, 202, 255},
	"purple": {126, 34, 206, 255}, "violet": {139, 92, 246, 255}, "lavender": {190, 170, 240, 255},
	"magenta": {217, 30, 160, 255}, "pink": {236, 72, 153, 255},
	"brown": {120, 72, 40, 255}, "beige": {225, 210, 180, 255}, "cream": {250, 243, 224, 255},
	"white": {255, 255, 255, 255}, "black": {10, 10, 12, 255}, "silver": {192, 196, 204, 255},
	"grey": {128, 128, 132, 255}, "gray": {128, 128, 132, 255}, "charcoal": {54, 58, 64, 255},
	"burgundy": {128, 0, 32, 255}, "tan": {210, 180, 140, 255}, "ivory": {255, 255, 240, 255}, "aqua": {6, 182, 212, 255},
}

// Parse reads a colour word of Names or a hex colour (ParseHex), in lower
// case.
func Parse(s string) (color.RGBA, bool) {
	if c, ok := Names[s]; ok {
		return c, true
	}
	return ParseHex(s)
}

// ParseHex reads #rrggbb or #rgb.
func ParseHex(s string) (color.RGBA, bool) {
	hex, ok := strings.CutPrefix(s, "#")
	if !ok || len(hex) != 6 && len(hex) != 3 {
		return color.RGBA{}, false
	}
	if len(hex) == 3 {
		hex = string([]byte{hex[0], hex[0], hex[1], hex[1], hex[2], hex[2]})
	}
	v, err := strconv.ParseUint(hex, 16, 32)
	if err != nil {
		return color.RGBA{}, false
	}
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}, true //nolint:gosec // G115: the bytes of a 24-bit value
}

// Mix is a + (b − a)·t per channel, opaque: "dark blue" is blue mixed
// towards black.
func Mix(a, b color.RGBA, t float64) color.RGBA {
	l := func(p, q uint8) uint8 { return uint8(float64(p) + (float64(q)-float64(p))*t + 0.5) }
	return color.RGBA{l(a.R, b.R), l(a.G, b.G), l(a.B, b.B), 255}
}
