package e2e

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/media/videosite/videositefake"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/testkit"
)

// webhooksEnv makes retries fast (HOOKLINE_WEBHOOKS_BACKOFF_BASE) and
// lets the service reach the test's receiver on loopback (the operator's
// allow-list); nothing else private is allowed.
var webhooksEnv = []string{"HOOKLINE_FETCH_ALLOW_HOSTS=127.0.0.1", "HOOKLINE_WEBHOOKS_BACKOFF_BASE=200ms",
	"HOOKLINE_WEBHOOKS_BACKOFF_MAX=1s", "HOOKLINE_WEBHOOKS_TIMEOUT=2s", "HOOKLINE_WEBHOOKS_POLL=100ms"}

// startWebhooks runs the webhooks service where the gateway expects it;
// extra settings come after webhooksEnv's, and win.
func (s *stack) startWebhooks(schema string, extra ...string) *exec.Cmd {
	s.t.Helper()
	env := append(append([]string{"HOOKLINE_DB_SCHEMA=" + schema}, webhooksEnv...), extra...)
	cmd := s.start("webhooks", env...)
	testkit.WaitHTTP(s.t, "http://"+s.webhooksAddr+"/readyz", serviceReady)
	return cmd
}

// received is one verified delivery.
type received struct {
	id   string
	at   time.Time
	body map[string]any
}

// receiver is a webhook receiver that checks every delivery the way the
// Standard Webhooks specification tells a receiver to, with this test's
// own code: the signature of "{webhook-id}.{webhook-timestamp}.{body}"
// under the base64-decoded secret after "whsec_", any of the
// space-separated "v1," signatures, and a timestamp within 5 minutes.
type receiver struct {
	t   *testing.T
	srv *httptest.Server

	mu      sync.Mutex
	secrets []string
	got     []received
	bad     []string
	// failFirst answers 500 to the first n attempts of each webhook-id.
	failFirst int
	tries     map[string]int
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{t: t, tries: map[string]int{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	id, ts, sigs := req.Header.Get("webhook-id"), req.Header.Get("webhook-timestamp"), req.Header.Get("webhook-signature")
	r.mu.Lock()
	defer r.mu.Unlock()
	if why := verify(r.secrets, id, ts, sigs, body); why != "" {
		r.bad = append(r.bad, why)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	r.tries[id]++
	if r.tries[id] <= r.failFirst {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		r.bad = append(r.bad, "body: "+err.Error())
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	r.got = append(r.got, received{id: id, at: time.Now(), body: m})
	w.WriteHeader(http.StatusNoContent)
}

// verify returns why a delivery fails the Standard Webhooks check, or "".
func verify(secrets []string, id, ts, header string, body []byte) string {
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || id == "" {
		return "missing webhook-id or webhook-timestamp"
	}
	if d := time.Since(time.Unix(sec, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return "timestamp too far from now"
	}
	for _, secret := range secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
		if err != nil {
			return "undecodable secret " + secret
		}
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(id + "." + ts + "." + string(body)))
		want := mac.Sum(nil)
		for _, sig := range strings.Fields(header) {
			v, b64, ok := strings.Cut(sig, ",")
			got, err := base64.StdEncoding.DecodeString(b64)
			if ok && v == "v1" && err == nil && hmac.Equal(got, want) {
				return ""
			}
		}
	}
	return "no signature matches: " + header
}

func (r *receiver) trust(secret string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secrets = append(r.secrets, secret)
}

// of returns the verified deliveries whose body has type typ.
func (r *receiver) of(typ string) []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []received
	for _, g := range r.got {
		if g.body["type"] == typ {
			out = append(out, g)
		}
	}
	return out
}

func (r *receiver) check() {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.bad) > 0 {
		r.t.Fatalf("deliveries failing the signature check: %v", r.bad)
	}
}

// Endpoints are managed through the gateway, refused on private
// addresses, invisible to another organization; a receiver answering 500
// three times gets the message on the fourth attempt, and the deliveries
// are listed with their attempts.
func TestWebhooksThroughTheGateway(t *testing.T) {
	s := startStack(t)
	s.startWebhooks(testkit.Schema(t, "e2e_webhooks"))
	rcv := newReceiver(t)
	_, key := s.newOrg("pro")
	_, other := s.newOrg("free")

	for _, u := range []string{"http://10.1.2.3/hook", "http://192.168.0.10:8080/hook", "http://169.254.169.254/latest", "http://[::1]/hook", "ftp://example.com/"} {
		st, b := s.do("POST", "/api/v1/webhooks", key, map[string]any{"url": u, "eventTypes": []string{"clips.render.completed"}})
		if st != 400 || fieldOf(b, "url") == nil {
			t.Errorf("%s: %d %v, want 400 naming url", u, st, b)
		}
	}
	if st, b := s.do("POST", "/api/v1/webhooks", key, map[string]any{"url": rcv.srv.URL, "eventTypes": []string{"clips.nope"}}); st != 400 || fieldOf(b, "eventTypes") == nil {
		t.Errorf("unknown event type: %d %v", st, b)
	}

	ep := s.must(201, "POST", "/api/v1/webhooks", key, map[string]any{"url": rcv.srv.URL + "/hook", "description": "e2e",
		"eventTypes": []string{"clips.render.completed", "clips.project.ready"}})
	id, secret := ep["id"].(string), ep["secret"].(string)
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("created %v", ep)
	}
	rcv.trust(secret)
	if got := s.must(200, "GET", "/api/v1/webhooks/"+id, key, nil); got["secret"] != nil || got["url"] != rcv.srv.URL+"/hook" {
		t.Fatalf("get shows %v", got)
	}
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"GET", "/api/v1/webhooks/" + id, nil},
		{"PATCH", "/api/v1/webhooks/" + id, map[string]any{"enabled": false}},
		{"DELETE", "/api/v1/webhooks/" + id, nil},
		{"POST", "/api/v1/webhooks/" + id + "/test", nil},
		{"POST", "/api/v1/webhooks/" + id + "/rotate-secret", nil},
		{"GET", "/api/v1/webhooks/" + id + "/deliveries", nil},
	} {
		if st, _ := s.do(c.method, c.path, other, c.body); st != 404 {
			t.Errorf("another organization's %s %s: %d", c.method, c.path, st)
		}
	}
	if st, list := s.do("GET", "/api/v1/webhooks", other, nil); st != 200 || len(list["data"].([]any)) != 0 {
		t.Errorf("another organization lists %d %v", st, list)
	}

	// 500, 500, 500, then 204: the fourth attempt delivers.
	rcv.failFirst = 3
	test := s.must(202, "POST", "/api/v1/webhooks/"+id+"/test", key, nil)
	testkit.Eventually(t, 30*time.Second, "test delivered", func() bool { return len(rcv.of("webhooks.test")) == 1 })
	rcv.check()
	var d map[string]any
	testkit.Eventually(t, 10*time.Second, "delivery recorded", func() bool {
		st, list := s.do("GET", "/api/v1/webhooks/"+id+"/deliveries", key, nil)
		if st != 200 || len(list["data"].([]any)) != 1 {
			return false
		}
		d = list["data"].([]any)[0].(map[string]any)
		return d["status"] == "succeeded"
	})
	hist := d["history"].([]any)
	if d["id"] != test["id"] || d["attempts"] != float64(4) || d["responseCode"] != float64(204) || len(hist) != 4 {
		t.Fatalf("delivery %v", d)
	}
	for i, want := range []float64{500, 500, 500, 204} {
		if a := hist[i].(map[string]any); a["attempt"] != float64(i+1) || a["responseCode"] != want {
			t.Errorf("attempt %d: %v", i+1, a)
		}
	}
	rcv.failFirst = 0

	// A rotation signs with both secrets for a day: a receiver still on the
	// old one accepts the next delivery, and one on the new one too.
	rot := s.must(200, "POST", "/api/v1/webhooks/"+id+"/rotate-secret", key, nil)
	if rot["secret"] == secret || rot["previousSecretExpiresAt"] == nil {
		t.Fatalf("rotated %v", rot)
	}
	s.must(202, "POST", "/api/v1/webhooks/"+id+"/test", key, nil)
	testkit.Eventually(t, 10*time.Second, "second test delivered", func() bool { return len(rcv.of("webhooks.test")) == 2 })
	rcv.mu.Lock()
	rcv.secrets = []string{rot["secret"].(string)}
	rcv.mu.Unlock()
	s.must(202, "POST", "/api/v1/webhooks/"+id+"/test", key, nil)
	testkit.Eventually(t, 10*time.Second, "third test delivered", func() bool { return len(rcv.of("webhooks.test")) == 3 })
	rcv.check()

	// A real render through clips: project ready, then the render's
	// clips.render.completed within 5 s of the render completing.
	segs, _ := threeTopics(t)
	segs = segs[:8]
	dir := t.TempDir()
	length := strconv.Itoa(int(segs[len(segs)-1].End))
	ff := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d="+length,
		"-f", "lavfi", "-i", "sine=f=300:d="+length, "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", filepath.Join(dir, "talk.mp4"))
	if out, err := ff.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "talk.vtt"), []byte(videositefake.VTT(segs)), 0o600); err != nil {
		t.Fatal(err)
	}
	media := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(media.Close)
	s.startClips("HOOKLINE_FETCH_ALLOW_HOSTS=127.0.0.1", "HOOKLINE_CLIPS_RENDER_HEIGHT=1280", "HOOKLINE_CLIPS_RENDER_PRESET=ultrafast")
	s.waitTotal(key, 500)
	p := s.must(201, "POST", "/api/v1/clips/projects", key, map[string]any{"video_site_url": media.URL + "/talk.mp4"})
	if got := s.waitProject(key, p["id"].(string)); got["downloadStatus"] != "ready" {
		t.Fatalf("project %v", got)
	}
	testkit.Eventually(t, 10*time.Second, "clips.project.ready delivered", func() bool { return len(rcv.of("clips.project.ready")) == 1 })
	ready := rcv.of("clips.project.ready")[0].body["data"].(map[string]any)
	if ready["projectId"] != p["id"] || ready["clipCount"].(float64) < 1 {
		t.Fatalf("project ready %v", ready)
	}
	clip := p["clips"].([]any)[0].(map[string]any)
	st, rs := s.do("POST", "/api/v1/clips/projects/"+p["id"].(string)+"/renders", key, map[string]any{"clip_id": clip["id"]})
	if st != 201 {
		t.Fatalf("render: %d %v", st, rs)
	}
	renderID := rs["data"].(map[string]any)["renders"].([]any)[0].(map[string]any)["id"].(string)
	r := s.waitRender(key, renderID, 3*time.Minute)
	if r["status"] != "completed" {
		t.Fatalf("render %v", r)
	}
	completed, _ := time.Parse(time.RFC3339Nano, r["completedAt"].(string))
	testkit.Eventually(t, 10*time.Second, "clips.render.completed delivered", func() bool { return len(rcv.of("clips.render.completed")) == 1 })
	got := rcv.of("clips.render.completed")[0]
	data := got.body["data"].(map[string]any)
	if data["renderId"] != renderID || data["outputUrl"] != r["outputUrl"] || got.body["version"] != float64(1) {
		t.Fatalf("render completed %v, render %v", got.body, r)
	}
	if lag := got.at.Sub(completed); lag > 5*time.Second {
		t.Errorf("clips.render.completed arrived %s after the render completed", lag)
	}
	t.Logf("clips.render.completed arrived %s after the render completed", got.at.Sub(completed))
	rcv.check()
}

// Killing the webhooks service in the middle of a burst of 50 events
// loses none: every one reaches the receiver, verified, once the service
// is back.
func TestKilledWebhooksServiceLosesNoDelivery(t *testing.T) {
	s := startStack(t)
	schema := testkit.Schema(t, "e2e_webhooks")
	svc := s.startWebhooks(schema)
	rcv := newReceiver(t)
	org, key := s.newOrg("pro")
	ep := s.must(201, "POST", "/api/v1/webhooks", key, map[string]any{"url": rcv.srv.URL, "eventTypes": []string{"clips.project.ready"}})
	rcv.trust(ep["secret"].(string))

	// The events clips' outbox relay would publish.
	nc, err := messaging.Connect(context.Background(), testkit.NATSURL(t), "e2e-clips")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	bus, err := messaging.NewBus(nc, s.ns)
	if err != nil {
		t.Fatal(err)
	}
	const burst = 50
	ids := map[string]bool{}
	for i := range burst {
		env, err := events.New(context.Background(), events.ClipsProjectReady, "clips", org, events.ProjectReady{
			ProjectID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), VideoTitle: "burst", ClipCount: i})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(env)
		if _, err := bus.JS.Publish(context.Background(), bus.Subject(env.Type), b); err != nil {
			t.Fatal(err)
		}
		ids[env.ID] = true
		if i == burst/5 {
			// Mid-burst, once deliveries are flowing.
			testkit.Eventually(t, 10*time.Second, "first deliveries", func() bool { return len(rcv.of("clips.project.ready")) > 0 })
			if err := svc.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = svc.Wait()
		}
	}
	before := len(rcv.of("clips.project.ready"))
	s.startWebhooks(schema)
	testkit.Eventually(t, 60*time.Second, "every event delivered", func() bool {
		seen := map[string]bool{}
		for _, g := range rcv.of("clips.project.ready") {
			seen[g.body["data"].(map[string]any)["projectId"].(string)] = true
		}
		return len(seen) == burst
	})
	rcv.check()
	all := rcv.of("clips.project.ready")
	t.Logf("%d delivered before the kill, %d deliveries in all for %d events", before, len(all), burst)
	// The last attempt is recorded a moment after the receiver answered.
	var list map[string]any
	testkit.Eventually(t, 15*time.Second, "every delivery recorded", func() bool {
		var st int
		st, list = s.do("GET", "/api/v1/webhooks/"+ep["id"].(string)+"/deliveries?limit=100", key, nil)
		if st != 200 || list["pagination"].(map[string]any)["total"] != float64(burst) {
			t.Fatalf("deliveries: %d %v", st, list["pagination"])
		}
		for _, x := range list["data"].([]any) {
			if x.(map[string]any)["status"] != "succeeded" {
				return false
			}
		}
		return true
	})
	for _, x := range list["data"].([]any) {
		if d := x.(map[string]any); !ids[d["eventId"].(string)] || d["attempts"].(float64) < 1 {
			t.Errorf("delivery %v", d)
		}
	}
}

// credits.low: an endpoint with a threshold of 499 credits on a pro
// account (500). Thumbnails generated through the API spend one credit
// each: the second takes the balance under the threshold and the
// receiver gets credits.low once, with that balance; the third, still
// under, sends nothing. A grant back over the threshold re-arms it, and
// the next fall (an administrator's debit) sends it again. The receiver
// gets exactly those two, in order: the billing events of one account are
// consumed in order, so a credits.low for the third spend would be
// between them.
func TestWebhooksCreditsLow(t *testing.T) {
	s := startStack(t)
	s.startWebhooks(testkit.Schema(t, "e2e_webhooks"))
	rcv := newReceiver(t)
	org, key := s.newOrg("pro")
	s.waitTotal(key, 500)
	ep := s.must(201, "POST", "/api/v1/webhooks", key, map[string]any{"url": rcv.srv.URL, "eventTypes": []string{"credits.low"},
		"creditsLowThreshold": 499})
	if ep["creditsLowThreshold"] != float64(499) {
		t.Fatalf("created %v", ep)
	}
	rcv.trust(ep["secret"].(string))

	for i, want := range []float64{499, 498, 497} {
		s.must(201, "POST", "/api/v1/thumbnails", key, map[string]any{"prompt": fmt.Sprintf("credits low %d", i)})
		s.waitTotal(key, want)
	}
	testkit.Eventually(t, 15*time.Second, "credits.low delivered", func() bool { return len(rcv.of("credits.low")) == 1 })

	adjust := func(credits int, kind string) {
		st, body := s.do("POST", "/admin/v1/organizations/"+org+"/credits", adminToken, map[string]any{"credits": credits, "kind": kind, "reason": "e2e"})
		if st != 200 && st != 202 {
			t.Fatalf("adjust %d: %d %v", credits, st, body)
		}
	}
	adjust(5, "purchased")
	s.waitTotal(key, 502)
	adjust(-5, "adjustment")
	s.waitTotal(key, 497)
	testkit.Eventually(t, 15*time.Second, "second credits.low delivered", func() bool { return len(rcv.of("credits.low")) == 2 })
	rcv.check()
	for i, want := range []float64{498, 497} {
		g := rcv.of("credits.low")[i]
		data := g.body["data"].(map[string]any)
		if data["available"] != want || data["threshold"] != float64(499) || g.body["version"] != float64(1) {
			t.Errorf("credits.low %d: %v, want available %v", i+1, g.body, want)
		}
	}
	// Nothing else is pending: the endpoint's deliveries are those two.
	st, list := s.do("GET", "/api/v1/webhooks/"+ep["id"].(string)+"/deliveries", key, nil)
	if st != 200 || list["pagination"].(map[string]any)["total"] != float64(2) {
		t.Fatalf("deliveries: %d %v", st, list)
	}
}

// An endpoint failing 3 attempts in a row (HOOKLINE_WEBHOOKS_DISABLE_FAILURES,
// over at least HOOKLINE_WEBHOOKS_DISABLE_AFTER=0s here) is disabled:
// webhooks.endpoint.disabled.v1 is published, the organization's other
// endpoint subscribed to it receives webhooks.endpoint.disabled, and the
// endpoint answers enabled:false with its reason. Enabling it again
// delivers what it held back.
func TestWebhooksEndpointDisabledAfterRepeatedFailure(t *testing.T) {
	s := startStack(t)
	s.startWebhooks(testkit.Schema(t, "e2e_webhooks"), "HOOKLINE_WEBHOOKS_DISABLE_FAILURES=3", "HOOKLINE_WEBHOOKS_DISABLE_AFTER=0s")
	failing, watcher := newReceiver(t), newReceiver(t)
	failing.failFirst = 1 << 20
	org, key := s.newOrg("pro")

	var mu sync.Mutex
	var published []events.EndpointDisabled
	bus := s.bus("e2e-webhooks-disabled")
	testkit.Background(t, "consumer", func(ctx context.Context) error {
		return bus.Consume(ctx, messaging.ConsumerConfig{Durable: "e2e-webhooks-disabled", Stream: events.StreamWebhooks,
			Subjects: []string{events.WebhooksEndpointDisabled}}, func(_ context.Context, e events.Envelope) error {
			var d events.EndpointDisabled
			if err := e.Decode(&d); err != nil {
				return messaging.Permanent(err)
			}
			if e.OrgID != org {
				return nil
			}
			mu.Lock()
			defer mu.Unlock()
			published = append(published, d)
			return nil
		})
	})

	bad := s.must(201, "POST", "/api/v1/webhooks", key, map[string]any{"url": failing.srv.URL + "/down", "eventTypes": []string{"clips.project.ready"}})
	good := s.must(201, "POST", "/api/v1/webhooks", key, map[string]any{"url": watcher.srv.URL, "eventTypes": []string{"webhooks.endpoint.disabled"}})
	failing.trust(bad["secret"].(string))
	watcher.trust(good["secret"].(string))
	badID := bad["id"].(string)

	s.must(202, "POST", "/api/v1/webhooks/"+badID+"/test", key, nil)
	testkit.Eventually(t, 30*time.Second, "webhooks.endpoint.disabled delivered", func() bool { return len(watcher.of("webhooks.endpoint.disabled")) == 1 })
	watcher.check()
	failing.check()
	data := watcher.of("webhooks.endpoint.disabled")[0].body["data"].(map[string]any)
	if data["endpointId"] != badID || data["url"] != failing.srv.URL+"/down" || data["failures"] != float64(3) || data["failingSince"] == nil {
		t.Fatalf("webhooks.endpoint.disabled %v", data)
	}
	got := s.must(200, "GET", "/api/v1/webhooks/"+badID, key, nil)
	if got["enabled"] != false || !strings.Contains(fmt.Sprint(got["disabledReason"]), "3 consecutive failed attempts") {
		t.Fatalf("disabled endpoint %v", got)
	}
	testkit.Eventually(t, 10*time.Second, "webhooks.endpoint.disabled.v1 published", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(published) == 1
	})
	mu.Lock()
	if p := published[0]; p.EndpointID != badID || p.Failures != 3 || p.Reason != got["disabledReason"] {
		t.Errorf("published %+v", p)
	}
	mu.Unlock()
	failing.mu.Lock()
	tries := 0
	for _, n := range failing.tries {
		tries += n
	}
	failing.mu.Unlock()
	if tries != 3 {
		t.Errorf("the failing receiver got %d attempts, want 3", tries)
	}
	// The watcher, which answered, stays enabled.
	if w := s.must(200, "GET", "/api/v1/webhooks/"+good["id"].(string), key, nil); w["enabled"] != true {
		t.Errorf("watcher %v", w)
	}

	// The receiver recovers; enabling the endpoint clears the reason and
	// the held-back test message is delivered.
	failing.mu.Lock()
	failing.failFirst = 0
	failing.mu.Unlock()
	back := s.must(200, "PATCH", "/api/v1/webhooks/"+badID, key, map[string]any{"enabled": true})
	if back["enabled"] != true || back["disabledReason"] != nil {
		t.Fatalf("enabled again %v", back)
	}
	testkit.Eventually(t, 15*time.Second, "held-back test delivered", func() bool { return len(failing.of("webhooks.test")) == 1 })
	failing.check()
}
