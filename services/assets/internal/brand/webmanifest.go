package brand

// webManifest is the part of a web app manifest (W3C Web Application
// Manifest) ParseManifest reads. Tagged, unlike the domain types: it
// decodes a published third-party format and never leaves this package.
type webManifest struct {
	Name            string `json:"name"`
	ShortName       string `json:"short_name"`
	ThemeColor      string `json:"theme_color"`
	BackgroundColor string `json:"background_color"`
	Icons           []struct {
		Src     string `json:"src"`
		Sizes   string `json:"sizes"`
		Type    string `json:"type"`
		Purpose string `json:"purpose"`
	} `json:"icons"`
}
