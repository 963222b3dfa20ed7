package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/testkit"
)

// paidCall is one paid request of the burst, with the Idempotency-Key it
// is sent (and retried) under.
type paidCall struct {
	path string
	body map[string]any
	key  string
}

// credits is what a 2xx answer of the call delivered: one credit a
// result (variations answer a list of them).
func (c paidCall) credits(data any) float64 {
	if list, ok := data.([]any); ok {
		return float64(len(list))
	}
	return 1
}

// post sends c through the gateway with a plain client (the process
// behind it dies mid-request, so transport failures are expected) and
// returns the status and the answer's data; status 0 is a transport
// failure.
func (s *stack) post(apiKey string, c paidCall) (int, any) {
	b, _ := json.Marshal(c.body)
	req, _ := http.NewRequest(http.MethodPost, s.base+c.path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+apiKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", c.key)
	resp, err := (&http.Client{Timeout: 2 * time.Minute}).Do(req)
	if err != nil {
		return 0, nil
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(resp.Body)
	var body struct {
		Data any `json:"data"`
	}
	_ = json.Unmarshal(raw, &body)
	return resp.StatusCode, body.Data
}

// TestKilledThumbnailsSettlesEveryPaidSagaAtRestart (issue 30): thumbnails
// is killed (SIGKILL) during a burst of every paid operation (generation,
// variations, remix, optimize, critique and the four paid edits), with
// reservations open. Restarted with its default recovery settings (a
// 10-minute grace), it settles every reservation the dead process left
// within 30 s, from what was stored; the client then retries what it did
// not receive under the same Idempotency-Key, each once, and the balance
// is the initial one less exactly the results the client holds.
func TestKilledThumbnailsSettlesEveryPaidSagaAtRestart(t *testing.T) {
	s := startStack(t)
	photo := testkit.FacePhoto(t)
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/jpeg")
		_, _ = w.Write(photo)
	}))
	t.Cleanup(host.Close)
	allow := "HOOKLINE_FETCH_ALLOW_HOSTS=127.0.0.1"
	s.restartThumbnails(allow)
	_, key := s.newOrg("pro")
	s.waitTotal(key, 500)
	own := s.uploadAs(key, "face.jpg", "image/jpeg", photo)
	parent := s.must(201, "POST", "/api/v1/thumbnails", key, map[string]any{"prompt": "the parent of the variations"})
	st, tpls := s.do("GET", "/api/v1/templates?limit=1", key, nil)
	if st != 200 || len(tpls["data"].([]any)) == 0 {
		t.Fatalf("templates: %d %v", st, tpls)
	}
	tpl := tpls["data"].([]any)[0].(map[string]any)["id"].(string)
	s.waitTotal(key, 499)
	initial := 499.0

	ops := []paidCall{
		{path: "/api/v1/thumbnails", body: map[string]any{"prompt": "I tested the 5 cheapest gaming laptops"}},
		{path: "/api/v1/thumbnails/variations", body: map[string]any{"thumbnailId": parent["id"], "count": 3}},
		{path: "/api/v1/templates/" + tpl + "/remix", body: map[string]any{"headline": "Day 100 of building"}},
		{path: "/api/v1/thumbnails/optimize", body: map[string]any{"idea": `my bike chain snapped mid-race, title "CHAIN SNAPPED"`}},
		{path: "/api/v1/thumbnails/critique", body: map[string]any{"imageUrl": own, "niche": "gaming"}},
		{path: "/api/v1/thumbnails/edit", body: map[string]any{"imageUrl": own, "prompt": "brighter and warmer"}},
		{path: "/api/v1/thumbnails/edit/face-swap", body: map[string]any{"imageUrl": own, "faceImageUrl": host.URL + "/face.jpg"}},
		{path: "/api/v1/thumbnails/edit/background-replace", body: map[string]any{"imageUrl": own, "backgroundPrompt": "sunset beach"}},
		{path: "/api/v1/thumbnails/edit/combine", body: map[string]any{"imageUrl1": own, "imageUrl2": parent["imageUrl"], "prompt": "before and after"}},
	}
	var burst []paidCall
	for round := range 3 {
		for _, op := range ops {
			op.key = fmt.Sprintf("crash-%d-%s", round, uuid.NewString())
			burst = append(burst, op)
		}
	}
	var mu sync.Mutex
	received := map[int]float64{} // burst index → credits of what the client got
	var wg sync.WaitGroup
	for i, c := range burst {
		wg.Go(func() {
			if st, data := s.post(key, c); st/100 == 2 {
				mu.Lock()
				received[i] = c.credits(data)
				mu.Unlock()
			}
		})
	}
	// Kill while billing holds reservations of the burst.
	var openAtKill int
	testkit.Eventually(t, 60*time.Second, "reservations of the burst open", func() bool {
		openAtKill = s.usageStatuses(key)["reserved"]
		return openAtKill >= 2
	})
	_ = s.thumbnails.Process.Kill()
	_, _ = s.thumbnails.Process.Wait()
	wg.Wait()
	if n := s.usageStatuses(key)["reserved"]; n == 0 {
		t.Fatalf("no reservation open after the kill (%d seen just before): the test proves nothing", openAtKill)
	}
	mu.Lock()
	t.Logf("killed with %d reservations open; %d of %d requests answered 2xx", openAtKill, len(received), len(burst))
	mu.Unlock()

	s.thumbnails = s.start("thumbnails", append(append([]string{}, s.thumbnailsEnv...), allow)...)
	restarted := time.Now()
	testkit.Eventually(t, 30*time.Second, "no reservation of the organization open after the restart", func() bool {
		return s.usageStatuses(key)["reserved"] == 0
	})
	t.Logf("every reservation settled %.1fs after the restart", time.Since(restarted).Seconds())
	testkit.WaitHTTP(t, s.thumbsURL+"/readyz", serviceReady)

	// The client retries what it did not receive, once: a result stored
	// before the kill is answered again without a charge, anything else
	// runs now (the dead process's reservations are no request in
	// progress).
	for i, c := range burst {
		if _, ok := received[i]; ok {
			continue
		}
		st, data := s.post(key, c)
		if st/100 != 2 {
			t.Fatalf("retry of %s after the restart: %d %v", c.path, st, data)
		}
		received[i] = c.credits(data)
	}
	var spent float64
	for _, n := range received {
		spent += n
	}
	s.waitTotal(key, initial-spent)
	// A retried edit may still be finishing its work (and so its saga)
	// when its answer arrives; every reservation must end all the same.
	testkit.Eventually(t, 30*time.Second, "no reservation open after the retries", func() bool {
		return s.usageStatuses(key)["reserved"] == 0
	})
}
