package hookline

import (
	"encoding/json"
	"time"
)

// The types below mirror the schemas of the OpenAPI document
// (services/gateway/internal/openapi/openapi.yaml); openapi_test.go checks
// that every property of every request and response has its field.
// Nullable properties are pointers; optional request fields are omitted
// when zero.

// Probe is the answer of the gateway's health probes.
type Probe struct {
	Status string `json:"status"`
}

// Verification names the caller's organization and key.
type Verification struct {
	Organization OrganizationRef `json:"organization"`
	Key          APIKey          `json:"key"`
}

// OrganizationRef identifies an organization.
type OrganizationRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Tier string `json:"tier"`
}

// APIKey describes a key without its secret.
type APIKey struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Prefix is the key's first 12 characters, to tell keys apart.
	Prefix    string     `json:"prefix"`
	CreatedAt time.Time  `json:"createdAt"`
	ExpiresAt *time.Time `json:"expiresAt"`
}

// NewAPIKey is a key just created, with its secret, shown only once.
type NewAPIKey struct {
	APIKey
	OrganizationID string `json:"organizationId"`
	Key            string `json:"key"`
}

// Organization is a customer of the operator.
type Organization struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Tier      string    `json:"tier"`
	CreatedAt time.Time `json:"createdAt"`
}

// OrganizationCreate is the body of CreateOrganization.
type OrganizationCreate struct {
	Name string `json:"name"`
	Tier string `json:"tier"`
}

// KeyCreate is the body of CreateKey.
type KeyCreate struct {
	Name      string     `json:"name"`
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`
}

// Credit kinds of a grant.
const (
	CreditsSubscription = "subscription"
	CreditsPurchased    = "purchased"
	CreditsAdjustment   = "adjustment"
)

// CreditGrantRequest is the body of GrantCredits.
type CreditGrantRequest struct {
	Credits int    `json:"credits"`
	Kind    string `json:"kind"`
	Reason  string `json:"reason"`
}

// CreditGrantResult is the answer of GrantCredits: an accepted grant
// (GrantID, Status "accepted") or an applied adjustment (AdjustmentID,
// Status "applied", Available).
type CreditGrantResult struct {
	GrantID        string `json:"grantId,omitempty"`
	AdjustmentID   string `json:"adjustmentId,omitempty"`
	OrganizationID string `json:"organizationId"`
	Credits        int    `json:"credits"`
	Kind           string `json:"kind"`
	Reason         string `json:"reason"`
	Status         string `json:"status"`
	// Available is the balance after an adjustment.
	Available *int `json:"available,omitempty"`
}

// Credits is the organization's balance.
type Credits struct {
	Tier         string         `json:"tier"`
	Credits      CreditBalances `json:"credits"`
	CanGenerate  bool           `json:"canGenerate"`
	BillingCycle string         `json:"billingCycle"`
}

// CreditBalances splits the balance by bucket.
type CreditBalances struct {
	Total        int `json:"total"`
	Purchased    int `json:"purchased"`
	Subscription int `json:"subscription"`
}

// Usage is one credit reservation.
type Usage struct {
	ID           string     `json:"id"`
	Operation    string     `json:"operation"`
	Credits      int        `json:"credits"`
	Status       string     `json:"status"`
	ResourceType string     `json:"resourceType"`
	ResourceID   string     `json:"resourceId"`
	CreatedAt    time.Time  `json:"createdAt"`
	SettledAt    *time.Time `json:"settledAt"`
}

// UploadRequest describes a file to upload.
type UploadRequest struct {
	FileName string `json:"fileName"`
	// FileType is image/jpeg or image/png, compared case-insensitively;
	// the PUT sends its lower-case form (SignedContentType).
	FileType string `json:"fileType"`
	// FileSize is the exact length of the PUT's body (1 byte to 5 MB).
	FileSize int64 `json:"fileSize"`
}

// PresignedUpload is where to PUT a file and how to name it afterwards.
type PresignedUpload struct {
	UploadURL string    `json:"uploadUrl"`
	PublicURL string    `json:"publicUrl"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// FaceUploadURLsRequest is the body of CreateFaceUploadURLs.
type FaceUploadURLsRequest struct {
	Files []UploadRequest `json:"files"`
}

// Face is a named person.
type Face struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	ImageURLs    []string  `json:"imageUrls"`
	ThumbnailURL string    `json:"thumbnailUrl"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
}

// FaceCreate is the body of CreateFace.
type FaceCreate struct {
	Name      string   `json:"name"`
	ImageURLs []string `json:"imageUrls"`
}

// FaceUpdate is the body of UpdateFace: at least one field.
type FaceUpdate struct {
	Name      string   `json:"name,omitempty"`
	ImageURLs []string `json:"imageUrls,omitempty"`
}

// Style is a look measured from reference images.
type Style struct {
	ID                 string       `json:"id"`
	Name               string       `json:"name"`
	Description        *string      `json:"description"`
	ReferenceImageURLs []string     `json:"referenceImageUrls"`
	Profile            StyleProfile `json:"profile"`
	CreatedAt          time.Time    `json:"createdAt"`
	UpdatedAt          time.Time    `json:"updatedAt"`
}

// StyleProfile is the measured look.
type StyleProfile struct {
	Palette    []Swatch `json:"palette"`
	Brightness float64  `json:"brightness"`
	Contrast   float64  `json:"contrast"`
	Saturation float64  `json:"saturation"`
	Warmth     float64  `json:"warmth"`
}

// Swatch is a palette colour and its share of the pixels.
type Swatch struct {
	Hex    string  `json:"hex"`
	Weight float64 `json:"weight"`
}

// StyleCreate is the body of CreateStyle.
type StyleCreate struct {
	Name               string   `json:"name"`
	Description        string   `json:"description,omitempty"`
	ReferenceImageURLs []string `json:"referenceImageUrls"`
}

// StyleUpdate is the body of UpdateStyle: at least one field; a
// Description pointing at "" clears it.
type StyleUpdate struct {
	Name               string   `json:"name,omitempty"`
	Description        *string  `json:"description,omitempty"`
	ReferenceImageURLs []string `json:"referenceImageUrls,omitempty"`
}

// Brand is a brand kit.
type Brand struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Colors    []string  `json:"colors"`
	LogoURL   *string   `json:"logoUrl"`
	Fonts     []string  `json:"fonts"`
	Domain    *string   `json:"domain"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// BrandCreate is the body of CreateBrand: by hand (Name, Colors, optional
// LogoURL and Fonts) or imported from a website (Domain, optional Name).
type BrandCreate struct {
	Name    string   `json:"name,omitempty"`
	Colors  []string `json:"colors,omitempty"`
	LogoURL string   `json:"logoUrl,omitempty"`
	Fonts   []string `json:"fonts,omitempty"`
	Domain  string   `json:"domain,omitempty"`
}

// BrandUpdate is the body of UpdateBrand: an edit, or Domain (with an
// optional Name) to import again. A LogoURL pointing at "" removes the
// logo.
type BrandUpdate struct {
	Name    string   `json:"name,omitempty"`
	Colors  []string `json:"colors,omitempty"`
	LogoURL *string  `json:"logoUrl,omitempty"`
	Fonts   []string `json:"fonts,omitempty"`
	Domain  string   `json:"domain,omitempty"`
}

// Collection is a named set of thumbnails, as listed.
type Collection struct {
	ID             string    `json:"id"`
	Name           string    `json:"name"`
	Description    *string   `json:"description"`
	ThumbnailCount int       `json:"thumbnailCount"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
}

// CollectionDetail is a collection with its thumbnails.
type CollectionDetail struct {
	Collection
	Thumbnails []CollectionThumbnail `json:"thumbnails"`
}

// CollectionThumbnail is a member of a collection.
type CollectionThumbnail struct {
	ID       string    `json:"id"`
	ImageURL string    `json:"imageUrl"`
	Prompt   string    `json:"prompt"`
	AddedAt  time.Time `json:"addedAt"`
}

// CollectionCreate is the body of CreateCollection.
type CollectionCreate struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// CollectionUpdate is the body of UpdateCollection: at least one field; a
// Description pointing at "" clears it.
type CollectionUpdate struct {
	Name        string  `json:"name,omitempty"`
	Description *string `json:"description,omitempty"`
}

// CollectionMembership names thumbnails: exactly one of the two fields.
type CollectionMembership struct {
	ThumbnailID  string   `json:"thumbnailId,omitempty"`
	ThumbnailIDs []string `json:"thumbnailIds,omitempty"`
}

// Aspect ratios of thumbnails.
const (
	Landscape16x9 = "16:9"
	Portrait9x16  = "9:16"
)

// Thumbnail is a generated or edited picture. Every field is always
// present; pointers are nil when unset.
type Thumbnail struct {
	ID           string   `json:"id"`
	ImageURL     string   `json:"imageUrl"`
	Prompt       string   `json:"prompt"`
	Kind         string   `json:"kind"`
	ParentID     *string  `json:"parentId"`
	AspectRatio  *string  `json:"aspectRatio"`
	Width        int      `json:"width"`
	Height       int      `json:"height"`
	StyleID      *string  `json:"styleId"`
	BrandID      *string  `json:"brandId"`
	FaceIDs      []string `json:"faceIds"`
	CollectionID *string  `json:"collectionId"`
	TemplateID   *string  `json:"templateId"`
	Engine       string   `json:"engine"`
	// Warning says why the thumbnail came from another engine than the one
	// configured (a provider model missing); empty otherwise.
	Warning   string            `json:"warning,omitempty"`
	Operation *string           `json:"operation"`
	Params    map[string]string `json:"params"`
	// Applied is what an edit applied, or what the local engine used of a
	// generation's prompt ("background bold yellow", "object laptop").
	Applied   []string  `json:"applied"`
	CreatedAt time.Time `json:"createdAt"`
}

// EditResult is the thumbnail an edit made, with what it cost.
type EditResult struct {
	Thumbnail
	CreditsCost int `json:"creditsCost"`
}

// OptimizedThumbnail is the thumbnail OptimizeIdea drew, with the prompt
// and headline it was drawn from.
type OptimizedThumbnail struct {
	Thumbnail
	OptimizedPrompt string `json:"optimizedPrompt"`
	Headline        string `json:"headline"`
	TextEngine      string `json:"textEngine"`
}

// ListThumbnailsParams selects thumbnails.
type ListThumbnailsParams struct {
	ListParams
	Kind         string `query:"kind"`
	CollectionID string `query:"collectionId"`
}

// ThumbnailCreate is the body of CreateThumbnail.
type ThumbnailCreate struct {
	Prompt             string   `json:"prompt"`
	StyleID            string   `json:"styleId,omitempty"`
	BrandID            string   `json:"brandId,omitempty"`
	FaceIDs            []string `json:"faceIds,omitempty"`
	ReferenceImageURLs []string `json:"referenceImageUrls,omitempty"`
	AspectRatio        string   `json:"aspectRatio,omitempty"`
	CollectionID       string   `json:"collectionId,omitempty"`
}

// AnalyzeRequest is the body of AnalyzeVideo: exactly one of VideoSiteURL
// and Transcript.
type AnalyzeRequest struct {
	VideoSiteURL string `json:"videoSiteUrl,omitempty"`
	Transcript   string `json:"transcript,omitempty"`
	VideoTitle   string `json:"videoTitle,omitempty"`
}

// ConceptAnalysis is three thumbnail concepts for a video.
type ConceptAnalysis struct {
	Engine   string       `json:"engine"`
	Video    VideoSummary `json:"video"`
	Concepts []Concept    `json:"concepts"`
}

// VideoSummary is what the analysis understood of the video.
type VideoSummary struct {
	Title   string `json:"title"`
	Summary string `json:"summary"`
}

// Concept is one thumbnail idea; Prompt can be sent to CreateThumbnail.
type Concept struct {
	ID            string `json:"id"`
	Title         string `json:"title"`
	Description   string `json:"description"`
	Prompt        string `json:"prompt"`
	HookText      string `json:"hookText"`
	TextStyle     string `json:"textStyle"`
	TextPlacement string `json:"textPlacement"`
}

// VariationsRequest is the body of CreateVariations.
type VariationsRequest struct {
	ThumbnailID string `json:"thumbnailId"`
	Count       int    `json:"count,omitempty"`
	Prompt      string `json:"prompt,omitempty"`
}

// EditRequest is the body of EditImage (a prompt-based edit).
type EditRequest struct {
	ImageURL           string   `json:"imageUrl"`
	Prompt             string   `json:"prompt"`
	ReferenceImageURLs []string `json:"referenceImageUrls,omitempty"`
	AspectRatio        string   `json:"aspectRatio,omitempty"`
}

// FaceSwapRequest is the body of FaceSwap: exactly one of FaceImageURL
// and FaceID.
type FaceSwapRequest struct {
	ImageURL     string `json:"imageUrl"`
	FaceImageURL string `json:"faceImageUrl,omitempty"`
	FaceID       string `json:"faceId,omitempty"`
}

// BackgroundRemoveRequest is the body of RemoveBackground.
type BackgroundRemoveRequest struct {
	ImageURL string `json:"imageUrl"`
}

// BackgroundReplaceRequest is the body of ReplaceBackground.
type BackgroundReplaceRequest struct {
	ImageURL         string `json:"imageUrl"`
	BackgroundPrompt string `json:"backgroundPrompt"`
	AspectRatio      string `json:"aspectRatio,omitempty"`
}

// ColorEnhanceRequest is the body of EnhanceColor. Preset is vibrant,
// dramatic, warm, cool, high-contrast or cinematic; Intensity subtle,
// medium (default) or strong.
type ColorEnhanceRequest struct {
	ImageURL  string `json:"imageUrl"`
	Preset    string `json:"preset"`
	Intensity string `json:"intensity,omitempty"`
}

// UpscaleRequest is the body of UpscaleImage; Scale is 2x or 4x.
type UpscaleRequest struct {
	ImageURL string `json:"imageUrl"`
	Scale    string `json:"scale"`
}

// FilterRequest is the body of FilterImage.
type FilterRequest struct {
	ImageURL     string `json:"imageUrl"`
	FilterPrompt string `json:"filterPrompt"`
}

// CombineRequest is the body of CombineImages.
type CombineRequest struct {
	ImageURL1   string `json:"imageUrl1"`
	ImageURL2   string `json:"imageUrl2"`
	Prompt      string `json:"prompt"`
	AspectRatio string `json:"aspectRatio,omitempty"`
}

// CritiqueRequest is the body of CritiqueThumbnail.
type CritiqueRequest struct {
	ImageURL string `json:"imageUrl"`
	Niche    string `json:"niche,omitempty"`
}

// Critique is a measured critique of a thumbnail.
type Critique struct {
	ID             string          `json:"id"`
	Engine         string          `json:"engine"`
	Text           CritiqueText    `json:"text"`
	CreatedAt      time.Time       `json:"createdAt"`
	OverallScore   float64         `json:"overallScore"`
	Scores         CritiqueScores  `json:"scores"`
	Strengths      []string        `json:"strengths"`
	Weaknesses     []string        `json:"weaknesses"`
	Improvements   []string        `json:"improvements"`
	AttentionAreas []AttentionArea `json:"attentionAreas"`
	Summary        string          `json:"summary"`
	CreditsCost    int             `json:"creditsCost"`
}

// CritiqueText is the text OCR read at full and at mobile size.
type CritiqueText struct {
	Read         string   `json:"read"`
	ReadAtMobile string   `json:"readAtMobile"`
	Words        int      `json:"words"`
	Lost         []string `json:"lost"`
	Survived     float64  `json:"survived"`
}

// CritiqueScores are 0–10 with one decimal.
type CritiqueScores struct {
	Contrast        float64 `json:"contrast"`
	Composition     float64 `json:"composition"`
	TextReadability float64 `json:"textReadability"`
	FaceVisibility  float64 `json:"faceVisibility"`
	ColorAppeal     float64 `json:"colorAppeal"`
	Clickability    float64 `json:"clickability"`
	EmotionalImpact float64 `json:"emotionalImpact"`
}

// AttentionArea is a salient region, in the source's pixels.
type AttentionArea struct {
	X         float64 `json:"x"`
	Y         float64 `json:"y"`
	Radius    float64 `json:"radius"`
	Intensity float64 `json:"intensity"`
	Label     string  `json:"label"`
}

// OptimizeRequest is the body of OptimizeIdea.
type OptimizeRequest struct {
	Idea         string `json:"idea"`
	AspectRatio  string `json:"aspectRatio,omitempty"`
	StyleID      string `json:"styleId,omitempty"`
	BrandID      string `json:"brandId,omitempty"`
	CollectionID string `json:"collectionId,omitempty"`
}

// TextOverlayRequest is the body of SuggestTextOverlay.
type TextOverlayRequest struct {
	ImageURL       string `json:"imageUrl"`
	OriginalPrompt string `json:"originalPrompt"`
	FaceName       string `json:"faceName,omitempty"`
}

// TextOverlaySuggestions are the calmest placements first.
type TextOverlaySuggestions struct {
	Suggestions []TextOverlaySuggestion `json:"suggestions"`
}

// TextOverlaySuggestion is one headline placement.
type TextOverlaySuggestion struct {
	Text        string `json:"text"`
	Placement   string `json:"placement"`
	Color       string `json:"color"`
	StrokeColor string `json:"strokeColor"`
	FontFamily  string `json:"fontFamily"`
	// FontSize is in pixels at 1280×720.
	FontSize int    `json:"fontSize"`
	Styling  string `json:"styling"`
	Reason   string `json:"reason"`
}

// ExtractVideoSiteRequest is the body of ExtractVideoSiteThumbnail.
type ExtractVideoSiteRequest struct {
	VideoSiteURL string `json:"videoSiteUrl"`
}

// VideoSiteThumbnail is a hosted video's own thumbnail, copied.
type VideoSiteThumbnail struct {
	VideoID   string `json:"videoId"`
	ImageURL  string `json:"imageUrl"`
	Quality   string `json:"quality"`
	Width     int    `json:"width"`
	Height    int    `json:"height"`
	SourceURL string `json:"sourceUrl"`
}

// Template is a design a remix fills.
type Template struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Category    string         `json:"category"`
	Description string         `json:"description"`
	PreviewURL  *string        `json:"previewUrl"`
	AspectRatio string         `json:"aspectRatio"`
	Slots       []TemplateSlot `json:"slots"`
}

// TemplateSlot is what a remix can fill.
type TemplateSlot struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

// ListTemplatesParams selects templates.
type ListTemplatesParams struct {
	ListParams
	Category string `query:"category"`
}

// RemixRequest is the body of RemixTemplate; every field is optional.
type RemixRequest struct {
	Prompt       string   `json:"prompt,omitempty"`
	Headline     string   `json:"headline,omitempty"`
	FaceIDs      []string `json:"faceIds,omitempty"`
	BrandID      string   `json:"brandId,omitempty"`
	StyleID      string   `json:"styleId,omitempty"`
	AspectRatio  string   `json:"aspectRatio,omitempty"`
	CollectionID string   `json:"collectionId,omitempty"`
}

// TitlesRequest is the body of GenerateTitles.
type TitlesRequest struct {
	VideoTitle   string   `json:"videoTitle,omitempty"`
	Transcript   string   `json:"transcript,omitempty"`
	VideoSiteURL string   `json:"videoSiteUrl,omitempty"`
	Keywords     []string `json:"keywords,omitempty"`
	Count        int      `json:"count,omitempty"`
}

// Titles are title ideas.
type Titles struct {
	Titles []Title `json:"titles"`
	Engine string  `json:"engine"`
}

// Title is one title and the pattern it follows.
type Title struct {
	Title   string `json:"title"`
	Pattern string `json:"pattern"`
	Reason  string `json:"reason"`
}

// DescriptionRequest is the body of GenerateDescription.
type DescriptionRequest struct {
	Title        string            `json:"title"`
	Transcript   string            `json:"transcript,omitempty"`
	VideoSiteURL string            `json:"videoSiteUrl,omitempty"`
	Keywords     []string          `json:"keywords,omitempty"`
	Links        []DescriptionLink `json:"links,omitempty"`
}

// DescriptionLink is a link for the description, with an optional title.
type DescriptionLink struct {
	Title string `json:"title,omitempty"`
	URL   string `json:"url"`
}

// VideoDescription is a generated video description.
type VideoDescription struct {
	Description       string    `json:"description"`
	Tags              []string  `json:"tags"`
	Hashtags          []string  `json:"hashtags"`
	Chapters          []Chapter `json:"chapters"`
	ChaptersEstimated bool      `json:"chaptersEstimated"`
	Engine            string    `json:"engine"`
}

// Chapter starts at Start seconds.
type Chapter struct {
	Start float64 `json:"start"`
	Title string  `json:"title"`
}

// Clip formats.
const (
	FormatPortrait  = "portrait"
	FormatLandscape = "landscape"
)

// Download statuses of a clip project.
const (
	ProjectDownloading = "downloading"
	ProjectReady       = "ready"
	ProjectFailed      = "failed"
)

// ClipProject is a video analysed into ranked clips.
type ClipProject struct {
	ID               string           `json:"id"`
	VideoTitle       string           `json:"videoTitle"`
	VideoSiteURL     string           `json:"videoSiteUrl"`
	DownloadStatus   string           `json:"downloadStatus"`
	DownloadError    *string          `json:"downloadError"`
	PreparationStep  string           `json:"preparationStep"`
	Format           string           `json:"format"`
	Duration         *float64         `json:"duration"`
	TranscriptSource *string          `json:"transcriptSource"`
	Analysis         ProjectAnalysis  `json:"analysis"`
	Clips            []ClipSuggestion `json:"clips"`
	CreatedAt        time.Time        `json:"createdAt"`
	UpdatedAt        time.Time        `json:"updatedAt"`
	ReadyAt          *time.Time       `json:"readyAt"`

	// PreparationProgress is how far the preparation is, 0 to 100.
	PreparationProgress int `json:"preparationProgress"`
}

// ProjectAnalysis is what the project's analysis found.
type ProjectAnalysis struct {
	Engine            string `json:"engine"`
	TranscriptQuality string `json:"transcriptQuality"`
	ContentType       string `json:"contentType"`
	SuggestedFormat   string `json:"suggestedFormat"`
	SuggestedStyle    string `json:"suggestedStyle"`
	// ScoreWeights are the weights the clips' Scores add up to their
	// ViralScore with; nil for a project ranked before sub-scores.
	ScoreWeights *ClipScoreWeights `json:"scoreWeights"`
	// Prompt is the prompt the clips were ranked for; nil without.
	Prompt *string `json:"prompt"`
}

// ClipScoreWeights are the sub-scores' weights, summing to 1.
type ClipScoreWeights struct {
	Hook  float64 `json:"hook"`
	Flow  float64 `json:"flow"`
	Value float64 `json:"value"`
	Trend float64 `json:"trend"`
}

// ClipScores are a clip's sub-scores, 0..100: ViralScore =
// round(Hook×w.Hook + Flow×w.Flow + Value×w.Value + Trend×w.Trend) with
// the project's Analysis.ScoreWeights.
type ClipScores struct {
	Hook  int `json:"hook"`
	Flow  int `json:"flow"`
	Value int `json:"value"`
	Trend int `json:"trend"`
}

// ClipMatch is how a clip matches the project's prompt.
type ClipMatch struct {
	Matched bool `json:"matched"`
	// Terms are the clip's words that matched, as said.
	Terms []string `json:"terms"`
	// Quote is the best-matching sentence; nil when none matched.
	Quote *string `json:"quote"`
}

// ClipSuggestion is a ranked moment.
type ClipSuggestion struct {
	ID           string       `json:"id"`
	Title        string       `json:"title"`
	StartTime    float64      `json:"startTime"`
	EndTime      float64      `json:"endTime"`
	Duration     float64      `json:"duration"`
	Hook         string       `json:"hook"`
	Category     string       `json:"category"`
	ViralScore   int          `json:"viralScore"`
	HookStrength string       `json:"hookStrength"`
	PlatformFit  []string     `json:"platformFit"`
	Mood         string       `json:"mood"`
	Keywords     []string     `json:"keywords"`
	Features     ClipFeatures `json:"features"`
	// Scores are nil for a clip ranked before sub-scores.
	Scores *ClipScores `json:"scores"`
	// Reasons explain the score in short sentences quoting the clip.
	Reasons []string `json:"reasons"`
	// Match is nil when the project has no prompt.
	Match *ClipMatch `json:"match"`
}

// ClipFeatures are the measured features (0..1) behind ViralScore.
type ClipFeatures struct {
	Hook          float64 `json:"hook"`
	SelfContained float64 `json:"selfContained"`
	Salience      float64 `json:"salience"`
	Emotion       float64 `json:"emotion"`
	Pace          float64 `json:"pace"`
	Length        float64 `json:"length"`
	Energy        float64 `json:"energy"`
	Peaks         float64 `json:"peaks"`
	Scenes        float64 `json:"scenes"`
}

// ClipProjectCreate is the body of CreateClipProject.
type ClipProjectCreate struct {
	VideoSiteURL string `json:"video_site_url"`
	Format       string `json:"format,omitempty"`
	// Vocabulary are up to 100 custom terms (names, brands, jargon) that
	// replace the recognised words close to them.
	Vocabulary []string `json:"vocabulary,omitempty"`
	// Prompt (1..500 characters) steers the moments: the ones that match
	// come first, each clip's Match shows how.
	Prompt string `json:"prompt,omitempty"`
}

// RenderRequest is the body of StartRenders: exactly one of ClipID and
// ClipIDs.
type RenderRequest struct {
	ClipID        string         `json:"clip_id,omitempty"`
	ClipIDs       []string       `json:"clip_ids,omitempty"`
	Format        string         `json:"format,omitempty"`
	SubtitleStyle string         `json:"subtitle_style,omitempty"`
	BrandID       string         `json:"brand_id,omitempty"`
	Options       *RenderOptions `json:"options,omitempty"`
}

// RenderOptions are a render's extras.
type RenderOptions struct {
	Music           bool   `json:"music,omitempty"`
	MusicTrackID    string `json:"musicTrackId,omitempty"`
	Broll           bool   `json:"broll,omitempty"`
	HookTitle       bool   `json:"hookTitle,omitempty"`
	ProgressBar     bool   `json:"progressBar,omitempty"`
	BrandFrame      bool   `json:"brandFrame,omitempty"`
	EndCardText     string `json:"endCardText,omitempty"`
	KeywordEmphasis bool   `json:"keywordEmphasis,omitempty"`
	// RemoveSilences shortens pauses over 0.4 s to 0.15 s; RemoveFillers
	// cuts um, uh and lone "you know"s; AutoZoom punches in on emphasis.
	RemoveSilences bool `json:"removeSilences,omitempty"`
	RemoveFillers  bool `json:"removeFillers,omitempty"`
	AutoZoom       bool `json:"autoZoom,omitempty"`
	// Layout frames two people: auto (default), speaker, split or fill.
	Layout string `json:"layout,omitempty"`
	// Censor bleeps or mutes the listed words and masks them in the
	// captions: none (default), bleep or mute.
	Censor string `json:"censor,omitempty"`
	// CaptionLanguage translates the captions and the hook title, by
	// sentence, into an ISO 639-1 language ("es"); empty: the spoken
	// language. An unsupported one is a 400 whose details list the
	// supported languages.
	CaptionLanguage string `json:"captionLanguage,omitempty"`
}

// Render statuses.
const (
	RenderPending   = "pending"
	RenderRendering = "rendering"
	RenderCompleted = "completed"
	RenderFailed    = "failed"
)

// RenderCreation lists the render jobs started and what they cost.
type RenderCreation struct {
	Renders        []RenderStarted `json:"renders"`
	CreditsCharged int             `json:"creditsCharged"`
}

// RenderStarted is a render job just queued.
type RenderStarted struct {
	ID             string `json:"id"`
	ClipID         string `json:"clipId"`
	Status         string `json:"status"`
	CreditsCharged int    `json:"creditsCharged"`
}

// RenderJob is a render's state.
type RenderJob struct {
	ID        string `json:"id"`
	ProjectID string `json:"projectId"`
	ClipID    string `json:"clipId"`
	Status    string `json:"status"`
	// Progress rises from 0 to 100 through the steps of CurrentStep.
	Progress       float64         `json:"progress"`
	CurrentStep    string          `json:"currentStep"`
	Format         string          `json:"format"`
	SubtitleStyle  string          `json:"subtitleStyle"`
	BrandID        *string         `json:"brandId"`
	Options        json.RawMessage `json:"options"`
	OutputURL      *string         `json:"outputUrl"`
	CaptionsURL    *string         `json:"captionsUrl"`
	CropPathURL    *string         `json:"cropPathUrl"`
	CreditsCharged int             `json:"creditsCharged"`
	Error          *string         `json:"error"`
	Notes          []string        `json:"notes"`
	Attempts       int             `json:"attempts"`
	// SecondsRemoved is what the jump cuts took out.
	SecondsRemoved float64    `json:"secondsRemoved"`
	CreatedAt      time.Time  `json:"createdAt"`
	UpdatedAt      time.Time  `json:"updatedAt"`
	CompletedAt    *time.Time `json:"completedAt"`
	// Exports are the files beside the MP4 for an editor, once
	// completed: captions (srt, vtt) and the cut (fcpxml, edl).
	Exports []RenderExport `json:"exports"`
	// CaptionTranslation says how the captions were translated, once
	// completed; nil in the spoken language.
	CaptionTranslation *CaptionTranslation `json:"captionTranslation"`
}

// CaptionTranslation is how a render's captions were translated.
type CaptionTranslation struct {
	// Engine is apertium (offline) or provider (the text provider).
	Engine string `json:"engine"`
	// Quality is draft (apertium) or fluent (provider).
	Quality string `json:"quality"`
	// Language is the captions' language (ISO 639-1).
	Language string `json:"language"`
}

// RenderExport is a file a completed render stores beside its MP4.
type RenderExport struct {
	// Format is srt, vtt, fcpxml or edl.
	Format      string `json:"format"`
	URL         string `json:"url"`
	ContentType string `json:"contentType"`
}

// CensorWords is the profanity filter's list of the organization.
type CensorWords struct {
	// Words are the organization's own words and phrases.
	Words   []string `json:"words"`
	BuiltIn struct {
		Source string `json:"source"`
		Count  int    `json:"count"`
	} `json:"builtIn"`
}

// CensorWordsUpdate is the body of SetCensorWords: the whole list.
type CensorWordsUpdate struct {
	Words []string `json:"words"`
}

// MusicTrack is a track of the render music library.
type MusicTrack struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Moods     []string  `json:"moods"`
	Duration  float64   `json:"duration"`
	SourceURL string    `json:"sourceUrl"`
	CreatedAt time.Time `json:"createdAt"`
}

// MusicTrackCreate is the body of AddMusicTrack.
type MusicTrackCreate struct {
	Name  string   `json:"name"`
	URL   string   `json:"url"`
	Moods []string `json:"moods"`
}

// Footage is a clip of the b-roll library.
type Footage struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Keywords  []string  `json:"keywords"`
	Duration  float64   `json:"duration"`
	SourceURL string    `json:"sourceUrl"`
	CreatedAt time.Time `json:"createdAt"`
}

// FootageCreate is the body of AddBroll.
type FootageCreate struct {
	Name     string   `json:"name"`
	URL      string   `json:"url"`
	Keywords []string `json:"keywords"`
}
