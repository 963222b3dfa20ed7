package hookline

import (
	"context"
	"iter"
	"net/http"
)

// The admin API takes the operator's token (WithAdminToken), never an
// organization's API key.

// CreateOrganization creates an organization; billing opens its account
// with the tier's credits shortly after.
func (c *Client) CreateOrganization(ctx context.Context, req *OrganizationCreate, opts ...RequestOption) (*Organization, error) {
	return sendData[Organization](ctx, c, call{method: http.MethodPost, path: "/admin/v1/organizations", body: req, admin: true}, opts)
}

// CreateKey creates an API key of an organization; its secret is in this
// answer only.
func (c *Client) CreateKey(ctx context.Context, organizationID string, req *KeyCreate, opts ...RequestOption) (*NewAPIKey, error) {
	return sendData[NewAPIKey](ctx, c, call{method: http.MethodPost, path: "/admin/v1/organizations/" + pathID(organizationID) + "/keys", body: req, admin: true}, opts)
}

// GrantCredits grants credits (applied shortly, asynchronously) or applies
// an adjustment (at once).
func (c *Client) GrantCredits(ctx context.Context, organizationID string, req *CreditGrantRequest, opts ...RequestOption) (*CreditGrantResult, error) {
	return sendData[CreditGrantResult](ctx, c, call{method: http.MethodPost, path: "/admin/v1/organizations/" + pathID(organizationID) + "/credits", body: req, admin: true}, opts)
}

// RevokeKey revokes an API key (idempotent).
func (c *Client) RevokeKey(ctx context.Context, keyID string, opts ...RequestOption) error {
	return c.do(ctx, call{method: http.MethodDelete, path: "/admin/v1/keys/" + pathID(keyID), admin: true}, nil, opts)
}

// ListMusicTracks returns a page of the render music library.
func (c *Client) ListMusicTracks(ctx context.Context, params *ListParams, opts ...RequestOption) (*Page[MusicTrack], error) {
	return listPage[MusicTrack](ctx, c, "/admin/v1/music-tracks", params, true, opts)
}

// AllMusicTracks walks the music library from params' page to the end.
func (c *Client) AllMusicTracks(ctx context.Context, params *ListParams, opts ...RequestOption) iter.Seq2[MusicTrack, error] {
	return all(ctx, params, func(ctx context.Context, p *ListParams) (*Page[MusicTrack], error) {
		return c.ListMusicTracks(ctx, p, opts...)
	})
}

// AddMusicTrack adds a track to the music library.
func (c *Client) AddMusicTrack(ctx context.Context, req *MusicTrackCreate, opts ...RequestOption) (*MusicTrack, error) {
	return sendData[MusicTrack](ctx, c, call{method: http.MethodPost, path: "/admin/v1/music-tracks", body: req, admin: true}, opts)
}

// ListBroll returns a page of the b-roll library.
func (c *Client) ListBroll(ctx context.Context, params *ListParams, opts ...RequestOption) (*Page[Footage], error) {
	return listPage[Footage](ctx, c, "/admin/v1/broll", params, true, opts)
}

// AllBroll walks the b-roll library from params' page to the end.
func (c *Client) AllBroll(ctx context.Context, params *ListParams, opts ...RequestOption) iter.Seq2[Footage, error] {
	return all(ctx, params, func(ctx context.Context, p *ListParams) (*Page[Footage], error) { return c.ListBroll(ctx, p, opts...) })
}

// AddBroll adds footage to the b-roll library.
func (c *Client) AddBroll(ctx context.Context, req *FootageCreate, opts ...RequestOption) (*Footage, error) {
	return sendData[Footage](ctx, c, call{method: http.MethodPost, path: "/admin/v1/broll", body: req, admin: true}, opts)
}
