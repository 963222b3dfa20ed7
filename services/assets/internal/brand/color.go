package brand

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseCSSColor reads a colour as websites write it in theme-color and web
// manifests: hex (3, 4, 6 or 8 digits), rgb()/rgba(), hsl()/hsla() or a
// CSS named colour. Alpha is dropped; "transparent" and anything else
// unreadable give ok false.
func ParseCSSColor(s string) (hex string, ok bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch {
	case strings.HasPrefix(s, "#"):
		h := s[1:]
		if len(h) == 4 || len(h) == 8 {
			h = h[:len(h)*3/4]
		}
		return NormalizeHex(h)
	case strings.HasPrefix(s, "rgb"):
		args, ok := cssArgs(s, "rgb")
		if !ok || len(args) < 3 {
			return "", false
		}
		var c [3]float64
		for i := range 3 {
			v, ok := cssNumber(args[i], 255)
			if !ok {
				return "", false
			}
			c[i] = v
		}
		return rgbHex(c[0], c[1], c[2]), true
	case strings.HasPrefix(s, "hsl"):
		args, ok := cssArgs(s, "hsl")
		if !ok || len(args) < 3 {
			return "", false
		}
		h, err := strconv.ParseFloat(strings.TrimSuffix(args[0], "deg"), 64)
		if err != nil {
			return "", false
		}
		sat, ok1 := cssPercent(args[1])
		l, ok2 := cssPercent(args[2])
		if !ok1 || !ok2 {
			return "", false
		}
		r, g, b := hslToRGB(h, sat, l)
		return rgbHex(r*255, g*255, b*255), true
	}
	if v, ok := namedColors[s]; ok {
		return v, true
	}
	return "", false
}

// cssArgs splits "fn(a, b, c)" or "fn(a b c / d)" into its arguments.
func cssArgs(s, fn string) ([]string, bool) {
	s = strings.TrimPrefix(s, fn)
	s = strings.TrimPrefix(s, "a")
	if !strings.HasPrefix(s, "(") || !strings.HasSuffix(s, ")") {
		return nil, false
	}
	s = s[1 : len(s)-1]
	s = strings.NewReplacer(",", " ", "/", " ").Replace(s)
	return strings.Fields(s), true
}

// cssNumber reads "128" or "50%" (of full) and clamps to 0..full.
func cssNumber(s string, full float64) (float64, bool) {
	if p, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil {
			return 0, false
		}
		return math.Max(0, math.Min(full, v*full/100)), true
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return math.Max(0, math.Min(full, v)), true
}

func cssPercent(s string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil {
		return 0, false
	}
	return math.Max(0, math.Min(1, v/100)), true
}

func hslToRGB(h, s, l float64) (r, g, b float64) {
	h = math.Mod(math.Mod(h, 360)+360, 360) / 360
	if s == 0 {
		return l, l, l
	}
	q := l * (1 + s)
	if l >= 0.5 {
		q = l + s - l*s
	}
	p := 2*l - q
	hue := func(t float64) float64 {
		t = math.Mod(t+1, 1)
		switch {
		case t < 1.0/6:
			return p + (q-p)*6*t
		case t < 0.5:
			return q
		case t < 2.0/3:
			return p + (q-p)*(2.0/3-t)*6
		}
		return p
	}
	return hue(h + 1.0/3), hue(h), hue(h - 1.0/3)
}

func rgbHex(r, g, b float64) string {
	c := func(v float64) int { return int(math.Round(math.Max(0, math.Min(255, v)))) }
	return fmt.Sprintf("#%02x%02x%02x", c(r), c(g), c(b))
}

// hexRGB splits "#rrggbb".
func hexRGB(hex string) (r, g, b int) {
	v, _ := strconv.ParseUint(strings.TrimPrefix(hex, "#"), 16, 32)
	return int(v >> 16 & 0xff), int(v >> 8 & 0xff), int(v & 0xff)
}

// similar reports colours too close to tell apart in a palette.
func similar(a, b string) bool {
	ar, ag, ab := hexRGB(a)
	br, bg, bb := hexRGB(b)
	dr, dg, db := ar-br, ag-bg, ab-bb
	return dr*dr+dg*dg+db*db < 24*24
}

// namedColors are the CSS Color Module Level 4 named colours.
var namedColors = func() map[string]string {
	const list = `aliceblue f0f8ff antiquewhite faebd7 aqua 00ffff aquamarine 7fffd4 azure f0ffff beige f5f5dc bisque ffe4c4
black 000000 blanchedalmond ffebcd blue 0000ff blueviolet 8a2be2 brown a52a2a burlywood deb887 cadetblue 5f9ea0
chartreuse 7fff00 chocolate d2691e coral ff7f50 cornflowerblue 6495ed cornsilk fff8dc crimson dc143c cyan 00ffff
darkblue 00008b darkcyan 008b8b darkgoldenrod b8860b darkgray a9a9a9 darkgreen 006400 darkgrey a9a9a9 darkkhaki bdb76b
darkmagenta 8b008b darkolivegreen 556b2f darkorange ff8c00 darkorchid 9932cc darkred 8b0000 darksalmon e9967a
darkseagreen 8fbc8f darkslateblue 483d8b darkslategray 2f4f4f darkslategrey 2f4f4f darkturquoise 00ced1 darkviolet 9400d3
deeppink ff1493 deepskyblue 00bfff dimgray 696969 dimgrey 696969 dodgerblue 1e90ff firebrick b22222 floralwhite fffaf0
forestgreen 228b22 fuchsia ff00ff gainsboro dcdcdc ghostwhite f8f8ff gold ffd700 goldenrod daa520 gray 808080 green 008000
greenyellow adff2f grey 808080 honeydew f0fff0 hotpink ff69b4 indianred cd5c5c indigo 4b0082 ivory fffff0 khaki f0e68c
lavender e6e6fa lavenderblush fff0f5 lawngreen 7cfc00 lemonchiffon fffacd lightblue add8e6 lightcoral f08080 lightcyan e0ffff
lightgoldenrodyellow fafad2 lightgray d3d3d3 lightgreen 90ee90 lightgrey d3d3d3 lightpink ffb6c1 lightsalmon ffa07a
lightseagreen 20b2aa lightskyblue 87cefa lightslategray 778899 lightslategrey 778899 lightsteelblue b0c4de lightyellow ffffe0
lime 00ff00 limegreen 32cd32 linen faf0e6 magenta ff00ff maroon 800000 mediumaquamarine 66cdaa mediumblue 0000cd
mediumorchid ba55d3 mediumpurple 9370db mediumseagreen 3cb371 mediumslateblue 7b68ee mediumspringgreen 00fa9a
mediumturquoise 48d1cc mediumvioletred c71585 midnightblue 191970 mintcream f5fffa mistyrose ffe4e1 moccasin ffe4b5
navajowhite ffdead navy 000080 oldlace fdf5e6 olive 808000 olivedrab 6b8e23 orange ffa500 orangered ff4500 orchid da70d6
palegoldenrod eee8aa palegreen 98fb98 paleturquoise afeeee palevioletred db7093 papayawhip ffefd5 peachpuff ffdab9 peru cd853f
pink ffc0cb plum dda0dd powderblue b0e0e6 purple 800080 rebeccapurple 663399 red ff0000 rosybrown bc8f8f royalblue 4169e1
saddlebrown 8b4513 salmon fa8072 sandybrown f4a460 seagreen 2e8b57 seashell fff5ee sienna a0522d silver c0c0c0 skyblue 87ceeb
slateblue 6a5acd slategray 708090 slategrey 708090 snow fffafa springgreen 00ff7f steelblue 4682b4 tan d2b48c teal 008080
thistle d8bfd8 tomato ff6347 turquoise 40e0d0 violet ee82ee wheat f5deb3 white ffffff whitesmoke f5f5f5 yellow ffff00
yellowgreen 9acd32`
	f := strings.Fields(list)
	m := make(map[string]string, len(f)/2)
	for i := 0; i+1 < len(f); i += 2 {
		m[f[i]] = "#" + f[i+1]
	}
	return m
}()
