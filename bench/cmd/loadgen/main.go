// Command loadgen drives billing over NATS the way other services do and
// reports latency and throughput. It is a load script, not a test: see
// bench/run.sh and bench/RESULTS.md.
//
//	loadgen reserve -rate 500 -duration 20s   reserve p50/p99 at a steady rate, plus outbox lag
//	loadgen sagas -accounts 100 -duration 15s reserve → completed event → committed, per second
//	loadgen assets -gateway URL -key KEY      GET /faces and /collections/{id} (100 thumbnails) through the gateway
//	loadgen ratelimit -gateways URL,URL -key KEY -rate 300   admitted vs offered GET /auth/verify, round-robin over gateways
//	loadgen edits -op upscale2x -image URL -gateway URL -key KEY   an edit through the gateway, closed loop
//	loadgen edits -op upscale2x -image URL -peer URL -label NAME   the peer's equivalent GET, same client
//	loadgen upload -file F -gateway URL -key KEY   upload F as a client would; print its publicUrl
//	loadgen edits-table -record FILE          the edits measurements recorded with -record, as a table
//	loadgen principal -org ID                 print a long-lived signed principal (for wrk)
//	loadgen webhooks -service URL -rate 50    clips events into the CLIPS stream; latency from occurredAt to a local receiver
//	loadgen budget -url URL -principal P -image URL -n 20 -pid PID   a burst of background-removes straight to thumbnails, with its RSS
//	loadgen hostile -url URL -media URL -pictures a.jpg,b.png -workers 6 -pid PID   hostile pictures through every image endpoint, with thumbnails' RSS
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/principal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: loadgen reserve|sagas|assets|thumbnails|post|renders|transcript|edits|edits-table|upload|budget|hostile|ratelimit|webhooks|principal|cleanup [flags]")
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	natsURL := fs.String("nats", "nats://127.0.0.1:4233", "NATS URL")
	ns := fs.String("namespace", "bench", "NATS namespace billing runs in")
	rate := fs.Int("rate", 500, "reserve: requests per second")
	duration := fs.Duration("duration", 15*time.Second, "how long to run")
	accounts := fs.Int("accounts", 100, "accounts to spread load over")
	workers := fs.Int("workers", 64, "sagas: concurrent callers")
	tier := fs.String("tier", "bench", "tier of the accounts (configure it with many credits)")
	org := fs.String("org", "", "principal: organization id")
	secret := fs.String("secret", os.Getenv("HOOKLINE_PRINCIPAL_SECRET"), "principal: signing secret")
	gateway := fs.String("gateway", "http://127.0.0.1:8080", "assets: gateway origin")
	gateways := fs.String("gateways", "http://127.0.0.1:8080", "ratelimit: comma-separated gateway origins")
	key := fs.String("key", "", "assets: API key")
	lag := fs.Bool("lag", true, "reserve: also subscribe to the billing.credit.reserved.v1 events and report the outbox lag")
	pid := fs.Int("pid", 0, "thumbnails: the thumbnails process, whose RSS is sampled")
	path := fs.String("path", "/api/v1/seo/description", "post: the path to POST to")
	bodyFile := fs.String("body", "", "post: a file holding the JSON body")
	source := fs.String("source", "pkg/ai/nlp/testdata/three_topics.txt", "transcript: the captions to repeat")
	want := fs.Int("want", 200, "post: the status of a success")
	count := fs.Int("count", 10, "renders: how many renders to start")
	slow := fs.Duration("slow", 0, "reserve: also list when the requests slower than this started, per 100 ms window (0: off)")
	op := fs.String("op", "upscale2x", "edits: upscale2x, upscale4x or color-enhance")
	imageURL := fs.String("image", "", "edits: the source image's URL (our edit's imageUrl)")
	peer := fs.String("peer", "", "edits: the peer's URL of the equivalent operation; GET it instead of our edit")
	label := fs.String("label", "", "edits: the side's name in the output (default hookline, or peer with -peer)")
	file := fs.String("file", "", "upload: the JPEG or PNG to upload")
	record := fs.String("record", "", "edits: append the measurement to this file as a JSON line; edits-table: the file to print")
	serviceURL := fs.String("url", "http://127.0.0.1:18090", "budget: the thumbnails service's origin")
	signed := fs.String("principal", "", "budget: a signed principal (loadgen principal)")
	burst := fs.Int("n", 20, "budget: requests sent at once")
	settle := fs.Duration("settle", 30*time.Second, "budget: how long after the last answer the RSS is read again")
	webhooksURL := fs.String("service", "", "webhooks: the webhooks service's origin; empty: a forwarder (plainforwarder) delivers")
	listen := fs.String("listen", "127.0.0.1:18099", "webhooks: the receiver's address")
	media := fs.String("media", "", "hostile: the base URL the pictures are served from")
	pictures := fs.String("pictures", "", "hostile: comma-separated picture names under -media")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if args[0] == "principal" {
		v, err := principal.Sign([]byte(*secret), principal.Principal{OrgID: *org, KeyID: "bench", Tier: "pro", Expires: time.Now().Add(time.Hour)})
		if err != nil {
			return err
		}
		_, _ = fmt.Fprintln(out, v)
		return nil
	}
	if args[0] == "thumbnails" {
		return thumbnails(ctx, out, *gateway, *key, *workers, *duration, *pid)
	}
	if args[0] == "edits" {
		return edits(ctx, out, editLoad{op: *op, label: *label, image: *imageURL, peer: *peer, gateway: *gateway, key: *key,
			workers: *workers, d: *duration, pid: *pid, record: *record})
	}
	if args[0] == "upload" {
		return upload(ctx, out, api{gateway: *gateway, key: *key, client: &http.Client{Timeout: time.Minute}}, *file)
	}
	if args[0] == "budget" {
		return budget(ctx, out, budgetLoad{url: *serviceURL, principal: *signed, image: *imageURL, n: *burst, pid: *pid, settle: *settle})
	}
	if args[0] == "edits-table" {
		return editsTable(out, *record)
	}
	if args[0] == "transcript" {
		return transcriptBody(*source, *bodyFile, 9000)
	}
	if args[0] == "post" {
		body, err := os.ReadFile(*bodyFile) //nolint:gosec // G703: the operator's own -body file
		if err != nil {
			return err
		}
		return post(ctx, out, postLoad{name: "POST " + *path, gateway: *gateway, path: *path, key: *key, want: *want,
			workers: *workers, d: *duration, pid: *pid, body: func(int, int) []byte { return body }})
	}
	if args[0] == "renders" {
		body, err := os.ReadFile(*bodyFile) //nolint:gosec // G703: the operator's own -body file
		if err != nil {
			return err
		}
		return renders(ctx, out, api{gateway: *gateway, key: *key, client: &http.Client{Timeout: time.Minute}}, body, *count)
	}
	if args[0] == "ratelimit" {
		return rateLimit(ctx, out, strings.Split(*gateways, ","), *key, *rate, *duration)
	}
	nc, err := messaging.Connect(ctx, *natsURL, "loadgen")
	if err != nil {
		return err
	}
	defer nc.Close()
	bus, err := messaging.NewBus(nc, *ns)
	if err != nil {
		return err
	}
	if args[0] == "cleanup" {
		return deleteStreams(ctx, bus)
	}
	l := &load{bus: bus, out: out, slow: *slow, lag: *lag}
	if args[0] == "webhooks" {
		name := *label
		if name == "" {
			name = "hookline"
		}
		return l.webhooks(ctx, webhookLoad{label: name, service: *webhooksURL, secret: *secret, listen: *listen, rate: *rate, d: *duration, pid: *pid})
	}
	if args[0] == "assets" {
		return l.assets(ctx, *gateway, *key, *rate, *duration)
	}
	orgs, err := l.openAccounts(ctx, *accounts, *tier)
	if err != nil {
		return err
	}
	if args[0] == "hostile" {
		return hostile(ctx, out, hostileLoad{url: *serviceURL, secret: *secret, org: orgs[0], media: *media,
			pictures: strings.Split(*pictures, ","), workers: *workers, d: *duration, pid: *pid})
	}
	switch args[0] {
	case "reserve":
		return l.reserve(ctx, orgs, *rate, *duration)
	case "sagas":
		return l.sagas(ctx, orgs, *workers, *duration)
	}
	return fmt.Errorf("unknown mode %q", args[0])
}

// deleteStreams removes the namespace's streams: a benchmark's events are
// of no use afterwards, and JetStream keeps them for a week, syncing their
// files to the disk Postgres commits on.
func deleteStreams(ctx context.Context, bus *messaging.Bus) error {
	for _, s := range events.Streams {
		if err := bus.JS.DeleteStream(ctx, bus.StreamName(s.Name)); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
			return err
		}
	}
	return nil
}

type load struct {
	bus  *messaging.Bus
	out  io.Writer
	slow time.Duration
	lag  bool
}

// openAccounts announces organizations as the gateway would and waits until
// billing has opened each (it answers a reserve with ok).
func (l *load) openAccounts(ctx context.Context, n int, tier string) ([]string, error) {
	orgs := make([]string, n)
	for i := range orgs {
		orgs[i] = uuid.NewString()
		if err := l.publish(ctx, events.GatewayOrganizationCreated, orgs[i], events.OrganizationCreated{OrganizationID: orgs[i], Name: "bench", Tier: tier}); err != nil {
			return nil, err
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, org := range orgs {
		for {
			var r events.ReserveReply
			err := l.bus.Request(ctx, events.BillingReserveRPC, events.ReserveRequest{ReservationID: "warmup-" + org, OrgID: org, Credits: 1, Operation: "bench.warmup"}, &r)
			if err == nil && r.Outcome == events.ReserveOK {
				break
			}
			if time.Now().After(deadline) {
				if err != nil {
					return nil, fmt.Errorf("account %s not open: %w %+v", org, err, r)
				}
				return nil, fmt.Errorf("account %s not open: %+v", org, r)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return orgs, nil
}

func (l *load) publish(ctx context.Context, typ, org string, data any) error {
	env, err := events.New(ctx, typ, "loadgen", org, data)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(env)
	_, err = l.bus.JS.Publish(ctx, l.bus.Subject(typ), b, jetstream.WithMsgID(env.ID))
	return err
}

// reserve sends reservations at a steady rate (open loop: a slow answer
// does not slow the sender) and reports latency, plus the outbox lag of
// the billing.credit.reserved.v1 events those reservations cause.
func (l *load) reserve(ctx context.Context, orgs []string, rate int, d time.Duration) error {
	var lagMu sync.Mutex
	var lags []time.Duration
	if l.lag {
		sub, err := l.bus.NC.Subscribe(l.bus.Subject(events.BillingCreditReserved), func(m *nats.Msg) {
			var env events.Envelope
			if json.Unmarshal(m.Data, &env) == nil {
				lagMu.Lock()
				lags = append(lags, time.Since(env.OccurredAt))
				lagMu.Unlock()
			}
		})
		if err != nil {
			return err
		}
		defer sub.Unsubscribe() //nolint:errcheck // connection closes next
	}

	var mu sync.Mutex
	var lat []time.Duration
	slowStarts := map[int64]int{} // 100 ms window (unix ms / 100) → slow requests started in it
	var failed atomic.Int64
	var wg sync.WaitGroup
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	end := time.Now().Add(d)
	for i := 0; time.Now().Before(end); i++ {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		wg.Go(func() {
			start := time.Now()
			var r events.ReserveReply
			err := l.bus.Request(ctx, events.BillingReserveRPC, events.ReserveRequest{
				ReservationID: uuid.NewString(), OrgID: orgs[i%len(orgs)], Credits: 1, Operation: "bench.reserve",
			}, &r)
			if err != nil || r.Outcome != events.ReserveOK {
				failed.Add(1)
				return
			}
			took := time.Since(start)
			mu.Lock()
			lat = append(lat, took)
			if l.slow > 0 && took > l.slow {
				slowStarts[start.UnixMilli()/100]++
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	time.Sleep(500 * time.Millisecond) // let the last events arrive
	_, _ = fmt.Fprintf(l.out, "reserve: %d ok, %d failed at %d/s for %s: %s\n", len(lat), failed.Load(), rate, d, summary(lat))
	for _, w := range slices.Sorted(maps.Keys(slowStarts)) {
		_, _ = fmt.Fprintf(l.out, "slow (> %s): %d started in the 100 ms from %s\n", l.slow, slowStarts[w], time.UnixMilli(w*100).UTC().Format("15:04:05.000"))
	}
	if !l.lag {
		return nil
	}
	lagMu.Lock()
	defer lagMu.Unlock()
	_, _ = fmt.Fprintf(l.out, "outbox lag (occurredAt → subscriber): %d events: %s\n", len(lags), summary(lags))
	return nil
}

// sagas runs closed-loop callers: reserve, then publish the completed event
// as the owning service's relay would. A saga counts when billing's
// billing.credit.committed.v1 for it arrives.
func (l *load) sagas(ctx context.Context, orgs []string, workers int, d time.Duration) error {
	var committed atomic.Int64
	var last atomic.Int64
	sub, err := l.bus.NC.Subscribe(l.bus.Subject(events.BillingCreditCommitted), func(*nats.Msg) {
		committed.Add(1)
		last.Store(time.Now().UnixNano())
	})
	if err != nil {
		return err
	}
	defer sub.Unsubscribe() //nolint:errcheck // connection closes next
	var started atomic.Int64
	var failed atomic.Int64
	begin := time.Now()
	end := begin.Add(d)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := 0; time.Now().Before(end) && ctx.Err() == nil; i++ {
				org := orgs[(w+i*workers)%len(orgs)]
				id := uuid.NewString()
				var r events.ReserveReply
				if err := l.bus.Request(ctx, events.BillingReserveRPC, events.ReserveRequest{ReservationID: id, OrgID: org, Credits: 1, Operation: "bench.saga"}, &r); err != nil || r.Outcome != events.ReserveOK {
					failed.Add(1)
					continue
				}
				if err := l.publish(ctx, events.ThumbnailsOperationCompleted, org, events.OperationCompleted{ReservationID: id, Operation: "bench.saga"}); err != nil {
					failed.Add(1)
					continue
				}
				started.Add(1)
			}
		})
	}
	wg.Wait()
	drain := time.Now().Add(30 * time.Second)
	for committed.Load() < started.Load() && time.Now().Before(drain) {
		time.Sleep(10 * time.Millisecond)
	}
	elapsed := time.Duration(last.Load() - begin.UnixNano())
	_, _ = fmt.Fprintf(l.out, "sagas: %d accounts, %d workers: %d started, %d committed, %d failed in %s → %.0f sagas/s\n",
		len(orgs), workers, started.Load(), committed.Load(), failed.Load(), elapsed.Round(time.Millisecond), float64(committed.Load())/elapsed.Seconds())
	return nil
}

func summary(ds []time.Duration) string {
	if len(ds) == 0 {
		return "no samples"
	}
	q := quantiles(ds)
	return fmt.Sprintf("p50 %s p90 %s p99 %s max %s", q(0.50), q(0.90), q(0.99), ds[len(ds)-1].Round(10*time.Microsecond))
}

// quantiles sorts ds and returns its quantile function.
func quantiles(ds []time.Duration) func(p float64) time.Duration {
	slices.Sort(ds)
	return func(p float64) time.Duration {
		return ds[min(len(ds)-1, int(p*float64(len(ds))))].Round(10 * time.Microsecond)
	}
}
