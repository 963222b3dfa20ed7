package hookline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// WaitOptions tune a waiter.
type WaitOptions[T any] struct {
	// Interval is the time between polls; 0 means 2 s.
	Interval time.Duration
	// Progress, when set, is called with the first state seen and with
	// every state that differs from the previous one in status, step or
	// progress.
	Progress func(*T)
}

// ErrProjectFailed is wrapped by the error of WaitForProject when the
// source could not be prepared.
var ErrProjectFailed = errors.New("hookline: clip project failed")

// ErrRenderFailed is wrapped by the error of WaitForRender when the
// render failed (its credits are refunded).
var ErrRenderFailed = errors.New("hookline: render failed")

// WaitForProject polls a clip project until its source is prepared
// (downloadStatus ready) or failed; a failed project is returned with an
// error wrapping ErrProjectFailed. Polls go through the client's retries;
// ctx bounds the whole wait.
func (c *Client) WaitForProject(ctx context.Context, projectID string, opts *WaitOptions[ClipProject]) (*ClipProject, error) {
	p, err := poll(ctx, opts, func(ctx context.Context) (*ClipProject, error) { return c.GetClipProject(ctx, projectID) },
		func(p *ClipProject) string { return p.DownloadStatus + "/" + p.PreparationStep },
		func(p *ClipProject) bool { return p.DownloadStatus != ProjectDownloading })
	if err != nil {
		return p, err
	}
	if p.DownloadStatus == ProjectFailed {
		reason := "no reason given"
		if p.DownloadError != nil {
			reason = *p.DownloadError
		}
		return p, fmt.Errorf("%w: %s", ErrProjectFailed, reason)
	}
	return p, nil
}

// WaitForRender polls a render job until it is completed or failed; a
// failed render is returned with an error wrapping ErrRenderFailed.
func (c *Client) WaitForRender(ctx context.Context, renderID string, opts *WaitOptions[RenderJob]) (*RenderJob, error) {
	r, err := poll(ctx, opts, func(ctx context.Context) (*RenderJob, error) { return c.GetRender(ctx, renderID) },
		func(r *RenderJob) string { return fmt.Sprintf("%s/%s/%.1f", r.Status, r.CurrentStep, r.Progress) },
		func(r *RenderJob) bool { return r.Status == RenderCompleted || r.Status == RenderFailed })
	if err != nil {
		return r, err
	}
	if r.Status == RenderFailed {
		reason := "no reason given"
		if r.Error != nil {
			reason = *r.Error
		}
		return r, fmt.Errorf("%w: %s", ErrRenderFailed, reason)
	}
	return r, nil
}

// poll gets the state until done says so, reporting each change.
func poll[T any](ctx context.Context, opts *WaitOptions[T], get func(context.Context) (*T, error), state func(*T) string, done func(*T) bool) (*T, error) {
	var o WaitOptions[T]
	if opts != nil {
		o = *opts
	}
	if o.Interval <= 0 {
		o.Interval = 2 * time.Second
	}
	last := ""
	for {
		cur, err := get(ctx)
		if err != nil {
			return nil, err
		}
		if s := state(cur); s != last {
			last = s
			if o.Progress != nil {
				o.Progress(cur)
			}
		}
		if done(cur) {
			return cur, nil
		}
		if err := sleepCtx(ctx, o.Interval); err != nil {
			return cur, err
		}
	}
}

// Download copies the file at url (a render's OutputURL, a thumbnail's
// ImageURL: public addresses of the object store) to w.
func (c *Client) Download(ctx context.Context, url string, w io.Writer) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, fmt.Errorf("hookline: download: %w", err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, fmt.Errorf("hookline: download: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("hookline: download %s: %s", url, resp.Status)
	}
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return n, fmt.Errorf("hookline: download %s: %w", url, err)
	}
	return n, nil
}
