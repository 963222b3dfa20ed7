package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// rateLimit sends GET /api/v1/auth/verify with key at a steady rate,
// round-robin over the gateways, open loop (a slow answer does not delay
// the next request), and reports what was admitted against the offered
// rate, with the latency of admitted requests.
func rateLimit(ctx context.Context, out io.Writer, gateways []string, key string, rate int, d time.Duration) error {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: 10 * time.Second}
	var mu sync.Mutex
	var lat []time.Duration
	var refused, failed int
	var wg sync.WaitGroup
	tick := time.NewTicker(time.Second / time.Duration(rate))
	start := time.Now()
	sent := 0
	for end := start.Add(d); time.Now().Before(end) && ctx.Err() == nil; sent++ {
		<-tick.C
		gw := gateways[sent%len(gateways)]
		wg.Go(func() {
			began := time.Now()
			status := 0
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, gw+"/api/v1/auth/verify", nil) //nolint:gosec // G704: the operator's own gateway origins; this is a load generator
			if err == nil {
				req.Header.Set("Authorization", "Bearer "+key)
				resp, err := client.Do(req) //nolint:gosec // G704: as above
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
					status = resp.StatusCode
				}
			}
			mu.Lock()
			defer mu.Unlock()
			switch status {
			case http.StatusOK:
				lat = append(lat, time.Since(began))
			case http.StatusTooManyRequests:
				refused++
			default:
				failed++
			}
		})
	}
	tick.Stop()
	wg.Wait()
	span := time.Since(start)
	_, _ = fmt.Fprintf(out, "%d gateway(s) %s, offered %d/s for %s: %d admitted (%.1f/s), %d refused, %d failed; admitted latency %s\n",
		len(gateways), strings.Join(gateways, ","), rate, d, len(lat), float64(len(lat))/span.Seconds(), refused, failed, summary(lat))
	return nil
}
