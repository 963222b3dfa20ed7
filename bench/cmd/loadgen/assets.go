package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/events"
)

// assets measures the read paths of the assets service through the
// gateway at a steady rate: the face list, and a collection whose 100
// thumbnails arrived as thumbnails.thumbnail.created.v1 events.
func (l *load) assets(ctx context.Context, gateway, key string, rate int, d time.Duration) error {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: 10 * time.Second}
	call := func(method, path string, body any) (int, []byte, error) {
		var r io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			r = bytes.NewReader(b)
		}
		req, err := http.NewRequestWithContext(ctx, method, gateway+"/api/v1"+path, r) //nolint:gosec // G704: the operator's own -gateway origin; this is a load generator
		if err != nil {
			return 0, nil, err
		}
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req) //nolint:gosec // G704: the operator's own -gateway origin; this is a load generator
		if err != nil {
			return 0, nil, err
		}
		defer func() { _ = resp.Body.Close() }()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, err
	}
	st, b, err := call("GET", "/auth/verify", nil)
	if err != nil {
		return fmt.Errorf("verify: %d %s %w", st, b, err)
	}
	if st != 200 {
		return fmt.Errorf("verify: status %d: %s", st, b)
	}
	var who struct {
		Data struct {
			Organization struct{ ID string } `json:"organization"`
		} `json:"data"`
	}
	_ = json.Unmarshal(b, &who)
	org := who.Data.Organization.ID

	st, b, err = call("POST", "/collections", map[string]string{"name": "bench"})
	if err != nil {
		return fmt.Errorf("create collection: %d %s %w", st, b, err)
	}
	if st != 201 {
		return fmt.Errorf("create collection: status %d: %s", st, b)
	}
	var coll struct {
		Data struct{ ID string } `json:"data"`
	}
	_ = json.Unmarshal(b, &coll)
	for i := range 100 {
		id := uuid.NewString()
		if err := l.publish(ctx, events.ThumbnailsThumbnailCreated, org, events.ThumbnailCreated{
			ThumbnailID: id, ImageURL: "https://cdn.example/" + id + ".png", Prompt: fmt.Sprintf("bench %d", i), CollectionID: coll.Data.ID,
		}); err != nil {
			return err
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, b, err := call("GET", "/collections/"+coll.Data.ID, nil)
		var c struct {
			Data struct {
				Thumbnails []any `json:"thumbnails"`
			} `json:"data"`
		}
		if err == nil && json.Unmarshal(b, &c) == nil && len(c.Data.Thumbnails) == 100 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("collection did not fill: %s", b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, path := range []string{"/faces", "/collections/" + coll.Data.ID} {
		var mu sync.Mutex
		var lat []time.Duration
		var failed int
		var wg sync.WaitGroup
		tick := time.NewTicker(time.Second / time.Duration(rate))
		for end := time.Now().Add(d); time.Now().Before(end); {
			<-tick.C
			wg.Go(func() {
				start := time.Now()
				st, _, err := call("GET", path, nil)
				mu.Lock()
				defer mu.Unlock()
				if err != nil || st != 200 {
					failed++
					return
				}
				lat = append(lat, time.Since(start))
			})
		}
		tick.Stop()
		wg.Wait()
		_, _ = fmt.Fprintf(l.out, "GET %s through the gateway at %d/s for %s: %d ok, %d failed: %s\n", path, rate, d, len(lat), failed, summary(lat))
	}
	return nil
}
