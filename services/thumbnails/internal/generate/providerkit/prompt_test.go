package providerkit_test

import (
	"strings"
	"testing"

	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/layout"
	"hookline.dev/services/thumbnails/internal/generate/providerfake"
	"hookline.dev/services/thumbnails/internal/generate/providerkit"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// roomy is a model whose picture is 16:9, so no safe-area line is written.
var roomy = providerkit.Model{Images: 16, ImageBytes: 50 << 20, Bytes: 40 << 20,
	Sizes: map[thumbnail.Aspect]providerkit.Size{thumbnail.Landscape: {1536, 864}}}

func TestBuild(t *testing.T) {
	full := providerfake.Sample(thumbnail.Landscape)
	parent := engine.Picture{Data: providerfake.JPEG(128, 72, "parent")}

	tests := []struct {
		name    string
		req     engine.Request
		lim     providerkit.Model
		want    []string // substrings of the text
		notWant []string
		roles   []providerkit.Role
	}{
		{
			name: "concept only",
			req:  engine.Request{Prompt: "  how I   built\na cabin ", Aspect: thumbnail.Landscape},
			lim:  roomy,
			want: []string{
				"16:9 YouTube thumbnail (1280×720)",
				"Concept: how I built a cabin",
				"derive a punchy headline of 2 to 5 words",
				"no watermark",
			},
			notWant: []string{"Image", "Style", "Brand", "Layout", "Change requested", "\n\n"},
		},
		{
			name:    "portrait with a chosen headline",
			req:     engine.Request{Headline: "BEST  EVER", Aspect: thumbnail.Portrait},
			lim:     roomy,
			want:    []string{"vertical 9:16 YouTube Shorts thumbnail (720×1280)", "set the text “BEST EVER” exactly as written"},
			notWant: []string{"Concept:", "derive"},
		},
		{
			name: "style, brand, faces, logo and reference",
			req:  full,
			lim:  roomy,
			want: []string{
				"Concept: I tried every budget GPU so you don't have to",
				"Style “Neon night”: dark city streets lit by neon signs.",
				"Palette: #FF0099, #00E5FF.",
				"Look: dark and moody, punchy high contrast, vivid saturated colours, cool tones.",
				"Brand “Byte Bench”: use the brand colours #123456, #FFCC00 (primary first)",
				"Set text in Anton or a close match.",
				"Images 1–2 show the 2 people (Alex, Sam) who must appear",
				"Image 3 is the brand logo",
				"Image 4 is a reference",
			},
			notWant: []string{"to vary"},
			roles:   []providerkit.Role{providerkit.RoleFace, providerkit.RoleFace, providerkit.RoleLogo, providerkit.RoleReference},
		},
		{
			name: "variation: the parent first, then the rest, and the tweak",
			req: func() engine.Request {
				r := full
				r.Parent, r.Tweak = &parent, "make it   brighter"
				return r
			}(),
			lim:   roomy,
			want:  []string{"Image 1 is the thumbnail to vary", "Images 2–3 show the 2 people", "Image 4 is the brand logo", "Image 5 is a reference", "Change requested: make it brighter"},
			roles: []providerkit.Role{providerkit.RoleParent, providerkit.RoleFace, providerkit.RoleFace, providerkit.RoleLogo, providerkit.RoleReference},
		},
		{
			name:    "count limit drops the least important images and their mention",
			req:     full,
			lim:     providerkit.Model{Images: 2, ImageBytes: 50 << 20, Bytes: 40 << 20},
			want:    []string{"Images 1–2 show the 2 people (Alex, Sam)"},
			notWant: []string{"Image 3", "brand logo", "reference"},
			roles:   []providerkit.Role{providerkit.RoleFace, providerkit.RoleFace},
		},
		{
			name: "byte limit skips what does not fit but keeps what does",
			req:  full,
			lim:  providerkit.Model{Images: 16, ImageBytes: 50 << 20, Bytes: len(full.Faces[0].Crop.Data) + len(full.Brand.Logo.Data)},
			// Sam's PNG crop is over the budget left after Alex's: one face,
			// then the logo, which still fits.
			want:    []string{"Image 1 shows the person who must appear", "Image 2 is the brand logo"},
			notWant: []string{"(Alex", "reference"},
			roles:   []providerkit.Role{providerkit.RoleFace, providerkit.RoleLogo},
		},
		{
			name: "per-image size limit skips only the image over it",
			req:  full,
			lim:  providerkit.Model{Images: 16, ImageBytes: len(full.Brand.Logo.Data), Bytes: 40 << 20},
			// The small logo is the limit; the faces and the reference are
			// over it.
			want:    []string{"Image 1 is the brand logo"},
			notWant: []string{"people", "reference"},
			roles:   []providerkit.Role{providerkit.RoleLogo},
		},
		{
			name: "a 3:2 canvas for 16:9 keeps the headline inside the band the crop keeps",
			req:  engine.Request{Prompt: "x", Headline: "TOP LINE", Aspect: thumbnail.Landscape},
			lim:  providerkit.Model{Images: 16, ImageBytes: 50 << 20, Bytes: 40 << 20, Sizes: map[thumbnail.Aspect]providerkit.Size{thumbnail.Landscape: {1536, 1024}}},
			want: []string{"Safe area: the 1536x1024 canvas is cropped to the final ratio, losing 80 px at the top and 80 px at the bottom",
				"keep the headline, every face and the logo at least 40 px further in"},
		},
		{
			name:    "template without slots",
			req:     engine.Request{Prompt: "x", Aspect: thumbnail.Landscape, Template: &layout.Layout{}},
			lim:     roomy,
			want:    []string{"Layout: follow the composition of the remixed template."},
			notWant: []string{"slots"},
		},
		{
			name: "brand with a name only",
			req:  engine.Request{Prompt: "x", Aspect: thumbnail.Landscape, Brand: &engine.Brand{Name: "Solo"}},
			lim:  roomy,
			want: []string{"Brand “Solo”: keep the look consistent with the channel's brand."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := providerkit.Build(tt.req, tt.lim)
			for _, s := range tt.want {
				if !strings.Contains(p.Text, s) {
					t.Errorf("text lacks %q:\n%s", s, p.Text)
				}
			}
			for _, s := range tt.notWant {
				if strings.Contains(p.Text, s) {
					t.Errorf("text has %q:\n%s", s, p.Text)
				}
			}
			if len(p.Images) != len(tt.roles) {
				t.Fatalf("%d images, want %d", len(p.Images), len(tt.roles))
			}
			for i, im := range p.Images {
				if im.Role != tt.roles[i] {
					t.Errorf("image %d role %s, want %s", i+1, im.Role, tt.roles[i])
				}
			}
		})
	}
}

func TestBuildContentTypes(t *testing.T) {
	p := providerkit.Build(providerfake.Sample(thumbnail.Landscape), roomy)
	want := []string{"image/jpeg", "image/png", "image/png", "image/jpeg"} // Alex, Sam, logo, reference
	for i, im := range p.Images {
		if im.ContentType != want[i] {
			t.Errorf("image %d: %s, want %s", i+1, im.ContentType, want[i])
		}
	}
}

func TestTemplateLine(t *testing.T) {
	got := providerkit.TemplateLine([]layout.Slot{{Name: "headline", Kind: "text"}, {Name: "face", Kind: "face"}})
	want := "Layout: follow the remixed template, filling its slots in this order: headline (text), face (face)."
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
