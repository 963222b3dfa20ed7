package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
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
	"hookline.dev/services/assets/internal/app"
)

const secret = "test-principal-secret-0123456789abcdef"

// harness runs a real assets service against a fresh schema, NATS
// namespace and bucket, and talks to it the way the gateway does.
type harness struct {
	t      testing.TB
	url    string
	env    map[string]string
	bus    *messaging.Bus
	pool   *pgxpool.Pool
	s3     testkit.S3
	minio  *minio.Client
	client *http.Client
}

// newHarness starts the service; overrides are name, value pairs of
// environment variables.
func newHarness(t testing.TB, overrides ...string) *harness {
	t.Helper()
	schema := testkit.Schema(t, "assets")
	ns := testkit.Namespace(t)
	addr := testkit.FreeAddr(t)
	s3 := testkit.Bucket(t)
	h := &harness{t: t, url: "http://" + addr, s3: s3, client: &http.Client{Timeout: 60 * time.Second},
		env: testkit.ServiceEnv(t, schema, ns, addr, secret, append(s3.Env(), overrides...)...)}
	h.minio = s3.Client(t) // before the service: the bucket goes after it stops
	nc, err := messaging.Connect(context.Background(), testkit.NATSURL(t), "assets-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if h.bus, err = messaging.NewBus(nc, ns); err != nil {
		t.Fatal(err)
	}
	h.start()
	if h.pool, err = pgkit.Connect(context.Background(), testkit.DatabaseURL(t), schema, pgkit.Options{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.pool.Close)
	return h
}

// start runs the service until the test ends.
func (h *harness) start() {
	h.t.Helper()
	testkit.StartService(h.t, "assets", app.Run, h.env, h.url+"/readyz")
}

func newOrg() string { return uuid.NewString() }

// resp is a decoded answer of the service.
type resp = testkit.Response

func sign(t testing.TB, org string) string {
	t.Helper()
	v, err := principal.Sign([]byte(secret), principal.Principal{OrgID: org, KeyID: "k", Tier: "pro", Expires: time.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// do calls the service as org ("" sends no principal). body is marshalled
// unless it is a string, which is sent as is.
func (h *harness) do(method, path, org string, body any) resp {
	h.t.Helper()
	var headers []string
	if org != "" {
		headers = []string{principal.Header, sign(h.t, org)}
	}
	return testkit.Call(h.t, h.client, method, h.url+path, body, headers...)
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

type presigned struct {
	UploadURL string `json:"uploadUrl"`
	PublicURL string `json:"publicUrl"`
	ExpiresAt string `json:"expiresAt"`
}

// presign asks for an upload URL.
func (h *harness) presign(org, name, fileType string, size int) presigned {
	h.t.Helper()
	var p presigned
	h.must(200, "POST", "/uploads/presigned-url", org, map[string]any{"fileName": name, "fileType": fileType, "fileSize": size}).Into(h.t, &p)
	return p
}

// put sends data to a presigned URL the way a browser would: no service
// credentials, just the Content-Type.
func (h *harness) put(uploadURL, contentType string, data []byte) (int, string) {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodPut, uploadURL, bytes.NewReader(data))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	res, err := h.client.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// upload presigns and uploads data, returning its public URL.
func (h *harness) upload(org, name, contentType string, data []byte) string {
	h.t.Helper()
	p := h.presign(org, name, contentType, min(max(len(data), 1), 5<<20))
	if st, body := h.put(p.UploadURL, contentType, data); st != 200 {
		h.t.Fatalf("upload %s: %d %s", name, st, body)
	}
	return p.PublicURL
}

// fetch GETs a public URL anonymously.
func (h *harness) fetch(u string) (int, []byte) {
	h.t.Helper()
	res, err := h.client.Get(u)
	if err != nil {
		h.t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
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

// publish sends an event as its producer's outbox relay would. msgID
// defaults to the envelope id.
func (h *harness) publish(env events.Envelope, msgID string) {
	h.t.Helper()
	if msgID == "" {
		msgID = env.ID
	}
	b, _ := json.Marshal(env)
	if _, err := h.bus.JS.Publish(context.Background(), h.bus.Subject(env.Type), b, jetstream.WithMsgID(msgID)); err != nil {
		h.t.Fatalf("publish %s: %v", env.Type, err)
	}
}

func (h *harness) envelope(typ, org string, data any) events.Envelope {
	h.t.Helper()
	env, err := events.New(context.Background(), typ, "thumbnails", org, data)
	if err != nil {
		h.t.Fatal(err)
	}
	return env
}

// processed waits until the projection consumer has handled the event.
func (h *harness) processed(eventID string) {
	h.t.Helper()
	testkit.Eventually(h.t, 15*time.Second, "event "+eventID+" processed", func() bool {
		var n int
		_ = h.pool.QueryRow(context.Background(), `SELECT count(*) FROM inbox WHERE consumer = 'assets-thumbnails' AND event_id = $1`, eventID).Scan(&n)
		return n == 1
	})
}

// assetsEvents returns the events of the service's ASSETS stream, waiting
// until the outbox has drained.
func (h *harness) assetsEvents() []events.Envelope {
	h.t.Helper()
	ctx := context.Background()
	testkit.Eventually(h.t, 15*time.Second, "outbox drained", func() bool {
		n, err := messaging.OutboxPending(ctx, h.pool)
		return err == nil && n == 0
	})
	stream, err := h.bus.JS.Stream(ctx, h.bus.StreamName(events.StreamAssets))
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

// types lists the types of envs for one entity id (found in the payload).
func typesFor(envs []events.Envelope, id string) []string {
	var out []string
	for _, e := range envs {
		if strings.Contains(string(e.Data), id) {
			out = append(out, e.Type)
		}
	}
	return out
}

// solidPNG encodes a w×h image of one colour.
func solidPNG(t testing.TB, w, h int, c color.Color) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gradientPNG is an image without a face.
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

// siteFile is one file of a test website.
type siteFile struct {
	contentType string
	body        []byte
	redirect    string // answer 302 to this location instead
}

// site is a local website for imports and SSRF checks; hits counts every
// request it received.
type site struct {
	*httptest.Server
	host string // host:port, the form HOOKLINE_FETCH_ALLOW_HOSTS takes
	hits atomic.Int64
}

func testSite(t testing.TB, files map[string]siteFile) *site {
	t.Helper()
	s := &site{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		f, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if f.redirect != "" {
			http.Redirect(w, r, f.redirect, http.StatusFound)
			return
		}
		if f.contentType != "" {
			w.Header().Set("Content-Type", f.contentType)
		}
		_, _ = w.Write(f.body)
	}))
	t.Cleanup(s.Close)
	s.host = strings.TrimPrefix(s.URL, "http://")
	return s
}
