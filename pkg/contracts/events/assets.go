package events

import "time"

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

	// AssetsRecordsRPC is a request-reply subject, not an event: a service
	// whose read model misses an id asks assets for the record (a
	// RecordsRequest) before it answers 404, because the id may have been
	// created a moment ago and its event still be on its way (see
	// pkg/platform/messaging, "Read models"). It is served with core NATS and kept
	// out of every stream.
	AssetsRecordsRPC = "assets.rpc.records.v1"
)

// AssetsEventSubjects are the subjects of the assets service's events: the
// ASSETS stream captures them and the assets NATS user publishes them. They
// leave AssetsRecordsRPC out: a request that landed in a stream would be
// stored, and answered with the stream's publish acknowledgement.
var AssetsEventSubjects = []string{"assets.face.>", "assets.style.>", "assets.brand.>", "assets.collection.>"}

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

// Kinds of assets records, as AssetRef and AssetRecord name them.
const (
	AssetFace       = "face"
	AssetStyle      = "style"
	AssetBrand      = "brand"
	AssetCollection = "collection"
)

// MaxAssetRefs bounds the records of one RecordsRequest: a request names
// at most a style, a brand, a collection and ten faces.
const MaxAssetRefs = 32

// AssetRef names one assets record: its kind and id.
type AssetRef struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

// RecordsRequest is the body of assets.rpc.records.v1. OrgID is the
// organization of the request the caller is answering (its principal's):
// assets answers only with records of that organization, so another
// organization's id stays unknown.
type RecordsRequest struct {
	OrgID   string     `json:"orgId"`
	Records []AssetRef `json:"records"`
}

// RecordsReply answers a RecordsRequest with the records the organization
// has among those asked for; one it does not have (never created, deleted,
// another organization's) is left out. Error, when set, says why the
// request was refused (malformed): nothing was looked up.
type RecordsReply struct {
	Records []AssetRecord `json:"records"`
	Error   string        `json:"error,omitempty"`
}

// AssetRecord is one record as its last created or updated event
// describes it: exactly the payload of its Kind is set.
type AssetRecord struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
	// ChangedAt is when the record last changed. The event of that change
	// occurred at ChangedAt or later, and every event of an earlier change
	// before it, so a read model orders this answer among the events by it.
	ChangedAt  time.Time          `json:"changedAt"`
	Face       *FaceChanged       `json:"face,omitempty"`
	Style      *StyleChanged      `json:"style,omitempty"`
	Brand      *BrandChanged      `json:"brand,omitempty"`
	Collection *CollectionChanged `json:"collection,omitempty"`
}
