package natsauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/natsauth"
	"hookline.dev/pkg/testkit"
)

const committedConf = "../../../deploy/nats/auth.conf"

// TestCommittedConfigIsGenerated: the NATS config that compose, make up and
// operators use is exactly what the permission table generates.
func TestCommittedConfigIsGenerated(t *testing.T) {
	got, err := os.ReadFile(committedConf)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != natsauth.ServerConfig() {
		t.Fatalf("%s differs from pkg/platform/natsauth.Services: run `go generate ./pkg/platform/natsauth`", committedConf)
	}
}

// server is a nats-server of this test only, started with the generated
// authorization and a password per user.
type server struct {
	url       string
	passwords map[string]string
}

func startServer(t *testing.T) *server {
	t.Helper()
	bin := os.Getenv("HOOKLINE_BIN")
	if bin == "" {
		testkit.Missing(t, "HOOKLINE_BIN is not set: run the tests with `make test` (scripts/deps.sh installs nats-server there)")
	}
	dir := t.TempDir()
	auth, err := os.ReadFile(committedConf)
	if err != nil {
		t.Fatal(err)
	}
	// The server picks its own port (-1) and writes it to a ports file:
	// a port picked here and closed could be taken before it listens.
	conf := fmt.Sprintf("listen: \"127.0.0.1:-1\"\nports_file_dir: %q\njetstream { store_dir: %q }\ninclude ./auth.conf\n", dir, filepath.Join(dir, "js"))
	for name, body := range map[string][]byte{"auth.conf": auth, "nats.conf": []byte(conf)} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := &server{passwords: map[string]string{}}
	cmd := exec.Command(filepath.Join(bin, "nats-server"), "-c", filepath.Join(dir, "nats.conf")) //nolint:gosec // G204: the pinned test binary
	cmd.Env = os.Environ()
	for _, svc := range natsauth.Services {
		s.passwords[svc.User] = "pw-" + svc.User + "-" + testkit.Suffix()
		cmd.Env = append(cmd.Env, natsauth.PasswordVariable(svc.User)+"="+s.passwords[svc.User])
	}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("nats-server output:\n%s", out.String())
		}
	})
	testkit.Eventually(t, 10*time.Second, "nats-server listening", func() bool {
		files, _ := filepath.Glob(filepath.Join(dir, "*.ports"))
		if len(files) != 1 {
			return false
		}
		b, err := os.ReadFile(files[0]) //nolint:gosec // G304: the server's file in the test's own directory
		var ports struct{ Nats []string }
		if err != nil || json.Unmarshal(b, &ports) != nil || len(ports.Nats) == 0 {
			return false // not written yet, or half written
		}
		s.url = ports.Nats[0]
		return true
	})
	return s
}

// client is one service's connection, recording the permission violations
// the server reports to it.
type client struct {
	bus        *messaging.Bus
	mu         sync.Mutex
	violations []string
}

func (s *server) connect(t *testing.T, ctx context.Context, user string) *client {
	t.Helper()
	c := &client{}
	opts := append(messaging.WithUser(user, s.passwords[user]), nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		if errors.Is(err, nats.ErrPermissionViolation) {
			c.mu.Lock()
			c.violations = append(c.violations, err.Error())
			c.mu.Unlock()
		}
	}))
	nc, err := messaging.Connect(ctx, s.url, user, opts...)
	if err != nil {
		t.Fatalf("connect as %s: %v", user, err)
	}
	t.Cleanup(nc.Close)
	if c.bus, err = messaging.NewBus(nc, ""); err != nil {
		t.Fatal(err)
	}
	return c
}

// violated waits for the server to report a permission violation of kind
// ("Publish" or "Subscription") on subject.
func (c *client) violated(t *testing.T, kind, subject string) {
	t.Helper()
	want := kind + ` to "` + subject + `"`
	testkit.Eventually(t, 5*time.Second, "permission violation: "+want, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, v := range c.violations {
			if strings.Contains(v, want) {
				return true
			}
		}
		return false
	})
}

func publish(ctx context.Context, b *messaging.Bus, subject string, data any) error {
	e, err := events.New(ctx, subject, "test", "org-1", data)
	if err != nil {
		return err
	}
	raw, _ := json.Marshal(e)
	_, err = b.JS.Publish(ctx, subject, raw)
	return err
}

// TestLeastPrivilege runs services' real messaging paths as their own NATS
// users against a server configured with the generated authorization.
func TestLeastPrivilege(t *testing.T) {
	s := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	billing := s.connect(t, ctx, "billing")
	thumbs := s.connect(t, ctx, "thumbnails")
	assets := s.connect(t, ctx, "assets")
	clips := s.connect(t, ctx, "clips")

	// Every service may keep the stream definitions.
	for _, c := range []*client{assets, thumbs, billing} {
		if err := c.bus.EnsureStreams(ctx); err != nil {
			t.Fatalf("ensure streams: %v", err)
		}
	}

	// Billing serves the reserve RPC; thumbnails calls it.
	stop, err := billing.bus.Serve(ctx, events.BillingReserveRPC, "billing", func(_ context.Context, data []byte) ([]byte, error) {
		var req events.ReserveRequest
		if err := json.Unmarshal(data, &req); err != nil {
			return nil, err
		}
		return json.Marshal(events.ReserveReply{Outcome: events.ReserveOK, Message: req.ReservationID})
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stop() }()
	var reply events.ReserveReply
	if err := thumbs.bus.Request(ctx, events.BillingReserveRPC, events.ReserveRequest{ReservationID: "r-1", OrgID: "org-1", Credits: 1}, &reply); err != nil || reply.Outcome != events.ReserveOK || reply.Message != "r-1" {
		t.Fatalf("thumbnails reserve: reply %+v, err %v", reply, err)
	}

	// Billing settles from THUMBNAILS with its own durable consumer; the
	// completion thumbnails publishes reaches it.
	settled := make(chan string, 4)
	consumeCtx, stopConsume := context.WithCancel(ctx)
	consumeErr := make(chan error, 1)
	go func() {
		consumeErr <- billing.bus.Consume(consumeCtx, messaging.ConsumerConfig{
			Durable: events.DurableBillingSettlementsThumbnails, Stream: events.StreamThumbnails,
			Subjects: []string{"thumbnails.*.completed.v1", "thumbnails.*.failed.v1"},
		}, func(_ context.Context, e events.Envelope) error {
			var st events.Settlement
			if err := e.Decode(&st); err != nil {
				return err
			}
			settled <- st.ReservationID
			return nil
		})
	}()
	defer func() {
		stopConsume()
		if err := <-consumeErr; err != nil {
			t.Errorf("billing consumer: %v", err)
		}
	}()
	if err := publish(ctx, thumbs.bus, events.ThumbnailsOperationCompleted, events.OperationCompleted{ReservationID: "r-1"}); err != nil {
		t.Fatalf("thumbnails publishes its completion: %v", err)
	}
	select {
	case id := <-settled:
		if id != "r-1" {
			t.Fatalf("settled %q, want r-1", id)
		}
	case <-ctx.Done():
		t.Fatal("billing never received thumbnails' completion")
	}

	// A compromised assets pod: it cannot complete someone's reservation,
	// call the reserve RPC, serve it, or take over billing's consumer.
	pctx, pcancel := context.WithTimeout(ctx, time.Second)
	err = publish(pctx, assets.bus, events.ThumbnailsOperationCompleted, events.OperationCompleted{ReservationID: "r-2"})
	pcancel()
	if err == nil {
		t.Error("assets published thumbnails.operation.completed.v1")
	}
	assets.violated(t, "Publish", events.ThumbnailsOperationCompleted)
	rctx, rcancel := context.WithTimeout(ctx, 500*time.Millisecond)
	err = assets.bus.Request(rctx, events.BillingReserveRPC, events.ReserveRequest{ReservationID: "r-3", OrgID: "org-1", Credits: 1}, &reply)
	rcancel()
	if err == nil {
		t.Error("assets called the reserve RPC")
	}
	assets.violated(t, "Publish", events.BillingReserveRPC)
	if _, err := assets.bus.NC.QueueSubscribe(events.BillingReserveRPC, "billing", func(*nats.Msg) {}); err == nil {
		_ = assets.bus.NC.Flush()
	}
	assets.violated(t, "Subscription", events.BillingReserveRPC)
	cctx, ccancel := context.WithTimeout(ctx, time.Second)
	_, err = assets.bus.JS.CreateOrUpdateConsumer(cctx, events.StreamThumbnails, jetstreamConsumer(events.DurableBillingSettlementsThumbnails))
	ccancel()
	if err == nil {
		t.Error("assets bound billing's settlement consumer")
	}
	// Its own consumer works.
	cctx, ccancel = context.WithTimeout(ctx, 5*time.Second)
	defer ccancel()
	if _, err := assets.bus.JS.CreateOrUpdateConsumer(cctx, events.StreamThumbnails, jetstreamConsumer(events.DurableAssetsThumbnails)); err != nil {
		t.Errorf("assets creates its own consumer: %v", err)
	}
	// The stream holds thumbnails' completion only.
	st, err := thumbs.bus.JS.Stream(ctx, events.StreamThumbnails)
	if err != nil {
		t.Fatal(err)
	}
	if n := st.CachedInfo().State.Msgs; n != 1 {
		t.Errorf("THUMBNAILS holds %d messages, want 1 (thumbnails' own)", n)
	}

	// Assets answers the records its followers' read models ask for on a
	// miss: thumbnails and clips may ask, nobody else may ask or answer,
	// and no request is kept in the ASSETS stream.
	stopRecords, err := assets.bus.Serve(ctx, events.AssetsRecordsRPC, "assets", func(_ context.Context, data []byte) ([]byte, error) {
		var req events.RecordsRequest
		if err := json.Unmarshal(data, &req); err != nil {
			return nil, err
		}
		return json.Marshal(events.RecordsReply{Records: []events.AssetRecord{{Kind: req.Records[0].Kind, ID: req.Records[0].ID}}})
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stopRecords() }()
	ask := func(c *client, timeout time.Duration) (events.RecordsReply, error) {
		rctx, rcancel := context.WithTimeout(ctx, timeout)
		defer rcancel()
		var reply events.RecordsReply
		err := c.bus.Request(rctx, events.AssetsRecordsRPC, events.RecordsRequest{OrgID: "org-1", Records: []events.AssetRef{{Kind: events.AssetBrand, ID: "b-1"}}}, &reply)
		return reply, err
	}
	for name, c := range map[string]*client{"thumbnails": thumbs, "clips": clips} {
		if reply, err := ask(c, 5*time.Second); err != nil || len(reply.Records) != 1 || reply.Records[0].ID != "b-1" {
			t.Errorf("%s asks for a record: reply %+v, err %v", name, reply, err)
		}
	}
	if _, err := ask(billing, 500*time.Millisecond); err == nil {
		t.Error("billing asked for assets records")
	}
	billing.violated(t, "Publish", events.AssetsRecordsRPC)
	if _, err := thumbs.bus.NC.QueueSubscribe(events.AssetsRecordsRPC, "assets", func(*nats.Msg) {}); err == nil {
		_ = thumbs.bus.NC.Flush()
	}
	thumbs.violated(t, "Subscription", events.AssetsRecordsRPC)
	if st, err = assets.bus.JS.Stream(ctx, events.StreamAssets); err != nil {
		t.Fatal(err)
	}
	if n := st.CachedInfo().State.Msgs; n != 0 {
		t.Errorf("ASSETS holds %d messages, want none: requests are not events", n)
	}
}

func jetstreamConsumer(durable string) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable: durable, FilterSubjects: []string{"thumbnails.thumbnail.>"}, AckPolicy: jetstream.AckExplicitPolicy,
	}
}
