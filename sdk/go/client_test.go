package hookline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorded is what a test server saw of one request.
type recorded struct {
	method, path, query, key, auth, body string
}

// server answers with the handlers in turn (the last one repeats) and
// records every request.
type server struct {
	*httptest.Server
	mu       sync.Mutex
	seen     []recorded
	handlers []http.HandlerFunc
}

func newServer(t *testing.T, handlers ...http.HandlerFunc) *server {
	t.Helper()
	s := &server{handlers: handlers}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.seen = append(s.seen, recorded{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Idempotency-Key"), r.Header.Get("Authorization"), string(body)})
		h := s.handlers[min(len(s.seen), len(s.handlers))-1]
		s.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) requests() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.seen...)
}

// client returns a client of s whose waits between attempts are recorded
// instead of slept.
func (s *server) client(t *testing.T, opts ...Option) (*Client, *[]time.Duration) {
	t.Helper()
	c, err := New(append([]Option{WithBaseURL(s.URL + "/api/v1"), WithAPIKey("hk_live_test"), WithAdminToken("admin")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	c.sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	return c, &waits
}

func answer(status int, body string, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

func failure(status int, code string, headers ...string) http.HandlerFunc {
	return answer(status, fmt.Sprintf(`{"error":"failed with %s","code":%q,"details":{}}`, code, code), headers...)
}

// hangUp drops the connection without an answer.
func hangUp(w http.ResponseWriter, _ *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

const thumbJSON = `{"data":{"id":"t1","imageUrl":"http://x/t1.jpg","prompt":"p","kind":"generated","width":1280,"height":720,"faceIds":[],"params":{},"applied":[],"createdAt":"2026-01-02T03:04:05Z"}}`

func TestEveryPOSTCarriesAnIdempotencyKey(t *testing.T) {
	s := newServer(t, answer(201, thumbJSON))
	c, _ := s.client(t)
	ctx := context.Background()
	for range 2 {
		if _, err := c.CreateThumbnail(ctx, &ThumbnailCreate{Prompt: "p"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.CreateThumbnail(ctx, &ThumbnailCreate{Prompt: "p"}, WithIdempotencyKey("mine-1")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateThumbnail(ctx, &ThumbnailCreate{Prompt: "p"}, WithoutIdempotencyKey()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetThumbnail(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	got := s.requests()
	if got[0].key == "" || got[1].key == "" || got[0].key == got[1].key {
		t.Errorf("generated keys %q and %q: want two different ones", got[0].key, got[1].key)
	}
	if got[2].key != "mine-1" || got[3].key != "" || got[4].key != "" {
		t.Errorf("keys %q (given), %q (none asked), %q (GET)", got[2].key, got[3].key, got[4].key)
	}
	if got[0].path != "/api/v1/thumbnails" || got[0].body != `{"prompt":"p"}` || got[0].auth != "Bearer hk_live_test" {
		t.Errorf("request %+v", got[0])
	}
	if got[4].method != "GET" || got[4].path != "/api/v1/thumbnails/t1" {
		t.Errorf("GET %+v", got[4])
	}
}

func TestRateLimitedCallsWaitForRetryAfter(t *testing.T) {
	s := newServer(t, failure(429, "rate_limited", "Retry-After", "3"), failure(429, "rate_limited", "Retry-After", "1"), answer(201, thumbJSON))
	c, waits := s.client(t)
	var resp Response
	// Even a POST without a key: the gateway refused it before doing it.
	th, err := c.CreateThumbnail(context.Background(), &ThumbnailCreate{Prompt: "p"}, WithoutIdempotencyKey(), CaptureResponse(&resp))
	if err != nil {
		t.Fatal(err)
	}
	if th.ID != "t1" || th.Width != 1280 || th.CreatedAt.Year() != 2026 {
		t.Errorf("thumbnail %+v", th)
	}
	if want := []time.Duration{3 * time.Second, time.Second}; fmt.Sprint(*waits) != fmt.Sprint(want) {
		t.Errorf("waited %v, want %v", *waits, want)
	}
	if got := s.requests(); len(got) != 3 || got[2].body != got[0].body || resp.Attempts != 3 || resp.StatusCode != 201 {
		t.Errorf("requests %+v, response %+v", got, resp)
	}
}

func TestRetryAfterBeyondTheCapEndsTheCall(t *testing.T) {
	s := newServer(t, failure(429, "rate_limited", "Retry-After", "120", "X-Request-ID", "req-9"))
	c, waits := s.client(t)
	_, err := c.GetCredits(context.Background())
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.RetryAfter != 2*time.Minute || apiErr.Code != "rate_limited" || apiErr.RequestID != "req-9" {
		t.Fatalf("error %#v", err)
	}
	if len(*waits) != 0 || len(s.requests()) != 1 {
		t.Errorf("waited %v over %d requests", *waits, len(s.requests()))
	}
}

func TestServerErrorsAreRetriedOnlyWhenIdempotent(t *testing.T) {
	ctx := context.Background()
	t.Run("GET", func(t *testing.T) {
		s := newServer(t, failure(503, "unavailable"), failure(500, "internal"), answer(200, `{"data":{"tier":"pro","credits":{"total":5,"purchased":0,"subscription":5},"canGenerate":true,"billingCycle":"monthly"}}`))
		c, waits := s.client(t)
		cr, err := c.GetCredits(ctx)
		if err != nil || cr.Credits.Total != 5 {
			t.Fatalf("%+v %v", cr, err)
		}
		if len(*waits) != 2 || (*waits)[0] < 250*time.Millisecond || (*waits)[1] < 500*time.Millisecond || (*waits)[1] > 750*time.Millisecond {
			t.Errorf("backoff %v: want 250–375 ms, then 500–750 ms", *waits)
		}
	})
	t.Run("POST with a key", func(t *testing.T) {
		s := newServer(t, failure(502, "unavailable"), answer(201, thumbJSON))
		c, _ := s.client(t)
		if _, err := c.CreateThumbnail(ctx, &ThumbnailCreate{Prompt: "p"}); err != nil {
			t.Fatal(err)
		}
		got := s.requests()
		if len(got) != 2 || got[0].key == "" || got[0].key != got[1].key {
			t.Errorf("a retry must repeat the key: %+v", got)
		}
	})
	for name, call := range map[string]func(c *Client) error{
		"POST without a key": func(c *Client) error {
			_, err := c.CreateThumbnail(ctx, &ThumbnailCreate{Prompt: "p"}, WithoutIdempotencyKey())
			return err
		},
		"PATCH":  func(c *Client) error { _, err := c.UpdateFace(ctx, "f", &FaceUpdate{Name: "x"}); return err },
		"DELETE": func(c *Client) error { return c.DeleteFace(ctx, "f") },
	} {
		t.Run(name, func(t *testing.T) {
			s := newServer(t, failure(500, "internal"), answer(200, `{}`))
			c, _ := s.client(t)
			if err := call(c); ErrorCode(err) != "internal" || len(s.requests()) != 1 {
				t.Errorf("error %v after %d requests; want internal after 1", err, len(s.requests()))
			}
		})
	}
	t.Run("4xx", func(t *testing.T) {
		s := newServer(t, failure(402, "insufficient_credits"))
		c, _ := s.client(t)
		_, err := c.CreateThumbnail(ctx, &ThumbnailCreate{Prompt: "p"})
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 402 || len(s.requests()) != 1 {
			t.Fatalf("%v after %d requests", err, len(s.requests()))
		}
		if want := "failed with insufficient_credits (insufficient_credits, HTTP 402)"; apiErr.Error() != want {
			t.Errorf("message %q, want %q", apiErr.Error(), want)
		}
	})
	t.Run("retries run out", func(t *testing.T) {
		s := newServer(t, failure(503, "unavailable"))
		c, _ := s.client(t, WithRetryPolicy(RetryPolicy{MaxRetries: 2}))
		if _, err := c.GetCredits(ctx); ErrorCode(err) != "unavailable" || len(s.requests()) != 3 {
			t.Errorf("%v after %d requests, want 3", err, len(s.requests()))
		}
	})
}

func TestBrokenConnectionsAreRetriedOnlyWhenIdempotent(t *testing.T) {
	ctx := context.Background()
	s := newServer(t, hangUp, answer(201, thumbJSON))
	c, _ := s.client(t)
	if _, err := c.CreateThumbnail(ctx, &ThumbnailCreate{Prompt: "p"}); err != nil {
		t.Fatal(err)
	}
	if got := s.requests(); len(got) != 2 || got[0].key != got[1].key {
		t.Errorf("requests %+v", got)
	}

	s = newServer(t, hangUp, answer(201, thumbJSON))
	c, _ = s.client(t)
	_, err := c.CreateThumbnail(ctx, &ThumbnailCreate{Prompt: "p"}, WithoutIdempotencyKey())
	var apiErr *APIError
	if err == nil || errors.As(err, &apiErr) || len(s.requests()) != 1 {
		t.Errorf("a POST without a key after a broken connection: %v, %d requests", err, len(s.requests()))
	}
}

// A keyed POST whose first answer was lost meets its own first attempt
// still running (409 idempotency_conflict) and waits for it; a conflict on
// the first attempt is the caller's (the key was used with other
// parameters) and is not retried.
func TestInFlightConflictOfARetryIsWaitedOut(t *testing.T) {
	s := newServer(t, failure(503, "unavailable"), failure(409, "idempotency_conflict"), answer(201, thumbJSON, "Idempotent-Replayed", "true"))
	c, _ := s.client(t)
	var resp Response
	if _, err := c.CreateThumbnail(context.Background(), &ThumbnailCreate{Prompt: "p"}, CaptureResponse(&resp)); err != nil {
		t.Fatal(err)
	}
	if !resp.Replayed || resp.Attempts != 3 {
		t.Errorf("response %+v", resp)
	}
	s = newServer(t, failure(409, "idempotency_conflict"), answer(201, thumbJSON))
	c, _ = s.client(t)
	if _, err := c.CreateThumbnail(context.Background(), &ThumbnailCreate{Prompt: "p"}, WithIdempotencyKey("reused")); ErrorCode(err) != "idempotency_conflict" || len(s.requests()) != 1 {
		t.Errorf("%v after %d requests", err, len(s.requests()))
	}
}

func TestErrorEnvelope(t *testing.T) {
	s := newServer(t, answer(400, `{"error":"name is required","code":"invalid_request","details":{"fields":{"name":"required"}}}`, "X-Request-ID", "req-1"))
	c, _ := s.client(t)
	_, err := c.CreateFace(context.Background(), &FaceCreate{})
	var e *APIError
	if !errors.As(err, &e) {
		t.Fatalf("%T %v", err, err)
	}
	if e.StatusCode != 400 || e.Code != "invalid_request" || e.Message != "name is required" || e.RequestID != "req-1" || e.Fields()["name"] != "required" {
		t.Errorf("%+v", e)
	}
	if want := "name is required (invalid_request, HTTP 400, request req-1)"; e.Error() != want {
		t.Errorf("%q, want %q", e.Error(), want)
	}
	// Not an envelope: the status and the start of the body.
	s = newServer(t, func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "bad gateway from the proxy", http.StatusBadGateway)
	})
	c, _ = s.client(t, WithRetryPolicy(NoRetries))
	_, err = c.GetCredits(context.Background())
	if !errors.As(err, &e) || e.Code != "" || e.StatusCode != 502 || !strings.Contains(e.Message, "bad gateway from the proxy") {
		t.Errorf("%+v", e)
	}
}

func TestBaseURLAndCredentials(t *testing.T) {
	s := newServer(t, answer(201, `{"data":{"id":"o1","name":"n","tier":"pro","createdAt":"2026-01-02T03:04:05Z"}}`))
	for _, base := range []string{s.URL, s.URL + "/", s.URL + "/api/v1", s.URL + "/api/v1/"} {
		c, err := New(WithBaseURL(base), WithAPIKey("hk_live_k"), WithAdminToken("adm"))
		if err != nil {
			t.Fatal(err)
		}
		if c.BaseURL() != s.URL {
			t.Errorf("%s: base %s", base, c.BaseURL())
		}
		if _, err := c.CreateOrganization(context.Background(), &OrganizationCreate{Name: "n", Tier: "pro"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range s.requests() {
		if r.path != "/admin/v1/organizations" || r.auth != "Bearer adm" {
			t.Errorf("admin call %+v: want the admin token", r)
		}
	}
	if _, err := New(WithBaseURL("127.0.0.1:8080")); err == nil {
		t.Error("a base URL without a scheme was taken")
	}
}

// pagesOf serves n items (ids 0..n-1) in pages, as the API does.
func pagesOf(t *testing.T, n int, failOn int) *server {
	return newServer(t, func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		if page == 0 {
			page = 1
		}
		if limit == 0 {
			limit = 20
		}
		if page == failOn {
			failure(500, "internal")(w, r)
			return
		}
		items := []map[string]any{}
		for i := (page - 1) * limit; i < min(page*limit, n); i++ {
			items = append(items, map[string]any{"id": strconv.Itoa(i), "name": "face", "imageUrls": []string{}, "thumbnailUrl": "u", "createdAt": "2026-01-02T03:04:05Z", "updatedAt": "2026-01-02T03:04:05Z"})
		}
		b, _ := json.Marshal(map[string]any{"data": items, "pagination": map[string]any{"page": page, "limit": limit, "total": n, "hasMore": page*limit < n}})
		answer(200, string(b))(w, r)
	})
}

func TestIteratorsWalkEveryPage(t *testing.T) {
	ctx := context.Background()
	s := pagesOf(t, 45, 0)
	c, _ := s.client(t)
	var ids []string
	for f, err := range c.AllFaces(ctx, &ListParams{Limit: 20}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, f.ID)
	}
	if len(ids) != 45 || ids[0] != "0" || ids[44] != "44" {
		t.Fatalf("ids %v", ids)
	}
	var queries []string
	for _, r := range s.requests() {
		queries = append(queries, r.query)
	}
	if want := "[limit=20&page=1 limit=20&page=2 limit=20&page=3]"; fmt.Sprint(queries) != want {
		t.Errorf("queries %v, want %s", queries, want)
	}

	// Stopping early fetches no further page; a later start page is kept.
	s = pagesOf(t, 45, 0)
	c, _ = s.client(t)
	n := 0
	for f, err := range c.AllFaces(ctx, &ListParams{Page: 2, Limit: 10}) {
		if err != nil || f.ID != strconv.Itoa(10+n) {
			t.Fatalf("%v %v", f.ID, err)
		}
		if n++; n == 12 {
			break
		}
	}
	if got := len(s.requests()); got != 2 {
		t.Errorf("%d pages fetched for 12 items of 10 a page", got)
	}

	// A failing page ends the walk with its error.
	s = pagesOf(t, 45, 2)
	c, _ = s.client(t, WithRetryPolicy(NoRetries))
	var seen int
	var last error
	for _, err := range c.AllFaces(ctx, nil) {
		if err != nil {
			last = err
			continue
		}
		seen++
	}
	if seen != 20 || ErrorCode(last) != "internal" {
		t.Errorf("%d items then %v", seen, last)
	}
}

func TestListParametersAreSent(t *testing.T) {
	s := newServer(t, answer(200, `{"data":[],"pagination":{"page":3,"limit":5,"total":0,"hasMore":false}}`))
	c, _ := s.client(t)
	if _, err := c.ListThumbnails(context.Background(), &ListThumbnailsParams{ListParams: ListParams{Page: 3, Limit: 5}, Kind: "edit", CollectionID: "c1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListMusicTracks(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	got := s.requests()
	if got[0].query != "collectionId=c1&kind=edit&limit=5&page=3" || got[1].query != "" || got[1].auth != "Bearer admin" {
		t.Errorf("requests %+v", got)
	}
}

// renderSteps serves a render through its steps, one poll each.
func renderSteps(t *testing.T, final string) *server {
	var hs []http.HandlerFunc
	for _, st := range []struct {
		status, step string
		progress     int
	}{{"pending", "queued", 0}, {"rendering", "cutting", 10}, {"rendering", "cutting", 10}, {"rendering", "encoding", 60}, {final, "done", 100}} {
		errText := "null"
		if st.status == "failed" {
			errText = `"ffmpeg exited 1"`
		}
		hs = append(hs, answer(200, fmt.Sprintf(`{"data":{"id":"r1","status":%q,"currentStep":%q,"progress":%d,"error":%s,"options":{}}}`, st.status, st.step, st.progress, errText)))
	}
	return newServer(t, hs...)
}

func TestWaitForRenderReportsEachChange(t *testing.T) {
	s := renderSteps(t, "completed")
	c, _ := s.client(t)
	var seen []string
	r, err := c.WaitForRender(context.Background(), "r1", &WaitOptions[RenderJob]{Interval: time.Microsecond, Progress: func(r *RenderJob) {
		seen = append(seen, fmt.Sprintf("%s %.0f", r.CurrentStep, r.Progress))
	}})
	if err != nil || r.Status != "completed" {
		t.Fatalf("%+v %v", r, err)
	}
	if want := "[queued 0 cutting 10 encoding 60 done 100]"; fmt.Sprint(seen) != want {
		t.Errorf("progress %v, want %s", seen, want)
	}
	if got := len(s.requests()); got != 5 {
		t.Errorf("%d polls", got)
	}

	s = renderSteps(t, "failed")
	c, _ = s.client(t)
	r, err = c.WaitForRender(context.Background(), "r1", &WaitOptions[RenderJob]{Interval: time.Microsecond})
	if !errors.Is(err, ErrRenderFailed) || !strings.Contains(err.Error(), "ffmpeg exited 1") || r == nil || r.Status != "failed" {
		t.Errorf("%+v %v", r, err)
	}
}

func TestWaitForProject(t *testing.T) {
	project := func(status, step, errText string) http.HandlerFunc {
		return answer(200, fmt.Sprintf(`{"data":{"id":"p1","downloadStatus":%q,"preparationStep":%q,"downloadError":%s,"clips":[]}}`, status, step, errText))
	}
	s := newServer(t, project("downloading", "downloading", "null"), project("downloading", "transcribing", "null"), project("ready", "done", "null"))
	c, _ := s.client(t)
	var steps []string
	p, err := c.WaitForProject(context.Background(), "p1", &WaitOptions[ClipProject]{Interval: time.Microsecond, Progress: func(p *ClipProject) {
		steps = append(steps, p.PreparationStep)
	}})
	if err != nil || p.DownloadStatus != "ready" || fmt.Sprint(steps) != "[downloading transcribing done]" {
		t.Fatalf("%+v %v %v", p, err, steps)
	}
	s = newServer(t, project("failed", "probing", `"no audio track"`))
	c, _ = s.client(t)
	if _, err := c.WaitForProject(context.Background(), "p1", nil); !errors.Is(err, ErrProjectFailed) || !strings.Contains(err.Error(), "no audio track") {
		t.Errorf("%v", err)
	}
	// The context bounds the wait.
	s = newServer(t, project("downloading", "downloading", "null"))
	c, _ = s.client(t)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err = c.WaitForProject(ctx, "p1", &WaitOptions[ClipProject]{Interval: time.Microsecond, Progress: func(*ClipProject) {
		if n++; n == 1 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("%v", err)
	}
}

func TestUploadPutsTheBytesWhereThePresignSays(t *testing.T) {
	var put recorded
	storage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		put = recorded{method: r.Method, path: r.URL.Path, auth: r.Header.Get("Authorization"), key: r.Header.Get("Content-Type"), body: string(b)}
	}))
	t.Cleanup(storage.Close)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		answer(200, fmt.Sprintf(`{"data":{"uploadUrl":%q,"publicUrl":"https://cdn/x.png","expiresAt":"2026-01-02T03:04:05Z"}}`, storage.URL+"/bucket/x.png"))(w, r)
	})
	c, _ := s.client(t)
	png := "\x89PNG\r\n\x1a\n" + strings.Repeat("\x00", 40)
	url, err := c.Upload(context.Background(), "x.png", []byte(png))
	if err != nil || url != "https://cdn/x.png" {
		t.Fatalf("%q %v", url, err)
	}
	if put.method != "PUT" || put.path != "/bucket/x.png" || put.auth != "" || put.key != "image/png" || put.body != png {
		t.Errorf("PUT %+v", put)
	}
	if req := s.requests()[0]; req.body != fmt.Sprintf(`{"fileName":"x.png","fileType":"image/png","fileSize":%d}`, len(png)) {
		t.Errorf("presign %s", req.body)
	}
	if _, err := c.Upload(context.Background(), "x.gif", []byte("GIF89a....")); err == nil {
		t.Error("a GIF was uploaded")
	}
}
