package hookline

import (
	"context"
	"iter"
)

// GetCredits returns the organization's balance.
func (c *Client) GetCredits(ctx context.Context, opts ...RequestOption) (*Credits, error) {
	return getData[Credits](ctx, c, "/api/v1/account/credits", nil, opts)
}

// ListUsage returns a page of credit reservations, newest first.
func (c *Client) ListUsage(ctx context.Context, params *ListParams, opts ...RequestOption) (*Page[Usage], error) {
	return listPage[Usage](ctx, c, "/api/v1/account/usage", params, false, opts)
}

// AllUsage walks the usage history from params' page to its end.
func (c *Client) AllUsage(ctx context.Context, params *ListParams, opts ...RequestOption) iter.Seq2[Usage, error] {
	return all(ctx, params, func(ctx context.Context, p *ListParams) (*Page[Usage], error) { return c.ListUsage(ctx, p, opts...) })
}
