package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // the pictures are JPEG
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/minio/minio-go/v7"
	"github.com/nats-io/nats.go/jetstream"

	"hookline.dev/pkg/events"
	"hookline.dev/pkg/messaging"
	"hookline.dev/pkg/pgkit"
	"hookline.dev/pkg/principal"
	"hookline.dev/pkg/testkit"
	"hookline.dev/pkg/tiers"
	"hookline.dev/services/thumbnails/internal/app"
)

const secret = "test-principal-secret-0123456789abcdef"

// Tiers of the billing the tests run: an account of tier pro opens with
// 30 credits, one of tier broke with none.
const proCredits = 30

var billingBin = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "thumbnails-billing")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "billing")
	// Without -race: the real billing service is the tests' counterpart,
	// not the code under test.
	out, err := exec.Command("go", "build", "-o", bin, "hookline.dev/services/billing/cmd/billing").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build billing: %w: %s", err, out)
	}
	return bin, nil
})

// harness runs a real thumbnails service in-process and the real billing
// service as a process beside it, on a fresh schema each, one NATS
// namespace and one bucket, and talks to them the way the gateway does.
type harness struct {
	t          testing.TB
	url        string
	billingURL string
	env        map[string]string
	bus        *messaging.Bus
	pool       *pgxpool.Pool
	s3         testkit.S3
	minio      *minio.Client
	client     *http.Client
	stop       func()
}

// newHarness starts billing and the service; overrides are name, value
// pairs of the service's environment variables.
func newHarness(t testing.TB, overrides ...string) *harness {
	t.Helper()
	schema := testkit.Schema(t, "thumbnails")
	ns := testkit.Namespace(t)
	addr := testkit.FreeAddr(t)
	s3 := testkit.Bucket(t)
	h := &harness{t: t, url: "http://" + addr, s3: s3, client: &http.Client{Timeout: 60 * time.Second},
		env: testkit.ServiceEnv(t, schema, ns, addr, secret, append(s3.Env(), overrides...)...)}
	h.minio = s3.Client(t) // before the service: the bucket goes after it stops
	nc, err := messaging.Connect(context.Background(), testkit.NATSURL(t), "thumbnails-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if h.bus, err = messaging.NewBus(nc, ns); err != nil {
		t.Fatal(err)
	}
	h.startBilling(ns)
	h.stop = testkit.StartService(t, "thumbnails", app.Run, h.env, h.url+"/readyz")
	if h.pool, err = pgkit.Connect(context.Background(), testkit.DatabaseURL(t), schema, pgkit.Options{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.pool.Close)
	return h
}

// startBilling runs the billing service's binary on its own schema in the
// namespace ns until the test ends.
func (h *harness) startBilling(ns string) {
	h.t.Helper()
	bin, err := billingBin()
	if err != nil {
		h.t.Fatal(err)
	}
	addr := testkit.FreeAddr(h.t)
	h.billingURL = "http://" + addr
	env := testkit.ServiceEnv(h.t, testkit.Schema(h.t, "billing"), ns, addr, secret,
		"HOOKLINE_DEBUG_ADDR", testkit.FreeAddr(h.t),
		"HOOKLINE_TIERS", tiers.Encode(
			tiers.Tier{Name: "pro", MonthlyCredits: proCredits, BillingCycle: "monthly", RateLimit: tiers.RateLimit{PerSecond: 100, Burst: 100}},
			tiers.Tier{Name: "broke", MonthlyCredits: 0, BillingCycle: "monthly", RateLimit: tiers.RateLimit{PerSecond: 100, Burst: 100}}))
	testkit.StartProcess(h.t, "billing", bin, testkit.EnvList(env)...)
	testkit.WaitHTTP(h.t, h.billingURL+"/readyz", 60*time.Second)
}

// openAccount creates an organization the way the gateway announces it and
// waits until billing has opened its account.
func (h *harness) openAccount(tier string) string {
	h.t.Helper()
	org := uuid.NewString()
	h.publish(h.envelope(events.GatewayOrganizationCreated, "gateway", org, events.OrganizationCreated{OrganizationID: org, Name: "org " + org[:8], Tier: tier}))
	testkit.Eventually(h.t, 20*time.Second, "account opened", func() bool {
		st, _ := h.balanceOf(org)
		return st == 200
	})
	return org
}

// balance is the organization's available credits as billing reports
// them, once every settlement the service wrote has reached billing.
func (h *harness) balance(org string) int64 {
	h.t.Helper()
	h.drained()
	var last int64 = -1
	// Billing applies settlements asynchronously: wait until two reads
	// agree after the outbox drained.
	testkit.Eventually(h.t, 20*time.Second, "balance settled", func() bool {
		h.settledInBilling(org)
		_, b := h.balanceOf(org)
		same := b == last
		last = b
		return same
	})
	return last
}

// settledInBilling waits until billing has no pending reservation of org.
func (h *harness) settledInBilling(org string) {
	h.t.Helper()
	testkit.Eventually(h.t, 20*time.Second, "reservations settled in billing", func() bool {
		for _, u := range h.usage(org) {
			if u.Status == "pending" || u.Status == "reserved" {
				return false
			}
		}
		return true
	})
}

func (h *harness) balanceOf(org string) (int, int64) {
	h.t.Helper()
	r := h.call(h.billingURL, "GET", "/account/credits", org, nil, "")
	if r.Status != 200 {
		return r.Status, 0
	}
	var b struct {
		Credits struct {
			Total int64 `json:"total"`
		} `json:"credits"`
	}
	r.Into(h.t, &b)
	return r.Status, b.Credits.Total
}

type usageItem struct {
	ID         string `json:"id"`
	Operation  string `json:"operation"`
	Credits    int64  `json:"credits"`
	Status     string `json:"status"`
	ResourceID string `json:"resourceId"`
}

// usage is billing's usage history of org.
func (h *harness) usage(org string) []usageItem {
	h.t.Helper()
	var items []usageItem
	h.call(h.billingURL, "GET", "/account/usage?limit=100", org, nil, "").Into(h.t, &items)
	return items
}

// drained waits until the service's outbox is published.
func (h *harness) drained() {
	h.t.Helper()
	testkit.Eventually(h.t, 20*time.Second, "outbox drained", func() bool {
		n, err := messaging.OutboxPending(context.Background(), h.pool)
		return err == nil && n == 0
	})
}

// reservations counts the service's journal rows of org.
func (h *harness) reservations(org string) int {
	h.t.Helper()
	var n int
	if err := h.pool.QueryRow(context.Background(), `SELECT count(*) FROM credit_reservations WHERE org_id = $1`, org).Scan(&n); err != nil {
		h.t.Fatal(err)
	}
	return n
}

// resp is a decoded answer of the service or billing.
type resp = testkit.Response

func sign(t testing.TB, org, idem string) string {
	t.Helper()
	v, err := principal.Sign([]byte(secret), principal.Principal{OrgID: org, KeyID: "k", Tier: "pro", RequestID: uuid.NewString(),
		IdempotencyKey: idem, Expires: time.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// do calls the service as org. body is marshalled unless it is a string,
// which is sent as is.
func (h *harness) do(method, path, org string, body any) resp {
	h.t.Helper()
	return h.call(h.url, method, path, org, body, "")
}

// call calls base as org ("" sends no principal), with an
// Idempotency-Key when idem is not "".
func (h *harness) call(base, method, path, org string, body any, idem string) resp {
	h.t.Helper()
	var headers []string
	if org != "" {
		headers = []string{principal.Header, sign(h.t, org, idem)}
	}
	return testkit.Call(h.t, h.client, method, base+path, body, headers...)
}

// must calls do and fails unless the status is want.
func (h *harness) must(want int, method, path, org string, body any) resp {
	h.t.Helper()
	r := h.do(method, path, org, body)
	if r.Status != want {
		h.t.Fatalf("%s %s: status %d, want %d: %s", method, path, r.Status, want, r.Raw)
	}
	return r
}

// thumb is a thumbnail as the API returns it; pointer fields tell null
// from absent-as-empty.
type thumb struct {
	ID           string    `json:"id"`
	ImageURL     string    `json:"imageUrl"`
	Prompt       string    `json:"prompt"`
	Kind         string    `json:"kind"`
	ParentID     *string   `json:"parentId"`
	AspectRatio  string    `json:"aspectRatio"`
	Width        int       `json:"width"`
	Height       int       `json:"height"`
	StyleID      *string   `json:"styleId"`
	BrandID      *string   `json:"brandId"`
	FaceIDs      []string  `json:"faceIds"`
	CollectionID *string   `json:"collectionId"`
	TemplateID   *string   `json:"templateId"`
	Engine       string    `json:"engine"`
	CreatedAt    time.Time `json:"createdAt"`
}

// itemFields are the keys every thumbnail item carries.
var itemFields = []string{"id", "imageUrl", "prompt", "kind", "parentId", "aspectRatio", "width", "height",
	"styleId", "brandId", "faceIds", "collectionId", "templateId", "engine", "operation", "params", "createdAt"}

// checkFields fails unless raw (one item) has exactly the item fields.
func checkFields(t testing.TB, raw json.RawMessage) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if len(m) != len(itemFields) {
		t.Errorf("item has %d fields, want %d: %s", len(m), len(itemFields), raw)
	}
	for _, f := range itemFields {
		if _, ok := m[f]; !ok {
			t.Errorf("item lacks %q: %s", f, raw)
		}
	}
}

// generate makes a thumbnail and returns it.
func (h *harness) generate(org string, body map[string]any) thumb {
	h.t.Helper()
	r := h.must(201, "POST", "/thumbnails", org, body)
	checkFields(h.t, r.Data)
	var th thumb
	r.Into(h.t, &th)
	return th
}

// picture downloads a public URL anonymously and decodes it.
func (h *harness) picture(u string) (image.Image, string) {
	h.t.Helper()
	res, err := h.client.Get(u)
	if err != nil {
		h.t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		h.t.Fatalf("GET %s: %d %s", u, res.StatusCode, b)
	}
	img, format, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		h.t.Fatalf("decode %s: %v", u, err)
	}
	return img, format
}

// status GETs a public URL anonymously and returns its status and body.
func (h *harness) status(u string) (int, []byte) {
	h.t.Helper()
	res, err := h.client.Get(u)
	if err != nil {
		h.t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// checkPicture fails unless u is a w×h JPEG.
func (h *harness) checkPicture(u string, w, hgt int) []byte {
	h.t.Helper()
	img, format := h.picture(u)
	if format != "jpeg" || img.Bounds().Dx() != w || img.Bounds().Dy() != hgt {
		h.t.Fatalf("%s is a %dx%d %s, want a %dx%d jpeg", u, img.Bounds().Dx(), img.Bounds().Dy(), format, w, hgt)
	}
	_, b := h.status(u)
	return b
}

// publish sends an event as its producer's outbox relay would.
func (h *harness) publish(env events.Envelope) {
	h.t.Helper()
	b, _ := json.Marshal(env)
	if _, err := h.bus.JS.Publish(context.Background(), h.bus.Subject(env.Type), b, jetstream.WithMsgID(env.ID)); err != nil {
		h.t.Fatalf("publish %s: %v", env.Type, err)
	}
}

func (h *harness) envelope(typ, source, org string, data any) events.Envelope {
	h.t.Helper()
	env, err := events.New(context.Background(), typ, source, org, data)
	if err != nil {
		h.t.Fatal(err)
	}
	return env
}

// assetEvent publishes an assets event and waits until the read model has
// handled it.
func (h *harness) assetEvent(typ, org string, data any) events.Envelope {
	h.t.Helper()
	env := h.envelope(typ, "assets", org, data)
	h.publish(env)
	testkit.Eventually(h.t, 20*time.Second, "event "+env.ID+" processed", func() bool {
		var n int
		_ = h.pool.QueryRow(context.Background(), `SELECT count(*) FROM inbox WHERE consumer = 'thumbnails-assets' AND event_id = $1`, env.ID).Scan(&n)
		return n == 1
	})
	return env
}

// streamEvents returns the events of the THUMBNAILS stream, once the
// outbox has drained.
func (h *harness) streamEvents() []events.Envelope {
	h.t.Helper()
	h.drained()
	ctx := context.Background()
	stream, err := h.bus.JS.Stream(ctx, h.bus.StreamName(events.StreamThumbnails))
	if err != nil {
		h.t.Fatal(err)
	}
	info, err := stream.Info(ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	var out []events.Envelope
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		m, err := stream.GetMsg(ctx, seq)
		if err != nil {
			continue
		}
		env, err := events.Parse(m.Data)
		if err != nil {
			h.t.Fatal(err)
		}
		out = append(out, env)
	}
	return out
}

// putObject stores data in the bucket under key (an upload, as assets
// would have written it).
func (h *harness) putObject(key, contentType string, data []byte) string {
	h.t.Helper()
	if _, err := h.minio.PutObject(context.Background(), h.s3.Bucket, key, bytes.NewReader(data), int64(len(data)), minio.PutObjectOptions{ContentType: contentType}); err != nil {
		h.t.Fatal(err)
	}
	return "http://" + h.s3.Endpoint + "/" + h.s3.Bucket + "/" + key
}

// objects lists the bucket's keys under prefix.
func (h *harness) objects(prefix string) []string {
	h.t.Helper()
	var keys []string
	for o := range h.minio.ListObjects(context.Background(), h.s3.Bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			h.t.Fatal(o.Err)
		}
		keys = append(keys, o.Key)
	}
	return keys
}

// gradientPNG is a w×h test picture.
func gradientPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), 128, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// testSite serves files over HTTP, for reference images.
func testSite(t testing.TB, files map[string][]byte, contentType string) (*httptest.Server, string) {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(b)
	}))
	t.Cleanup(s.Close)
	return s, strings.TrimPrefix(s.URL, "http://")
}
