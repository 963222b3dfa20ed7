package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"hookline.dev/pkg/platform/principal"
)

// budgetLoad is the image memory budget's load test (issue 21): a burst
// of background-removes of one large picture, sent at once straight to
// the thumbnails service.
type budgetLoad struct {
	url       string // the thumbnails service's origin
	principal string // a signed principal (X-Hookline-Principal)
	image     string // the picture's URL
	n         int    // requests sent at once
	pid       int    // the thumbnails process, sampled for RSS
	settle    time.Duration
}

// budgetAnswer is one request's outcome.
type budgetAnswer struct {
	status     int
	retryAfter string
	took       time.Duration
	err        error
}

// budget sends l.n background-removes of l.image at once, samples the
// process's RSS every 100 ms until every request is answered, then waits
// l.settle and reads the RSS again. It prints the answers by status (a 503
// must carry Retry-After), the latencies, the RSS at rest before, at its
// sampled peak during and l.settle after the burst, and the process's
// peak (VmHWM, which no sampling misses), and whether they meet issue
// 21's goals.
func budget(ctx context.Context, out io.Writer, l budgetLoad) error {
	body, err := json.Marshal(map[string]string{"imageUrl": l.image})
	if err != nil {
		return err
	}
	client := &http.Client{Timeout: 5 * time.Minute}
	before := rssKB(l.pid)
	stopSampling := sampleRSS(l.pid, 100*time.Millisecond)
	answers := make([]budgetAnswer, l.n)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range answers {
		wg.Go(func() { answers[i] = removeOnce(ctx, client, l, body) })
	}
	wg.Wait()
	took := time.Since(start)
	peak := stopSampling()

	byStatus := map[string]int{}
	var lat []time.Duration
	ok := true
	for _, a := range answers {
		switch {
		case a.err != nil:
			byStatus["transport: "+a.err.Error()]++
			ok = false
		case a.status/100 == 2:
			byStatus[fmt.Sprint(a.status)]++
			lat = append(lat, a.took)
		case a.status == http.StatusServiceUnavailable && a.retryAfter != "":
			byStatus["503 Retry-After: "+a.retryAfter]++
			lat = append(lat, a.took)
		default:
			byStatus[fmt.Sprintf("%d (Retry-After %q)", a.status, a.retryAfter)]++
			ok = false
		}
	}
	slices.Sort(lat)
	_, _ = fmt.Fprintf(out, "## %d background-removes at once of %s, answered in %.1fs (load %.1f)\n", l.n, l.image, took.Seconds(), loadAverage())
	for _, k := range slices.Sorted(maps.Keys(byStatus)) {
		_, _ = fmt.Fprintf(out, "%s: %d\n", k, byStatus[k])
	}
	if len(lat) > 0 {
		_, _ = fmt.Fprintf(out, "latency min %.1fs median %.1fs max %.1fs\n", lat[0].Seconds(), lat[len(lat)/2].Seconds(), lat[len(lat)-1].Seconds())
	}
	_, _ = fmt.Fprintf(out, "RSS before %d MiB, peak %d MiB (sampled every 100 ms)\n", before/1024, peak/1024)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(l.settle):
	}
	after, hwm := rssKB(l.pid), hwmKB(l.pid)
	_, _ = fmt.Fprintf(out, "RSS %s after the last answer %d MiB; VmHWM %d MiB\n", l.settle, after/1024, hwm/1024)
	_, _ = fmt.Fprintf(out, "every answer 2xx or 503 with Retry-After: %v; peak (VmHWM) under 1.2 GiB: %v; %s after under 400 MiB: %v\n",
		ok, max(peak, hwm) < 1228*1024, l.settle, after < 400*1024)
	return nil
}

// removeOnce sends one background-remove and reads the whole answer.
func removeOnce(ctx context.Context, client *http.Client, l budgetLoad, body []byte) budgetAnswer {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.url+"/thumbnails/edit/background-remove", bytes.NewReader(body))
	if err != nil {
		return budgetAnswer{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(principal.Header, l.principal)
	start := time.Now()
	resp, err := client.Do(req) //nolint:gosec // G704: the operator's own -url
	if err != nil {
		return budgetAnswer{err: err}
	}
	defer func() { _ = resp.Body.Close() }()
	_, err = io.Copy(io.Discard, resp.Body)
	return budgetAnswer{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), took: time.Since(start), err: err}
}
