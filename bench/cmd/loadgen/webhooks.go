package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/principal"
	hookline "hookline.dev/sdk/go"
)

// webhookLoad is one run of `loadgen webhooks`: clips.project.ready
// events published into the CLIPS stream at a steady rate, as clips'
// outbox relay would, and a receiver on listen recording when each one
// arrives. With service set an endpoint pointing at the receiver is
// created there first (and the receiver checks every signature);
// without, a forwarder already running (bench/cmd/plainforwarder) is
// expected to POST the events to the receiver.
type webhookLoad struct {
	label   string
	service string // the webhooks service's origin, or "" for the peer
	secret  string // the principal signing secret
	listen  string
	rate    int
	d       time.Duration
	pid     int // the delivering process, whose CPU time is read
}

// arrivals records, per project id, when its event occurred (set by the
// publisher) and when it reached the receiver.
type arrivals struct {
	mu        sync.Mutex
	occurred  map[string]time.Time
	latencies []time.Duration
	seen      map[string]bool
	dups, bad int
	verifier  *hookline.WebhookVerifier // the endpoint's secret; nil: no signature check
}

func (a *arrivals) expect(project string, at time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.occurred[project] = at
}

// ServeHTTP takes a delivery: the service's message ({type, data}) or
// the forwarder's copy of the event's envelope (its data alike).
func (a *arrivals) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	var m struct {
		Data struct {
			ProjectID string `json:"projectId"`
		} `json:"data"`
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.verifier != nil && a.verifier.Verify(r.Header, body) != nil {
		a.bad++
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	at, ok := time.Time{}, false
	if json.Unmarshal(body, &m) == nil {
		at, ok = a.occurred[m.Data.ProjectID]
	}
	switch {
	case !ok:
		a.bad++
	case a.seen[m.Data.ProjectID]:
		a.dups++
	default:
		a.seen[m.Data.ProjectID] = true
		a.latencies = append(a.latencies, now.Sub(at))
	}
	w.WriteHeader(http.StatusNoContent)
}

func (a *arrivals) delivered() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.latencies)
}

// webhooks runs the load and prints the latency from each event's
// occurredAt (the outbox row's time) to its arrival at the receiver.
func (l *load) webhooks(ctx context.Context, w webhookLoad) error {
	rec := &arrivals{occurred: map[string]time.Time{}, seen: map[string]bool{}}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", w.listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: rec, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer func() { _ = srv.Close() }()

	org := uuid.NewString()
	if w.service != "" {
		v, err := createEndpoint(ctx, w.service, w.secret, org, "http://"+ln.Addr().String()+"/hook")
		if err != nil {
			return err
		}
		rec.verifier = v
	}
	sent := 0
	load0, cpu0 := loadAverage(), cpuTicks(w.pid)
	tick := time.NewTicker(time.Second / time.Duration(w.rate))
	defer tick.Stop()
	end := time.Now().Add(w.d)
	for time.Now().Before(end) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		project := uuid.NewString()
		env, err := events.New(ctx, events.ClipsProjectReady, "clips", org, events.ProjectReady{ProjectID: project, VideoTitle: "bench", ClipCount: 3})
		if err != nil {
			return err
		}
		rec.expect(project, env.OccurredAt)
		b, _ := json.Marshal(env)
		if _, err := l.bus.JS.Publish(ctx, l.bus.Subject(env.Type), b, jetstream.WithMsgID(env.ID)); err != nil {
			return err
		}
		sent++
	}
	for drain := time.Now().Add(30 * time.Second); rec.delivered() < sent && time.Now().Before(drain); {
		time.Sleep(50 * time.Millisecond)
	}
	cpu := time.Duration(cpuTicks(w.pid)-cpu0) * time.Second / clockTicks
	rec.mu.Lock()
	defer rec.mu.Unlock()
	_, _ = fmt.Fprintf(l.out, "webhooks %-24s %d/s for %s: %d sent, %d delivered, %d duplicates, %d bad; outbox→receiver %s; "+
		"process CPU %.2f ms/event; load %.1f→%.1f\n", w.label, w.rate, w.d, sent, len(rec.latencies), rec.dups, rec.bad,
		summary95(rec.latencies), float64(cpu)/float64(time.Millisecond)/float64(max(sent, 1)), load0, loadAverage())
	return nil
}

// createEndpoint registers url for clips.project.ready in org, straight at
// the webhooks service (with a principal, as the gateway would), and
// returns the key its deliveries are signed with.
func createEndpoint(ctx context.Context, service, secret, org, url string) (*hookline.WebhookVerifier, error) {
	p, err := principal.Sign([]byte(secret), principal.Principal{OrgID: org, KeyID: "bench", Tier: "pro", Expires: time.Now().Add(time.Hour)})
	if err != nil {
		return nil, err
	}
	body, _ := json.Marshal(map[string]any{"url": url, "eventTypes": []string{"clips.project.ready"}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, service+"/webhooks", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(principal.Header, p)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	var ep struct {
		Data struct {
			Secret string `json:"secret"`
		} `json:"data"`
	}
	if resp.StatusCode != http.StatusCreated {
		return nil, fmt.Errorf("creating the endpoint: %s", resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&ep); err != nil {
		return nil, fmt.Errorf("creating the endpoint: %w", err)
	}
	return hookline.NewWebhookVerifier(ep.Data.Secret)
}

// summary95 is summary with the 95th percentile, the figures the
// webhooks section reports.
func summary95(ds []time.Duration) string {
	if len(ds) == 0 {
		return "no samples"
	}
	s := append([]time.Duration(nil), ds...)
	q := quantiles(s)
	return fmt.Sprintf("p50 %s p95 %s p99 %s max %s", q(0.50), q(0.95), q(0.99), s[len(s)-1].Round(10*time.Microsecond))
}
