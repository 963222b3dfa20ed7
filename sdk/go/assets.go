package hookline

import (
	"context"
	"iter"
	"net/http"
)

// CreateFaceUploadURLs signs one upload per face photo, in request order.
func (c *Client) CreateFaceUploadURLs(ctx context.Context, req *FaceUploadURLsRequest, opts ...RequestOption) ([]PresignedUpload, error) {
	out, err := sendData[[]PresignedUpload](ctx, c, call{method: http.MethodPost, path: "/api/v1/faces/upload-urls", body: req}, opts)
	if err != nil {
		return nil, err
	}
	return *out, nil
}

// ListFaces returns a page of faces.
func (c *Client) ListFaces(ctx context.Context, params *ListParams, opts ...RequestOption) (*Page[Face], error) {
	return listPage[Face](ctx, c, "/api/v1/faces", params, false, opts)
}

// AllFaces walks the faces from params' page to the end.
func (c *Client) AllFaces(ctx context.Context, params *ListParams, opts ...RequestOption) iter.Seq2[Face, error] {
	return all(ctx, params, func(ctx context.Context, p *ListParams) (*Page[Face], error) { return c.ListFaces(ctx, p, opts...) })
}

// CreateFace saves a named person from 1 to 10 photos.
func (c *Client) CreateFace(ctx context.Context, req *FaceCreate, opts ...RequestOption) (*Face, error) {
	return sendData[Face](ctx, c, call{method: http.MethodPost, path: "/api/v1/faces", body: req}, opts)
}

// GetFace returns a face.
func (c *Client) GetFace(ctx context.Context, id string, opts ...RequestOption) (*Face, error) {
	return getData[Face](ctx, c, "/api/v1/faces/"+pathID(id), nil, opts)
}

// UpdateFace changes a face.
func (c *Client) UpdateFace(ctx context.Context, id string, req *FaceUpdate, opts ...RequestOption) (*Face, error) {
	return sendData[Face](ctx, c, call{method: http.MethodPatch, path: "/api/v1/faces/" + pathID(id), body: req}, opts)
}

// DeleteFace deletes a face and its photos.
func (c *Client) DeleteFace(ctx context.Context, id string, opts ...RequestOption) error {
	return c.do(ctx, call{method: http.MethodDelete, path: "/api/v1/faces/" + pathID(id)}, nil, opts)
}

// ListStyles returns a page of styles.
func (c *Client) ListStyles(ctx context.Context, params *ListParams, opts ...RequestOption) (*Page[Style], error) {
	return listPage[Style](ctx, c, "/api/v1/styles", params, false, opts)
}

// AllStyles walks the styles from params' page to the end.
func (c *Client) AllStyles(ctx context.Context, params *ListParams, opts ...RequestOption) iter.Seq2[Style, error] {
	return all(ctx, params, func(ctx context.Context, p *ListParams) (*Page[Style], error) { return c.ListStyles(ctx, p, opts...) })
}

// CreateStyle measures a style from reference images.
func (c *Client) CreateStyle(ctx context.Context, req *StyleCreate, opts ...RequestOption) (*Style, error) {
	return sendData[Style](ctx, c, call{method: http.MethodPost, path: "/api/v1/styles", body: req}, opts)
}

// GetStyle returns a style.
func (c *Client) GetStyle(ctx context.Context, id string, opts ...RequestOption) (*Style, error) {
	return getData[Style](ctx, c, "/api/v1/styles/"+pathID(id), nil, opts)
}

// UpdateStyle changes a style.
func (c *Client) UpdateStyle(ctx context.Context, id string, req *StyleUpdate, opts ...RequestOption) (*Style, error) {
	return sendData[Style](ctx, c, call{method: http.MethodPatch, path: "/api/v1/styles/" + pathID(id), body: req}, opts)
}

// DeleteStyle deletes a style and its references.
func (c *Client) DeleteStyle(ctx context.Context, id string, opts ...RequestOption) error {
	return c.do(ctx, call{method: http.MethodDelete, path: "/api/v1/styles/" + pathID(id)}, nil, opts)
}

// ListBrands returns a page of brands.
func (c *Client) ListBrands(ctx context.Context, params *ListParams, opts ...RequestOption) (*Page[Brand], error) {
	return listPage[Brand](ctx, c, "/api/v1/brands", params, false, opts)
}

// AllBrands walks the brands from params' page to the end.
func (c *Client) AllBrands(ctx context.Context, params *ListParams, opts ...RequestOption) iter.Seq2[Brand, error] {
	return all(ctx, params, func(ctx context.Context, p *ListParams) (*Page[Brand], error) { return c.ListBrands(ctx, p, opts...) })
}

// CreateBrand saves a brand kit, by hand or imported from a website.
func (c *Client) CreateBrand(ctx context.Context, req *BrandCreate, opts ...RequestOption) (*Brand, error) {
	return sendData[Brand](ctx, c, call{method: http.MethodPost, path: "/api/v1/brands", body: req}, opts)
}

// GetBrand returns a brand.
func (c *Client) GetBrand(ctx context.Context, id string, opts ...RequestOption) (*Brand, error) {
	return getData[Brand](ctx, c, "/api/v1/brands/"+pathID(id), nil, opts)
}

// UpdateBrand changes a brand.
func (c *Client) UpdateBrand(ctx context.Context, id string, req *BrandUpdate, opts ...RequestOption) (*Brand, error) {
	return sendData[Brand](ctx, c, call{method: http.MethodPatch, path: "/api/v1/brands/" + pathID(id), body: req}, opts)
}

// DeleteBrand deletes a brand and its logo.
func (c *Client) DeleteBrand(ctx context.Context, id string, opts ...RequestOption) error {
	return c.do(ctx, call{method: http.MethodDelete, path: "/api/v1/brands/" + pathID(id)}, nil, opts)
}

// ListCollections returns a page of collections, without their thumbnails.
func (c *Client) ListCollections(ctx context.Context, params *ListParams, opts ...RequestOption) (*Page[Collection], error) {
	return listPage[Collection](ctx, c, "/api/v1/collections", params, false, opts)
}

// AllCollections walks the collections from params' page to the end.
func (c *Client) AllCollections(ctx context.Context, params *ListParams, opts ...RequestOption) iter.Seq2[Collection, error] {
	return all(ctx, params, func(ctx context.Context, p *ListParams) (*Page[Collection], error) {
		return c.ListCollections(ctx, p, opts...)
	})
}

// CreateCollection makes an empty collection.
func (c *Client) CreateCollection(ctx context.Context, req *CollectionCreate, opts ...RequestOption) (*CollectionDetail, error) {
	return sendData[CollectionDetail](ctx, c, call{method: http.MethodPost, path: "/api/v1/collections", body: req}, opts)
}

// GetCollection returns a collection with its thumbnails.
func (c *Client) GetCollection(ctx context.Context, id string, opts ...RequestOption) (*CollectionDetail, error) {
	return getData[CollectionDetail](ctx, c, "/api/v1/collections/"+pathID(id), nil, opts)
}

// UpdateCollection changes a collection.
func (c *Client) UpdateCollection(ctx context.Context, id string, req *CollectionUpdate, opts ...RequestOption) (*CollectionDetail, error) {
	return sendData[CollectionDetail](ctx, c, call{method: http.MethodPatch, path: "/api/v1/collections/" + pathID(id), body: req}, opts)
}

// DeleteCollection deletes a collection; its thumbnails stay.
func (c *Client) DeleteCollection(ctx context.Context, id string, opts ...RequestOption) error {
	return c.do(ctx, call{method: http.MethodDelete, path: "/api/v1/collections/" + pathID(id)}, nil, opts)
}

// AddCollectionThumbnails adds thumbnails to a collection.
func (c *Client) AddCollectionThumbnails(ctx context.Context, id string, req *CollectionMembership, opts ...RequestOption) (*CollectionDetail, error) {
	return sendData[CollectionDetail](ctx, c, call{method: http.MethodPost, path: "/api/v1/collections/" + pathID(id) + "/thumbnails", body: req}, opts)
}

// RemoveCollectionThumbnails takes thumbnails out of a collection.
func (c *Client) RemoveCollectionThumbnails(ctx context.Context, id string, req *CollectionMembership, opts ...RequestOption) (*CollectionDetail, error) {
	return sendData[CollectionDetail](ctx, c, call{method: http.MethodDelete, path: "/api/v1/collections/" + pathID(id) + "/thumbnails", body: req}, opts)
}
