package s3store

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"hookline.dev/pkg/testkit"
)

// newTestStore connects to the MinIO given by HOOKLINE_TEST_S3_* and creates
// a store on a fresh, randomly named bucket that is force-deleted afterwards.
// Without it the test is skipped, except under make test, where it fails
// (testkit.Missing): a skipped storage test proves nothing.
func newTestStore(t *testing.T) *Store { t.Helper(); return newTestStoreWith(t, nil) }

// newTestStoreWith is newTestStore with the configuration adjusted by edit
// (given the bucket name) before New.
func newTestStoreWith(t *testing.T, edit func(cfg *Config)) *Store {
	t.Helper()
	endpoint := os.Getenv("HOOKLINE_TEST_S3_ENDPOINT")
	access := os.Getenv("HOOKLINE_TEST_S3_ACCESS_KEY")
	secret := os.Getenv("HOOKLINE_TEST_S3_SECRET_KEY")
	if endpoint == "" || access == "" || secret == "" {
		testkit.Missing(t, "HOOKLINE_TEST_S3_ENDPOINT, HOOKLINE_TEST_S3_ACCESS_KEY and HOOKLINE_TEST_S3_SECRET_KEY are not set; run the tests with `make test`, which starts MinIO and sets them")
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	bucket := "hookline-test-" + hex.EncodeToString(b[:])
	base := strings.TrimSuffix(endpoint, "/")
	if !strings.Contains(base, "://") {
		base = "http://" + base
	}
	cfg := Config{
		Endpoint:  endpoint,
		AccessKey: access,
		SecretKey: secret,
		Bucket:    bucket,
		Region:    "us-east-1",
		PublicURL: base + "/" + bucket,
	}
	if edit != nil {
		edit(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err := s.client.RemoveBucketWithOptions(ctx, bucket, minio.RemoveBucketOptions{ForceDelete: true})
		if err != nil && minioCode(err) != "NoSuchBucket" {
			t.Errorf("cleanup bucket %s: %v", bucket, err)
		}
	})
	return s
}

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// anonymous issues a request without credentials, as a browser would.
func anonymous(t *testing.T, ctx context.Context, method, url, contentType string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.ContentLength = int64(len(body))
	return send(t, req)
}

// send does req and returns the status and body.
func send(t *testing.T, req *http.Request) (int, []byte) {
	t.Helper()
	method, url := req.Method, req.URL.String()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s %s: %v", method, url, err)
	}
	return resp.StatusCode, b
}

func TestEnsureBucketIdempotent(t *testing.T) {
	s := newTestStore(t)
	ctx := testCtx(t)
	if err := s.Ping(ctx); err == nil {
		t.Error("Ping succeeded before the bucket exists")
	}
	for i := range 2 {
		if err := s.EnsureBucket(ctx); err != nil {
			t.Fatalf("EnsureBucket #%d: %v", i+1, err)
		}
	}
	if err := s.Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
}

// TestEnsureBucketWritesPolicyOnlyWhenItDiffers: the policy is written on
// a new bucket, left alone while it matches (also when storage returns it
// in another but equivalent form), and put back after an edit.
func TestEnsureBucketWritesPolicyOnlyWhenItDiffers(t *testing.T) {
	s := newTestStore(t)
	ctx := testCtx(t)
	if err := s.EnsureBucket(ctx); err != nil {
		t.Fatal(err)
	}
	if written, err := s.ensurePolicy(ctx); err != nil || written {
		t.Fatalf("second start: written %v, %v; want the policy left alone", written, err)
	}
	// The same policy spelled with single values instead of lists.
	equivalent := `{"Version":"2012-10-17","Statement":[{"Sid":"PublicReadOrgResults","Effect":"Allow","Principal":"*",` +
		`"Action":"s3:GetObject","Resource":"arn:aws:s3:::` + s.bucket + `/orgs/*"}]}`
	if err := s.client.SetBucketPolicy(ctx, s.bucket, equivalent); err != nil {
		t.Fatal(err)
	}
	if written, err := s.ensurePolicy(ctx); err != nil || written {
		t.Fatalf("equivalent policy: written %v, %v; want it left alone", written, err)
	}
	// An operator widens it by hand: the next start puts ours back.
	wider := strings.Replace(equivalent, "/orgs/*", "/*", 1)
	if err := s.client.SetBucketPolicy(ctx, s.bucket, wider); err != nil {
		t.Fatal(err)
	}
	if err := s.EnsureBucket(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := s.client.GetBucketPolicy(ctx, s.bucket)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := publicReadPolicy(s.bucket)
	if !samePolicy(got, want) {
		t.Fatalf("policy after restart %s, want %s", got, want)
	}
	// Removed entirely: written again.
	if err := s.client.SetBucketPolicy(ctx, s.bucket, ""); err != nil {
		t.Fatal(err)
	}
	if written, err := s.ensurePolicy(ctx); err != nil || !written {
		t.Fatalf("missing policy: written %v, %v; want it written", written, err)
	}
}

func TestPutStatGetRemoveCopy(t *testing.T) {
	s := newTestStore(t)
	ctx := testCtx(t)
	if err := s.EnsureBucket(ctx); err != nil {
		t.Fatal(err)
	}
	key := Key("org-1", "thumbnails", "abc", "png")
	data := []byte("\x89PNG\r\n\x1a\nnot really an image")
	if err := s.Put(ctx, key, bytes.NewReader(data), int64(len(data)), "image/png"); err != nil {
		t.Fatalf("Put: %v", err)
	}

	info, err := s.Stat(ctx, key)
	if err != nil {
		t.Fatalf("Stat: %v", err)
	}
	if info.Size != int64(len(data)) || info.ContentType != "image/png" {
		t.Errorf("Stat = %+v", info)
	}

	rc, err := s.Get(ctx, key)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	got, err := io.ReadAll(rc)
	_ = rc.Close()
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("Get body = %q, err %v", got, err)
	}

	dst := Key("org-1", "thumbnails", "copy", "png")
	if err := s.Copy(ctx, key, dst); err != nil {
		t.Fatalf("Copy: %v", err)
	}
	if info, err := s.Stat(ctx, dst); err != nil || info.Size != int64(len(data)) {
		t.Errorf("Stat(copy) = %+v, %v", info, err)
	}
	if err := s.Copy(ctx, "orgs/org-1/none/missing.png", dst); !errors.Is(err, ErrNotFound) {
		t.Errorf("Copy of missing source: err = %v, want ErrNotFound", err)
	}

	if err := s.Remove(ctx, key); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if _, err := s.Stat(ctx, key); !errors.Is(err, ErrNotFound) {
		t.Errorf("Stat after Remove: err = %v, want ErrNotFound", err)
	}
	if _, err := s.Get(ctx, key); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after Remove: err = %v, want ErrNotFound", err)
	}
	if err := s.Remove(ctx, key); err != nil {
		t.Errorf("second Remove: %v", err)
	}
}

func TestStatMissing(t *testing.T) {
	s := newTestStore(t)
	ctx := testCtx(t)
	if err := s.EnsureBucket(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := s.Stat(ctx, "orgs/x/thumbnails/nope.png")
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	if !strings.Contains(err.Error(), "orgs/x/thumbnails/nope.png") {
		t.Errorf("error %q does not name the key", err)
	}
}

func TestPublicReadOnlyUnderOrgs(t *testing.T) {
	s := newTestStore(t)
	ctx := testCtx(t)
	if err := s.EnsureBucket(ctx); err != nil {
		t.Fatal(err)
	}
	public := Key("org-2", "clips", "r1", "mp4")
	private := "internal/secret.txt"
	for _, k := range []string{public, private} {
		if err := s.Put(ctx, k, strings.NewReader("payload "+k), -1, "text/plain"); err != nil {
			t.Fatalf("Put %s: %v", k, err)
		}
	}

	status, body := anonymous(t, ctx, http.MethodGet, s.PublicURL(public), "", nil)
	if status != http.StatusOK || string(body) != "payload "+public {
		t.Errorf("anonymous GET %s = %d %q", s.PublicURL(public), status, body)
	}
	if status, _ := anonymous(t, ctx, http.MethodGet, s.PublicURL(private), "", nil); status != http.StatusForbidden {
		t.Errorf("anonymous GET outside orgs/ = %d, want 403", status)
	}
	// Listing would enumerate every result; it must stay private.
	if status, _ := anonymous(t, ctx, http.MethodGet, s.publicStr+"/", "", nil); status != http.StatusForbidden {
		t.Errorf("anonymous bucket listing = %d, want 403", status)
	}
	// Public read, not public write.
	if status, _ := anonymous(t, ctx, http.MethodPut, s.PublicURL(Key("org-2", "clips", "evil", "mp4")), "video/mp4", []byte("x")); status != http.StatusForbidden {
		t.Errorf("anonymous PUT under orgs/ = %d, want 403", status)
	}
}

func TestPresignPutSignsTypeAndLength(t *testing.T) {
	s := newTestStore(t)
	ctx := testCtx(t)
	if err := s.EnsureBucket(ctx); err != nil {
		t.Fatal(err)
	}
	key := Key("org-3", "uploads", "u1", "jpg")
	jpeg := []byte("\xff\xd8\xff\xe0fake jpeg")
	u, err := s.PresignPut(ctx, key, "image/jpeg", int64(len(jpeg)), 5*time.Minute)
	if err != nil {
		t.Fatalf("PresignPut: %v", err)
	}

	if status, body := anonymous(t, ctx, http.MethodPut, u, "image/png", jpeg); status != http.StatusForbidden {
		t.Errorf("PUT with another Content-Type = %d %s, want 403", status, body)
	}
	big := append(bytes.Clone(jpeg), make([]byte, 50<<20)...)
	if status, _ := anonymous(t, ctx, http.MethodPut, u, "image/jpeg", big); status != http.StatusForbidden {
		t.Errorf("PUT of 50 MB on a URL signed for %d bytes = %d, want 403", len(jpeg), status)
	}
	if status, _ := anonymous(t, ctx, http.MethodPut, u, "image/jpeg", jpeg[:4]); status != http.StatusForbidden {
		t.Errorf("PUT of fewer bytes = %d, want 403", status)
	}
	// Chunked, with no length at all.
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, u, io.MultiReader(bytes.NewReader(jpeg)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "image/jpeg")
	if status, _ := send(t, req); status != http.StatusForbidden && status != http.StatusLengthRequired {
		t.Errorf("chunked PUT = %d, want 403 or 411", status)
	}
	if _, err := s.Stat(ctx, key); !errors.Is(err, ErrNotFound) {
		t.Errorf("refused upload left an object: %v", err)
	}

	if status, body := anonymous(t, ctx, http.MethodPut, u, "image/jpeg", jpeg); status != http.StatusOK {
		t.Fatalf("PUT with signed Content-Type and length = %d %s, want 200", status, body)
	}
	info, err := s.Stat(ctx, key)
	if err != nil {
		t.Fatalf("Stat after presigned PUT: %v", err)
	}
	if info.ContentType != "image/jpeg" || info.Size != int64(len(jpeg)) {
		t.Errorf("Stat = %+v", info)
	}

	if _, err := s.PresignPut(ctx, key, "", 1, time.Minute); err == nil {
		t.Error("PresignPut without content type succeeded")
	}
}

// TestPresignUsesPublicEndpoint: storage is reached internally as
// 127.0.0.1 and publicly as localhost (the same MinIO). Upload URLs name
// the public host, work there, and are signed without reaching it.
func TestPresignUsesPublicEndpoint(t *testing.T) {
	endpoint := os.Getenv("HOOKLINE_TEST_S3_ENDPOINT")
	if endpoint == "" {
		testkit.Missing(t, "HOOKLINE_TEST_S3_ENDPOINT is not set: run the tests with `make test`, which starts MinIO and sets it")
	}
	_, port, err := net.SplitHostPort(strings.TrimPrefix(strings.TrimPrefix(endpoint, "http://"), "https://"))
	if err != nil {
		t.Fatalf("endpoint %q: %v", endpoint, err)
	}
	public := "localhost:" + port
	ctx := testCtx(t)
	data := []byte("\x89PNG\r\n\x1a\nnot really")
	for name, edit := range map[string]func(*Config){
		"from the public URL": func(c *Config) { c.Endpoint = "127.0.0.1:" + port; c.PublicURL = "http://" + public + "/" + c.Bucket },
		"explicit": func(c *Config) {
			c.Endpoint = "127.0.0.1:" + port
			c.PublicURL = "https://cdn.example.com/assets"
			c.PublicEndpoint = "http://" + public
		},
	} {
		t.Run(name, func(t *testing.T) {
			s := newTestStoreWith(t, edit)
			if err := s.EnsureBucket(ctx); err != nil {
				t.Fatal(err)
			}
			key := Key("org-4", "uploads", "p1", "png")
			u, err := s.PresignPut(ctx, key, "image/png", int64(len(data)), time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if pu, _ := url.Parse(u); pu == nil || pu.Host != public {
				t.Fatalf("upload URL %s is not on the public host %s", u, public)
			}
			if status, body := anonymous(t, ctx, http.MethodPut, u, "image/png", data); status != http.StatusOK {
				t.Fatalf("PUT to the public host = %d %s", status, body)
			}
			if info, err := s.Stat(ctx, key); err != nil || info.Size != int64(len(data)) {
				t.Fatalf("Stat through the internal host: %+v %v", info, err)
			}
		})
	}
	// Signing never connects: an unreachable public endpoint still signs.
	s, err := New(Config{Endpoint: "127.0.0.1:" + port, Bucket: "bkt", AccessKey: "k", SecretKey: "s", PublicEndpoint: "https://s3.invalid:1"})
	if err != nil {
		t.Fatal(err)
	}
	if u, err := s.PresignPut(ctx, "orgs/o/uploads/x.png", "image/png", 1, time.Minute); err != nil || !strings.HasPrefix(u, "https://s3.invalid:1/bkt/") {
		t.Fatalf("presign for an unreachable endpoint: %q %v", u, err)
	}
}

// The tests below need no storage server.

func TestKey(t *testing.T) {
	if got := Key("o1", "thumbnails", "t1", "png"); got != "orgs/o1/thumbnails/t1.png" {
		t.Errorf("Key = %q", got)
	}
	if got := SharedKey("templates", "t1-v1.jpg"); got != "orgs/shared/templates/t1-v1.jpg" {
		t.Errorf("SharedKey = %q", got)
	}
	if got := Key("o1", "clips", "c1", ".mp4"); got != "orgs/o1/clips/c1.mp4" {
		t.Errorf("Key with dotted ext = %q", got)
	}
}

func TestPublicURLRoundTrip(t *testing.T) {
	s, err := New(Config{Endpoint: "127.0.0.1:9000", Bucket: "hookline", PublicURL: "http://127.0.0.1:9000/hookline/"})
	if err != nil {
		t.Fatal(err)
	}
	key := "orgs/o1/thumbnails/t1.png"
	u := s.PublicURL(key)
	if u != "http://127.0.0.1:9000/hookline/orgs/o1/thumbnails/t1.png" {
		t.Errorf("PublicURL = %q", u)
	}
	if got, ok := s.KeyFromPublicURL(u); !ok || got != key {
		t.Errorf("KeyFromPublicURL(%q) = %q, %v", u, got, ok)
	}

	odd := "orgs/o1/thumbnails/a b#c?.png"
	if got, ok := s.KeyFromPublicURL(s.PublicURL(odd)); !ok || got != odd {
		t.Errorf("round trip of %q = %q, %v", odd, got, ok)
	}

	for _, bad := range []string{
		"http://127.0.0.1:9000/hookline/orgs/o1/t.png?x=1",
		"http://127.0.0.1:9000/hookline/orgs/o1/t.png?",
		"http://127.0.0.1:9000/hookline/orgs/o1/t.png#frag",
		"http://127.0.0.1:9000/hookline/orgs/../secret",
		"http://127.0.0.1:9000/hookline/orgs/%2e%2e/secret",
		"http://127.0.0.1:9000/hookline/./orgs/x",
		"http://127.0.0.1:9000/hookline//orgs/x",
		"http://127.0.0.1:9000/hookline/",
		"http://127.0.0.1:9000/hookline",
		"http://127.0.0.1:9000/hooklinex/orgs/x",
		"http://127.0.0.1:9000/other/orgs/x",
		"https://127.0.0.1:9000/hookline/orgs/x",
		"http://evil.example/hookline/orgs/x",
		"http://user@127.0.0.1:9000/hookline/orgs/x",
		"::not a url",
	} {
		if key, ok := s.KeyFromPublicURL(bad); ok {
			t.Errorf("KeyFromPublicURL(%q) accepted as %q", bad, key)
		}
	}
}

func TestNewValidates(t *testing.T) {
	for name, cfg := range map[string]Config{
		"no endpoint":         {Bucket: "b"},
		"no bucket":           {Endpoint: "127.0.0.1:9000"},
		"bad scheme":          {Endpoint: "ftp://127.0.0.1:9000", Bucket: "b"},
		"query public":        {Endpoint: "127.0.0.1:9000", Bucket: "b", PublicURL: "http://h/b?x=1"},
		"bad public endpoint": {Endpoint: "127.0.0.1:9000", Bucket: "b", PublicEndpoint: "ftp://h"},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%s: New succeeded", name)
		}
	}
	s, err := New(Config{Endpoint: "https://s3.example.com", Bucket: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.PublicURL("orgs/k"); got != "https://s3.example.com/b/orgs/k" {
		t.Errorf("default public URL = %q", got)
	}
}

func TestPublicReadPolicy(t *testing.T) {
	p, err := publicReadPolicy("hookline")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"s3:GetObject"`, `"arn:aws:s3:::hookline/orgs/*"`, `"Principal":{"AWS":["*"]}`} {
		if !strings.Contains(p, want) {
			t.Errorf("policy %s lacks %s", p, want)
		}
	}
	if strings.Contains(p, "ListBucket") || strings.Contains(p, "PutObject") {
		t.Errorf("policy grants more than GetObject: %s", p)
	}
}
