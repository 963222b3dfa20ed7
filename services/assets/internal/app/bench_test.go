package app_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/platform/principal"
	"hookline.dev/pkg/testkit"
	"hookline.dev/pkg/testkit/apptest"
)

// paced issues b.N GETs of path as org at rate per second (open loop: a
// slow answer does not delay the next request) and reports the latency
// percentiles. Run with e.g. -benchtime=2000x for 10 s at 200 req/s.
func paced(b *testing.B, h *harness, path, org string, rate int) {
	b.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 10 * time.Second}
	hdr := apptest.Sign(b, org, "")
	lat := make([]time.Duration, b.N)
	errs := make(chan error, b.N)
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	var wg sync.WaitGroup
	b.ResetTimer()
	for i := range b.N {
		<-tick.C
		wg.Go(func() {
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, h.URL+path, nil)
			req.Header.Set(principal.Header, hdr)
			start := time.Now()
			res, err := client.Do(req)
			if err != nil {
				errs <- err
				return
			}
			_, _ = io.Copy(io.Discard, res.Body)
			_ = res.Body.Close()
			lat[i] = time.Since(start)
			if res.StatusCode != 200 {
				errs <- &statusError{res.StatusCode}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
}

type statusError struct{ status int }

func (e *statusError) Error() string { return http.StatusText(e.status) }

// BenchmarkListFaces: GET /faces (first page of 20, 100 faces stored) at
// 200 req/s.
func BenchmarkListFaces(b *testing.B) {
	h := newHarness(b)
	org := newOrg()
	ctx := context.Background()
	for i := range 100 {
		id := uuid.NewString()
		at := time.Now().Add(time.Duration(i) * time.Millisecond)
		pre := "orgs/" + org + "/faces/" + id + "/"
		if _, err := h.Pool.Exec(ctx, `INSERT INTO faces (id, org_id, name, image_keys, thumbnail_key, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $6)`, id, org, "Face", []string{pre + "0.jpg", pre + "1.jpg"}, pre+"thumb.jpg", at); err != nil {
			b.Fatal(err)
		}
	}
	paced(b, h, "/faces", org, 200)
}

// BenchmarkCollectionDetail: GET /collections/{id} holding 100 thumbnails
// at 200 req/s.
func BenchmarkCollectionDetail(b *testing.B) {
	h := newHarness(b)
	org := newOrg()
	var c struct {
		ID string `json:"id"`
	}
	h.Must(201, "POST", "/collections", org, map[string]any{"name": "Big"}).Into(b, &c)
	ctx := context.Background()
	for i := range 100 {
		id := uuid.NewString()
		at := time.Now().Add(time.Duration(i) * time.Millisecond)
		if _, err := h.Pool.Exec(ctx, `INSERT INTO thumbnails (id, org_id, image_url, prompt, created_at) VALUES ($1, $2, $3, $4, $5)`,
			id, org, "https://cdn.example/t/"+id+".png", "a prompt of ordinary length for a thumbnail", at); err != nil {
			b.Fatal(err)
		}
		if _, err := h.Pool.Exec(ctx, `INSERT INTO collection_thumbnails (collection_id, thumbnail_id, added_at) VALUES ($1, $2, $3)`, c.ID, id, at); err != nil {
			b.Fatal(err)
		}
	}
	paced(b, h, "/collections/"+c.ID, org, 200)
}

// BenchmarkCreateFace: POST /faces, one request after another, with the
// astronaut evaluation photo (512², PNG) once and ten times: loading and
// copying the photos, detecting a face on each, cropping and storing the
// thumbnail, and the record.
func BenchmarkCreateFace(b *testing.B) {
	h := newHarness(b)
	org := newOrg()
	photo := h.upload(org, "astronaut.png", "image/png", testkit.EvalPhotoBytes(b, "astronaut.png"))
	for _, n := range []int{1, 10} {
		b.Run(fmt.Sprintf("photos=%d", n), func(b *testing.B) {
			body := map[string]any{"name": "Eileen", "imageUrls": slices.Repeat([]string{photo}, n)}
			for b.Loop() {
				h.Must(201, "POST", "/faces", org, body)
			}
		})
	}
}
