package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"time"

	"github.com/google/uuid"
)

// api is a JSON client of the gateway.
type api struct {
	gateway, key string
	client       *http.Client
}

// call sends body (nil for none) and decodes data into out; it fails on
// any status but want.
func (a api) call(ctx context.Context, method, path string, body any, want int, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.gateway+path, rd) //nolint:gosec // G704: the operator's own -gateway origin
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+a.key)
	req.Header.Set("Content-Type", "application/json")
	if method == http.MethodPost {
		req.Header.Set("Idempotency-Key", uuid.NewString())
	}
	resp, err := a.client.Do(req) //nolint:gosec // G704: the operator's own -gateway origin
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return err
	}
	return json.Unmarshal(env.Data, out)
}

// renders creates a project from body, waits until it is ready, starts
// count renders over its clips (at most one of each clip per request) and
// polls them: the batch's wall time and each render's queue wait (start
// request → first seen rendering) and render time are printed.
func renders(ctx context.Context, out io.Writer, a api, body []byte, count int) error {
	var p struct {
		ID             string `json:"id"`
		DownloadStatus string `json:"downloadStatus"`
		Clips          []struct {
			ID        string  `json:"id"`
			StartTime float64 `json:"startTime"`
			EndTime   float64 `json:"endTime"`
		} `json:"clips"`
	}
	if err := a.call(ctx, http.MethodPost, "/api/v1/clips/projects", json.RawMessage(body), http.StatusCreated, &p); err != nil {
		return err
	}
	for p.DownloadStatus == "downloading" {
		time.Sleep(500 * time.Millisecond)
		if err := a.call(ctx, http.MethodGet, "/api/v1/clips/projects/"+p.ID, nil, http.StatusOK, &p); err != nil {
			return err
		}
	}
	if p.DownloadStatus != "ready" || len(p.Clips) == 0 {
		return fmt.Errorf("project %s: %s with %d clips", p.ID, p.DownloadStatus, len(p.Clips))
	}
	type job struct {
		id, clip      string
		seconds       float64
		asked         time.Time
		started, done time.Time
		status        string
	}
	var jobs []*job
	begin := time.Now()
	for len(jobs) < count {
		var ids []string
		for _, c := range p.Clips {
			if len(jobs)+len(ids) < count {
				ids = append(ids, c.ID)
			}
		}
		var b struct {
			Renders []struct {
				ID     string `json:"id"`
				ClipID string `json:"clipId"`
			} `json:"renders"`
		}
		asked := time.Now()
		if err := a.call(ctx, http.MethodPost, "/api/v1/clips/projects/"+p.ID+"/renders", map[string]any{"clip_ids": ids, "options": map[string]any{"progressBar": true}}, http.StatusCreated, &b); err != nil {
			return err
		}
		for _, r := range b.Renders {
			j := &job{id: r.ID, clip: r.ClipID, asked: asked}
			for _, c := range p.Clips {
				if c.ID == r.ClipID {
					j.seconds = c.EndTime - c.StartTime
				}
			}
			jobs = append(jobs, j)
		}
	}
	for pending := len(jobs); pending > 0; {
		time.Sleep(250 * time.Millisecond)
		pending = 0
		for _, j := range jobs {
			if !j.done.IsZero() {
				continue
			}
			var r struct {
				Status string `json:"status"`
			}
			if err := a.call(ctx, http.MethodGet, "/api/v1/clips/renders/"+j.id, nil, http.StatusOK, &r); err != nil {
				return err
			}
			now := time.Now()
			if r.Status != "pending" && j.started.IsZero() {
				j.started = now
			}
			if r.Status == "completed" || r.Status == "failed" {
				j.done, j.status = now, r.Status
			} else {
				pending++
			}
		}
	}
	wall := time.Since(begin)
	sort.Slice(jobs, func(i, k int) bool { return jobs[i].started.Before(jobs[k].started) })
	var clipSeconds float64
	for _, j := range jobs {
		clipSeconds += j.seconds
		_, _ = fmt.Fprintf(out, "  render %s (%.1f s clip): %s, waited %.1f s, rendered in %.1f s\n",
			j.id[:8], j.seconds, j.status, j.started.Sub(j.asked).Seconds(), j.done.Sub(j.started).Seconds())
	}
	_, _ = fmt.Fprintf(out, "%d renders (%.0f s of clips): wall %.1f s (%.2f× the clips' length)\n", len(jobs), clipSeconds, wall.Seconds(), wall.Seconds()/clipSeconds)
	return nil
}
