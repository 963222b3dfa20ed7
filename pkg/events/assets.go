package events

// Assets subjects: the assets service announces every change of its records
// so that other services (thumbnails resolving a styleId, brandId or faceIds)
// can keep their own projections instead of calling it. Payloads carry
// addresses and measurements, never image bytes.
const (
	AssetsFaceCreated = "assets.face.created.v1"
	AssetsFaceUpdated = "assets.face.updated.v1"
	AssetsFaceDeleted = "assets.face.deleted.v1"

	AssetsStyleCreated = "assets.style.created.v1"
	AssetsStyleUpdated = "assets.style.updated.v1"
	AssetsStyleDeleted = "assets.style.deleted.v1"

	AssetsBrandCreated = "assets.brand.created.v1"
	AssetsBrandUpdated = "assets.brand.updated.v1"
	AssetsBrandDeleted = "assets.brand.deleted.v1"

	AssetsCollectionCreated           = "assets.collection.created.v1"
	AssetsCollectionUpdated           = "assets.collection.updated.v1"
	AssetsCollectionDeleted           = "assets.collection.deleted.v1"
	AssetsCollectionThumbnailsChanged = "assets.collection.thumbnails_changed.v1"
)

// FaceChanged is assets.face.created.v1 and assets.face.updated.v1.
type FaceChanged struct {
	FaceID       string   `json:"faceId"`
	Name         string   `json:"name"`
	ImageURLs    []string `json:"imageUrls"`
	ThumbnailURL string   `json:"thumbnailUrl"`
}

// FaceDeleted is assets.face.deleted.v1.
type FaceDeleted struct {
	FaceID string `json:"faceId"`
}

// Swatch is one colour of a style palette.
type Swatch struct {
	Hex    string  `json:"hex"`
	Weight float64 `json:"weight"`
}

// StyleProfile is the measured look of a style's references.
type StyleProfile struct {
	Palette    []Swatch `json:"palette"`
	Brightness float64  `json:"brightness"`
	Contrast   float64  `json:"contrast"`
	Saturation float64  `json:"saturation"`
	Warmth     float64  `json:"warmth"`
}

// StyleChanged is assets.style.created.v1 and assets.style.updated.v1.
type StyleChanged struct {
	StyleID            string       `json:"styleId"`
	Name               string       `json:"name"`
	Description        string       `json:"description,omitempty"`
	ReferenceImageURLs []string     `json:"referenceImageUrls"`
	Profile            StyleProfile `json:"profile"`
}

// StyleDeleted is assets.style.deleted.v1.
type StyleDeleted struct {
	StyleID string `json:"styleId"`
}

// BrandChanged is assets.brand.created.v1 and assets.brand.updated.v1.
type BrandChanged struct {
	BrandID string   `json:"brandId"`
	Name    string   `json:"name"`
	Colors  []string `json:"colors"`
	LogoURL string   `json:"logoUrl,omitempty"`
	Fonts   []string `json:"fonts,omitempty"`
}

// BrandDeleted is assets.brand.deleted.v1.
type BrandDeleted struct {
	BrandID string `json:"brandId"`
}

// CollectionChanged is assets.collection.created.v1 and
// assets.collection.updated.v1.
type CollectionChanged struct {
	CollectionID string `json:"collectionId"`
	Name         string `json:"name"`
	Description  string `json:"description,omitempty"`
}

// CollectionDeleted is assets.collection.deleted.v1.
type CollectionDeleted struct {
	CollectionID string `json:"collectionId"`
}

// CollectionThumbnailsChanged is assets.collection.thumbnails_changed.v1:
// thumbnails joined or left a collection, by request or because a
// thumbnail was created into it or deleted.
type CollectionThumbnailsChanged struct {
	CollectionID string   `json:"collectionId"`
	Added        []string `json:"added,omitempty"`
	Removed      []string `json:"removed,omitempty"`
}
