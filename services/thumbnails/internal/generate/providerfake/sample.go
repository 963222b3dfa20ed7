package providerfake

import (
	"bytes"
	"image"
	"image/color"

	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// Sample is a request with every kind of guidance: a style, a brand with
// a logo, two faces and a reference image (all real pictures), for tests
// that check what reaches a provider.
func Sample(a thumbnail.Aspect) engine.Request {
	pic := func(data []byte) engine.Picture {
		img, _, _ := image.Decode(bytes.NewReader(data))
		return engine.Picture{Data: data, Img: img}
	}
	logo := pic(PNG(64, 64, "logo"))
	return engine.Request{
		Prompt: "I tried every budget GPU so you don't have to",
		Aspect: a,
		Seed:   42,
		Style: &engine.Style{
			Name: "Neon night", Description: "dark city streets lit by neon signs",
			Palette: []engine.Swatch{
				{Color: color.RGBA{0xFF, 0x00, 0x99, 255}, Weight: 0.4},
				{Color: color.RGBA{0x00, 0xE5, 0xFF, 255}, Weight: 0.3},
			},
			Brightness: 0.2, Contrast: 0.9, Saturation: 0.8, Warmth: -0.6,
		},
		Brand: &engine.Brand{
			Name:   "Byte Bench",
			Colors: []color.RGBA{{0x12, 0x34, 0x56, 255}, {0xFF, 0xCC, 0x00, 255}},
			Fonts:  []string{"Anton"},
			Logo:   &logo,
		},
		Faces: []engine.Face{
			{Name: "Alex", Crop: pic(JPEG(256, 256, "alex"))},
			{Name: "Sam", Crop: pic(PNG(256, 256, "sam"))},
		},
		References: []engine.Picture{pic(JPEG(640, 360, "reference"))},
	}
}
