package hookline

import (
	"context"
	"iter"
	"net/http"
)

// ListClipProjects returns a page of clip projects, newest first.
func (c *Client) ListClipProjects(ctx context.Context, params *ListParams, opts ...RequestOption) (*Page[ClipProject], error) {
	return listPage[ClipProject](ctx, c, "/api/v1/clips/projects", params, false, opts)
}

// AllClipProjects walks the clip projects from params' page to the end.
func (c *Client) AllClipProjects(ctx context.Context, params *ListParams, opts ...RequestOption) iter.Seq2[ClipProject, error] {
	return all(ctx, params, func(ctx context.Context, p *ListParams) (*Page[ClipProject], error) {
		return c.ListClipProjects(ctx, p, opts...)
	})
}

// CreateClipProject analyses a video into ranked clips (free); the source
// is prepared in the background (WaitForProject).
func (c *Client) CreateClipProject(ctx context.Context, req *ClipProjectCreate, opts ...RequestOption) (*ClipProject, error) {
	return sendData[ClipProject](ctx, c, call{method: http.MethodPost, path: "/api/v1/clips/projects", body: req}, opts)
}

// GetClipProject returns a clip project.
func (c *Client) GetClipProject(ctx context.Context, projectID string, opts ...RequestOption) (*ClipProject, error) {
	return getData[ClipProject](ctx, c, "/api/v1/clips/projects/"+pathID(projectID), nil, opts)
}

// ListRenders returns a page of a project's render jobs, newest first.
func (c *Client) ListRenders(ctx context.Context, projectID string, params *ListParams, opts ...RequestOption) (*Page[RenderJob], error) {
	return listPage[RenderJob](ctx, c, "/api/v1/clips/projects/"+pathID(projectID)+"/renders", params, false, opts)
}

// AllRenders walks a project's render jobs from params' page to the end.
func (c *Client) AllRenders(ctx context.Context, projectID string, params *ListParams, opts ...RequestOption) iter.Seq2[RenderJob, error] {
	return all(ctx, params, func(ctx context.Context, p *ListParams) (*Page[RenderJob], error) {
		return c.ListRenders(ctx, projectID, p, opts...)
	})
}

// StartRenders queues renders of a project's clips (2 credits per clip).
func (c *Client) StartRenders(ctx context.Context, projectID string, req *RenderRequest, opts ...RequestOption) (*RenderCreation, error) {
	return sendData[RenderCreation](ctx, c, call{method: http.MethodPost, path: "/api/v1/clips/projects/" + pathID(projectID) + "/renders", body: req}, opts)
}

// GetRender returns a render job.
func (c *Client) GetRender(ctx context.Context, renderID string, opts ...RequestOption) (*RenderJob, error) {
	return getData[RenderJob](ctx, c, "/api/v1/clips/renders/"+pathID(renderID), nil, opts)
}

// GetCensorWords returns the organization's profanity-filter words and
// the built-in list's source and size.
func (c *Client) GetCensorWords(ctx context.Context, opts ...RequestOption) (*CensorWords, error) {
	return getData[CensorWords](ctx, c, "/api/v1/clips/censor-words", nil, opts)
}

// SetCensorWords replaces the organization's own profanity-filter words
// (free; an empty list removes them).
func (c *Client) SetCensorWords(ctx context.Context, req *CensorWordsUpdate, opts ...RequestOption) (*CensorWords, error) {
	if req != nil && req.Words == nil {
		req = &CensorWordsUpdate{Words: []string{}}
	}
	return sendData[CensorWords](ctx, c, call{method: http.MethodPut, path: "/api/v1/clips/censor-words", body: req}, opts)
}
