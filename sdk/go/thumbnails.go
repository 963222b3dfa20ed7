package hookline

import (
	"context"
	"iter"
	"net/http"
)

// ListThumbnails returns a page of the organization's thumbnails.
func (c *Client) ListThumbnails(ctx context.Context, params *ListThumbnailsParams, opts ...RequestOption) (*Page[Thumbnail], error) {
	return listPage[Thumbnail](ctx, c, "/api/v1/thumbnails", params, false, opts)
}

// AllThumbnails walks the thumbnails from params' page to the end.
func (c *Client) AllThumbnails(ctx context.Context, params *ListThumbnailsParams, opts ...RequestOption) iter.Seq2[Thumbnail, error] {
	return all(ctx, params, func(ctx context.Context, p *ListThumbnailsParams) (*Page[Thumbnail], error) {
		return c.ListThumbnails(ctx, p, opts...)
	})
}

// CreateThumbnail generates one thumbnail (1 credit).
func (c *Client) CreateThumbnail(ctx context.Context, req *ThumbnailCreate, opts ...RequestOption) (*Thumbnail, error) {
	return sendData[Thumbnail](ctx, c, call{method: http.MethodPost, path: "/api/v1/thumbnails", body: req}, opts)
}

// GetThumbnail returns a thumbnail.
func (c *Client) GetThumbnail(ctx context.Context, id string, opts ...RequestOption) (*Thumbnail, error) {
	return getData[Thumbnail](ctx, c, "/api/v1/thumbnails/"+pathID(id), nil, opts)
}

// DeleteThumbnail deletes a thumbnail and its image.
func (c *Client) DeleteThumbnail(ctx context.Context, id string, opts ...RequestOption) error {
	return c.do(ctx, call{method: http.MethodDelete, path: "/api/v1/thumbnails/" + pathID(id)}, nil, opts)
}

// AnalyzeVideo proposes three thumbnail concepts for a video (free).
func (c *Client) AnalyzeVideo(ctx context.Context, req *AnalyzeRequest, opts ...RequestOption) (*ConceptAnalysis, error) {
	return sendData[ConceptAnalysis](ctx, c, call{method: http.MethodPost, path: "/api/v1/thumbnails/analyze", body: req}, opts)
}

// CreateVariations makes variations of a thumbnail (1 credit each) and
// returns those that succeeded.
func (c *Client) CreateVariations(ctx context.Context, req *VariationsRequest, opts ...RequestOption) ([]Thumbnail, error) {
	out, err := sendData[[]Thumbnail](ctx, c, call{method: http.MethodPost, path: "/api/v1/thumbnails/variations", body: req}, opts)
	if err != nil {
		return nil, err
	}
	return *out, nil
}

func (c *Client) edit(ctx context.Context, path string, req any, opts []RequestOption) (*EditResult, error) {
	return sendData[EditResult](ctx, c, call{method: http.MethodPost, path: "/api/v1/thumbnails/edit" + path, body: req}, opts)
}

// EditImage carries out the instructions of a prompt (1 credit).
func (c *Client) EditImage(ctx context.Context, req *EditRequest, opts ...RequestOption) (*EditResult, error) {
	return c.edit(ctx, "", req, opts)
}

// FaceSwap puts another face on the picture's largest face (1 credit).
func (c *Client) FaceSwap(ctx context.Context, req *FaceSwapRequest, opts ...RequestOption) (*EditResult, error) {
	return c.edit(ctx, "/face-swap", req, opts)
}

// RemoveBackground cuts the subject out onto transparency (free).
func (c *Client) RemoveBackground(ctx context.Context, req *BackgroundRemoveRequest, opts ...RequestOption) (*EditResult, error) {
	return c.edit(ctx, "/background-remove", req, opts)
}

// ReplaceBackground puts the subject on a background composed from a
// prompt (1 credit).
func (c *Client) ReplaceBackground(ctx context.Context, req *BackgroundReplaceRequest, opts ...RequestOption) (*EditResult, error) {
	return c.edit(ctx, "/background-replace", req, opts)
}

// EnhanceColor applies a colour preset (free).
func (c *Client) EnhanceColor(ctx context.Context, req *ColorEnhanceRequest, opts ...RequestOption) (*EditResult, error) {
	return c.edit(ctx, "/color-enhance", req, opts)
}

// UpscaleImage enlarges a picture 2x or 4x (free).
func (c *Client) UpscaleImage(ctx context.Context, req *UpscaleRequest, opts ...RequestOption) (*EditResult, error) {
	return c.edit(ctx, "/upscale", req, opts)
}

// FilterImage applies the filters a prompt names (free).
func (c *Client) FilterImage(ctx context.Context, req *FilterRequest, opts ...RequestOption) (*EditResult, error) {
	return c.edit(ctx, "/filter", req, opts)
}

// CombineImages lays two pictures out on one canvas (1 credit).
func (c *Client) CombineImages(ctx context.Context, req *CombineRequest, opts ...RequestOption) (*EditResult, error) {
	return c.edit(ctx, "/combine", req, opts)
}

// CritiqueThumbnail measures a thumbnail and advises (1 credit).
func (c *Client) CritiqueThumbnail(ctx context.Context, req *CritiqueRequest, opts ...RequestOption) (*Critique, error) {
	return sendData[Critique](ctx, c, call{method: http.MethodPost, path: "/api/v1/thumbnails/critique", body: req}, opts)
}

// OptimizeIdea turns a rough idea into a generated thumbnail (1 credit).
func (c *Client) OptimizeIdea(ctx context.Context, req *OptimizeRequest, opts ...RequestOption) (*OptimizedThumbnail, error) {
	return sendData[OptimizedThumbnail](ctx, c, call{method: http.MethodPost, path: "/api/v1/thumbnails/optimize", body: req}, opts)
}

// SuggestTextOverlay proposes headline placements (free).
func (c *Client) SuggestTextOverlay(ctx context.Context, req *TextOverlayRequest, opts ...RequestOption) (*TextOverlaySuggestions, error) {
	return sendData[TextOverlaySuggestions](ctx, c, call{method: http.MethodPost, path: "/api/v1/thumbnails/analyze/text-overlay", body: req}, opts)
}

// ExtractVideoSiteThumbnail copies a hosted video's own thumbnail (free).
func (c *Client) ExtractVideoSiteThumbnail(ctx context.Context, req *ExtractVideoSiteRequest, opts ...RequestOption) (*VideoSiteThumbnail, error) {
	return sendData[VideoSiteThumbnail](ctx, c, call{method: http.MethodPost, path: "/api/v1/thumbnails/extract-videosite", body: req}, opts)
}

// ListTemplates returns a page of the template catalogue.
func (c *Client) ListTemplates(ctx context.Context, params *ListTemplatesParams, opts ...RequestOption) (*Page[Template], error) {
	return listPage[Template](ctx, c, "/api/v1/templates", params, false, opts)
}

// AllTemplates walks the catalogue from params' page to the end.
func (c *Client) AllTemplates(ctx context.Context, params *ListTemplatesParams, opts ...RequestOption) iter.Seq2[Template, error] {
	return all(ctx, params, func(ctx context.Context, p *ListTemplatesParams) (*Page[Template], error) {
		return c.ListTemplates(ctx, p, opts...)
	})
}

// RemixTemplate fills a template and draws it (1 credit); a nil req
// remixes the template as it is.
func (c *Client) RemixTemplate(ctx context.Context, id string, req *RemixRequest, opts ...RequestOption) (*Thumbnail, error) {
	if req == nil {
		req = &RemixRequest{}
	}
	return sendData[Thumbnail](ctx, c, call{method: http.MethodPost, path: "/api/v1/templates/" + pathID(id) + "/remix", body: req}, opts)
}

// GenerateTitles proposes video titles (free).
func (c *Client) GenerateTitles(ctx context.Context, req *TitlesRequest, opts ...RequestOption) (*Titles, error) {
	return sendData[Titles](ctx, c, call{method: http.MethodPost, path: "/api/v1/seo/titles", body: req}, opts)
}

// GenerateDescription writes a video description (free).
func (c *Client) GenerateDescription(ctx context.Context, req *DescriptionRequest, opts ...RequestOption) (*VideoDescription, error) {
	return sendData[VideoDescription](ctx, c, call{method: http.MethodPost, path: "/api/v1/seo/description", body: req}, opts)
}
