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
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/platform/principal"
)

// hostileLoad is issue 30's memory probe: hostile pictures (40 MP JPEGs,
// zero-filled PNGs at the pixel limit, a PNG claiming a huge size)
// through every thumbnails endpoint that decodes a picture, workers at
// once, straight to the service, while its RSS is sampled.
type hostileLoad struct {
	url      string // the thumbnails service's origin
	secret   string // the principal signing secret
	org      string // an organization billing holds credits for
	media    string // the base URL the pictures are served from
	pictures []string
	workers  int
	d        time.Duration
	pid      int
}

// hostileCase is one endpoint with its body for a picture's URL.
type hostileCase struct {
	name, path string
	body       func(pic string) map[string]any
}

// hostileCases are the endpoints that decode a client's picture: the
// eight edits, the critique, the text overlay and a generation with
// references.
var hostileCases = []hostileCase{
	{"edit", "/thumbnails/edit", func(p string) map[string]any {
		return map[string]any{"imageUrl": p, "prompt": "make it brighter and warmer", "referenceImageUrls": []string{p}}
	}},
	{"face-swap", "/thumbnails/edit/face-swap", func(p string) map[string]any {
		return map[string]any{"imageUrl": p, "faceImageUrl": p}
	}},
	{"background-remove", "/thumbnails/edit/background-remove", func(p string) map[string]any { return map[string]any{"imageUrl": p} }},
	{"background-replace", "/thumbnails/edit/background-replace", func(p string) map[string]any {
		return map[string]any{"imageUrl": p, "backgroundPrompt": "a beach at sunset", "aspectRatio": "16:9"}
	}},
	{"color-enhance", "/thumbnails/edit/color-enhance", func(p string) map[string]any {
		return map[string]any{"imageUrl": p, "preset": "vibrant", "intensity": "strong"}
	}},
	{"upscale", "/thumbnails/edit/upscale", func(p string) map[string]any { return map[string]any{"imageUrl": p, "scale": "4x"} }},
	{"filter", "/thumbnails/edit/filter", func(p string) map[string]any { return map[string]any{"imageUrl": p, "filterPrompt": "vintage film"} }},
	{"combine", "/thumbnails/edit/combine", func(p string) map[string]any {
		return map[string]any{"imageUrl1": p, "imageUrl2": p, "prompt": "side by side", "aspectRatio": "16:9"}
	}},
	{"critique", "/thumbnails/critique", func(p string) map[string]any { return map[string]any{"imageUrl": p, "niche": "gaming"} }},
	{"text-overlay", "/thumbnails/analyze/text-overlay", func(p string) map[string]any {
		return map[string]any{"imageUrl": p, "originalPrompt": "a surprised gamer", "faceName": "Alex"}
	}},
	{"generate", "/thumbnails", func(p string) map[string]any {
		return map[string]any{"prompt": "a surprised gamer in front of a castle", "referenceImageUrls": []string{p, p, p}}
	}},
}

// hostile runs the mix for l.d: each worker takes the next (endpoint,
// picture) pair in turn, so every pair is sent and the six in flight
// differ. It prints the answers by endpoint and status, the RSS at rest
// before, its sampled peak and VmHWM (which no sampling misses), and
// whether the peak stayed within 1 GiB and every answer was a 2xx, a 400
// or a 503 with Retry-After.
func hostile(ctx context.Context, out io.Writer, l hostileLoad) error {
	client := &http.Client{Timeout: 5 * time.Minute}
	before := rssKB(l.pid)
	stopSampling := sampleRSS(l.pid, 50*time.Millisecond)
	var next atomic.Int64
	var mu sync.Mutex
	answers := map[string]map[string]int{}
	bad := 0
	end := time.Now().Add(l.d)
	var wg sync.WaitGroup
	for range l.workers {
		wg.Go(func() {
			for time.Now().Before(end) && ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				c := hostileCases[i%len(hostileCases)]
				pic := l.media + "/" + l.pictures[(i/len(hostileCases))%len(l.pictures)]
				status, err := l.send(ctx, client, c, pic)
				mu.Lock()
				if answers[c.name] == nil {
					answers[c.name] = map[string]int{}
				}
				answers[c.name][status]++
				if err != nil {
					bad++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	peak := stopSampling()
	hwm := hwmKB(l.pid)
	_, _ = fmt.Fprintf(out, "## %d requests of the hostile mix (%d endpoints x %v), %d at once for %s (load %.1f)\n",
		next.Load(), len(hostileCases), l.pictures, l.workers, l.d, loadAverage())
	for _, name := range slices.Sorted(maps.Keys(answers)) {
		_, _ = fmt.Fprintf(out, "%s:", name)
		for _, s := range slices.Sorted(maps.Keys(answers[name])) {
			_, _ = fmt.Fprintf(out, " %s ×%d;", s, answers[name][s])
		}
		_, _ = fmt.Fprintln(out)
	}
	_, _ = fmt.Fprintf(out, "RSS before %d MiB, peak %d MiB (sampled every 50 ms), VmHWM %d MiB\n", before/1024, peak/1024, hwm/1024)
	_, _ = fmt.Fprintf(out, "every answer 2xx, 4xx or 503 with Retry-After: %v; VmHWM within 1 GiB: %v\n", bad == 0, hwm <= 1<<20)
	return nil
}

// send posts one request with a principal of its own (a fresh request id,
// so no two share a reservation key) and reads the whole answer. It
// returns the status as printed, and an error for a transport failure, a
// 5xx other than a 503 with Retry-After, or a 503 without it.
func (l hostileLoad) send(ctx context.Context, client *http.Client, c hostileCase, pic string) (string, error) {
	body, err := json.Marshal(c.body(pic))
	if err != nil {
		return "", err
	}
	signed, err := principal.Sign([]byte(l.secret), principal.Principal{
		OrgID: l.org, KeyID: "bench", Tier: "bench", RequestID: uuid.NewString(), Expires: time.Now().Add(time.Hour),
	})
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.url+c.path, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(principal.Header, signed)
	resp, err := client.Do(req) //nolint:gosec // G704: the operator's own -url
	if err != nil {
		return "transport", err
	}
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, resp.Body)
	status := fmt.Sprint(resp.StatusCode)
	switch {
	case resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "":
		return status + " Retry-After", nil
	case resp.StatusCode >= 500:
		return status, fmt.Errorf("%s: %s", c.name, resp.Status)
	}
	return status, nil
}
