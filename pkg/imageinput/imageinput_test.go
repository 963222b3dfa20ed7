package imageinput

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"hookline.dev/pkg/apierr"
	"hookline.dev/pkg/imagecheck"
	"hookline.dev/pkg/s3store"
	"hookline.dev/pkg/safefetch"
	"hookline.dev/pkg/testkit"
)

func pngBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 200
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func jpegBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 100, 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fieldReason returns details.fields[field] of an InvalidRequest, failing
// the test for any other error.
func fieldReason(t *testing.T, err error, field string) string {
	t.Helper()
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Code != apierr.InvalidRequest {
		t.Fatalf("want invalid_request, got %v", err)
	}
	fs, _ := ae.Details["fields"].(map[string]string)
	r, ok := fs[field]
	if !ok {
		t.Fatalf("details.fields has no %q: %v", field, ae.Details)
	}
	return r
}

func site(t *testing.T, files map[string][]byte) (*httptest.Server, string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	return srv, u.Host
}

func TestExternal(t *testing.T) {
	big := append(pngBytes(t, 8, 8), make([]byte, imagecheck.MaxBytes)...)
	srv, host := site(t, map[string][]byte{
		"/ok.png":   pngBytes(t, 16, 9),
		"/ok.jpg":   jpegBytes(t, 32, 32),
		"/text.png": []byte("hello, I am not an image at all"),
		"/big.png":  big,
		"/trunc.png": func() []byte {
			b := pngBytes(t, 64, 64)
			return b[:len(b)/2]
		}(),
	})
	src := &Source{Fetcher: safefetch.New(safefetch.Config{AllowHosts: []string{host}, Timeout: 5 * time.Second})}
	ctx := context.Background()

	img, err := src.Load(ctx, "org", "imageUrl", srv.URL+"/ok.png")
	if err != nil {
		t.Fatal(err)
	}
	if img.Format != imagecheck.FormatPNG || img.Img.Bounds().Dx() != 16 || img.Key != "" || img.Ext() != "png" {
		t.Fatalf("unexpected image %+v", img.Format)
	}
	if img, err := src.Load(ctx, "org", "imageUrl", srv.URL+"/ok.jpg"); err != nil || img.Format != imagecheck.FormatJPEG || img.ContentType() != "image/jpeg" {
		t.Fatalf("jpeg: %v %v", err, img.Format)
	}

	cases := map[string]string{
		"/text.png":  "not a JPEG or PNG",
		"/big.png":   "larger than 5 MB",
		"/trunc.png": "cannot be decoded",
		"/missing":   "error status",
	}
	for path, want := range cases {
		_, err := src.Load(ctx, "org", "imageUrls[3]", srv.URL+path)
		r := fieldReason(t, err, "imageUrls[3]")
		if !strings.Contains(r, want) || !strings.Contains(r, srv.URL+path) {
			t.Errorf("%s: reason %q, want it to name the URL and contain %q", path, r, want)
		}
	}
}

// TestSSRF checks that non-public targets are refused when not allow-listed,
// without any traffic (the fetcher refuses before connecting).
func TestSSRF(t *testing.T) {
	_, host := site(t, map[string][]byte{"/ok.png": pngBytes(t, 4, 4)})
	_, port, _ := strings.Cut(host, ":")
	src := &Source{Fetcher: safefetch.New(safefetch.Config{Timeout: 2 * time.Second})}
	for _, u := range []string{
		"http://" + host + "/ok.png",
		"http://localhost:" + port + "/ok.png",
		"http://10.0.0.1/x.png",
		"http://192.168.1.1/x.png",
		"http://172.16.0.1/x.png",
		"http://169.254.169.254/latest/meta-data",
		"http://[::1]:" + port + "/ok.png",
		"http://0.0.0.0:" + port + "/ok.png",
	} {
		_, err := src.Load(context.Background(), "org", "imageUrl", u)
		if r := fieldReason(t, err, "imageUrl"); !strings.Contains(r, "may not be fetched") {
			t.Errorf("%s: reason %q", u, r)
		}
	}
	for u, want := range map[string]string{
		"ftp://example.com/x.png": "http or https",
		"file:///etc/passwd":      "absolute http or https",
		"/relative.png":           "absolute http or https",
		"":                        "required",
		"https://example.com/" + strings.Repeat("a", MaxURLLength): "at most",
	} {
		_, err := src.Load(context.Background(), "org", "imageUrl", u)
		if r := fieldReason(t, err, "imageUrl"); !strings.Contains(r, want) {
			t.Errorf("%q: reason %q, want %q", u, r, want)
		}
	}
	if _, err := (&Source{}).Load(context.Background(), "org", "f", "https://example.com/a.png"); !strings.Contains(fieldReason(t, err, "f"), "only uploaded") {
		t.Errorf("nil fetcher: %v", err)
	}
}

func TestLoadAllReportsEveryURL(t *testing.T) {
	srv, host := site(t, map[string][]byte{"/ok.png": pngBytes(t, 4, 4), "/bad.png": []byte("nope")})
	src := &Source{Fetcher: safefetch.New(safefetch.Config{AllowHosts: []string{host}})}
	urls := []string{srv.URL + "/ok.png", srv.URL + "/bad.png", "http://10.1.2.3/x.png", srv.URL + "/ok.png"}
	_, err := src.LoadAll(context.Background(), "org", "imageUrls", urls)
	for _, f := range []string{"imageUrls[1]", "imageUrls[2]"} {
		fieldReason(t, err, f)
	}
	var ae *apierr.Error
	errors.As(err, &ae)
	if n := len(ae.Details["fields"].(map[string]string)); n != 2 {
		t.Fatalf("want 2 failing fields, got %d: %v", n, ae.Details)
	}
	imgs, err := src.LoadAll(context.Background(), "org", "imageUrls", []string{srv.URL + "/ok.png", srv.URL + "/ok.png"})
	if err != nil || len(imgs) != 2 || imgs[1].URL != srv.URL+"/ok.png" {
		t.Fatalf("LoadAll: %v", err)
	}
}

// newStore returns a store on a fresh MinIO bucket, removed afterwards.
func newStore(t *testing.T) *s3store.Store {
	t.Helper()
	b := testkit.Bucket(t)
	st, err := s3store.New(s3store.Config{Endpoint: b.Endpoint, AccessKey: b.AccessKey, SecretKey: b.SecretKey, Bucket: b.Bucket, Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := st.EnsureBucket(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := minio.New(b.Endpoint, &minio.Options{Creds: credentials.NewStaticV4(b.AccessKey, b.SecretKey, ""), Region: "us-east-1"})
		if err == nil {
			_ = c.RemoveBucketWithOptions(context.Background(), b.Bucket, minio.RemoveBucketOptions{ForceDelete: true})
		}
	})
	return st
}

func TestOwnObjects(t *testing.T) {
	st := newStore(t)
	ctx := context.Background()
	org, other := "0f8b7d5e-1111-4a5b-9c9d-000000000001", "0f8b7d5e-2222-4a5b-9c9d-000000000002"
	put := func(key string, data []byte, ct string) string {
		t.Helper()
		if err := st.Put(ctx, key, bytes.NewReader(data), int64(len(data)), ct); err != nil {
			t.Fatal(err)
		}
		return st.PublicURL(key)
	}
	good := put("orgs/"+org+"/uploads/a-photo.png", pngBytes(t, 20, 10), "image/png")
	text := put("orgs/"+org+"/uploads/b-fake.png", []byte("just some text pretending"), "image/png")
	huge := put("orgs/"+org+"/uploads/c-huge.png", append(pngBytes(t, 4, 4), make([]byte, 6<<20)...), "image/png")
	theirs := put("orgs/"+other+"/uploads/d-theirs.png", pngBytes(t, 4, 4), "image/png")
	missing := st.PublicURL("orgs/" + org + "/uploads/never-uploaded.png")

	// The external fetcher must never be used for our objects: with a nil
	// fetcher any attempt would be refused with "only uploaded".
	src := &Source{Store: st}
	img, err := src.Load(ctx, org, "imageUrl", good)
	if err != nil {
		t.Fatal(err)
	}
	if img.Key != "orgs/"+org+"/uploads/a-photo.png" || img.Format != imagecheck.FormatPNG || img.Img.Bounds().Dx() != 20 {
		t.Fatalf("unexpected %+v", img.Key)
	}
	for u, want := range map[string]string{
		text:              "not a JPEG or PNG",
		huge:              "larger than 5 MB",
		theirs:            "was not uploaded",
		missing:           "was not uploaded",
		good + "?x=1":     "not a valid address",
		good + "/../../x": "not a valid address",
		st.PublicURL("x"): "was not uploaded",
		st.PublicURL("") + "orgs/" + org + "/uploads//a.png": "not a valid address",
	} {
		_, err := src.Load(ctx, org, "imageUrls[0]", u)
		if r := fieldReason(t, err, "imageUrls[0]"); !strings.Contains(r, want) || !strings.HasPrefix(r, u+": ") {
			t.Errorf("%s: reason %q, want %q", u, r, want)
		}
	}
	// The other organization can read its own object.
	if _, err := src.Load(ctx, other, "imageUrl", theirs); err != nil {
		t.Fatal(err)
	}
}
