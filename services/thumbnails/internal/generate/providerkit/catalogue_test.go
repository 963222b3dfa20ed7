package providerkit_test

import (
	"testing"

	"hookline.dev/pkg/ai/vendorapi/contract"
	"hookline.dev/services/thumbnails/internal/generate/providerkit"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// Every model of the catalogues, defaults first, must be one the vendor's
// contract lists as an image model and has not shut down: the day a
// vendor retires a default, updating the contract fails this test.
func TestCataloguesFollowTheVendorContracts(t *testing.T) {
	for _, tc := range []struct {
		cat  providerkit.Catalogue
		con  *contract.Contract
		kind string
	}{
		{providerkit.OpenAIImages, contract.OpenAI, "image_edit"},
		{providerkit.GeminiImages, contract.Gemini, "image"},
	} {
		names := tc.cat.Names()
		if len(names) == 0 || names[0] != tc.cat.Default {
			t.Errorf("%s: the default %q is not the first model of %v", tc.cat.Provider, tc.cat.Default, names)
		}
		for _, name := range names {
			if why := tc.con.CheckModel(tc.kind, name); why != "" {
				t.Errorf("%s catalogue: %s", tc.cat.Provider, why)
			}
			m, _ := tc.cat.Lookup(name)
			for _, a := range []thumbnail.Aspect{thumbnail.Landscape, thumbnail.Portrait} {
				if s := m.Size(a); s.W == 0 || s.H == 0 {
					t.Errorf("%s: no size for %s", name, a)
				}
			}
			if m.Images == 0 || m.ImageBytes == 0 || m.Bytes == 0 {
				t.Errorf("%s: limits %+v", name, m)
			}
		}
	}
}

// The default OpenAI model draws 16:9 exactly: nothing is cropped.
func TestDefaultOpenAIModelNeedsNoCrop(t *testing.T) {
	m, _ := providerkit.OpenAIImages.Lookup(providerkit.OpenAIImages.Default)
	for _, a := range []thumbnail.Aspect{thumbnail.Landscape, thumbnail.Portrait} {
		if top, side := m.SafeArea(a); top != 0 || side != 0 {
			t.Errorf("%s %s: crop %v/%v", m.Name, a, top, side)
		}
	}
}
