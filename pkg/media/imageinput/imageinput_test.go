package imageinput

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
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

	"hookline.dev/pkg/media/imagecheck"
	"hookline.dev/pkg/media/membudget"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/s3store"
	"hookline.dev/pkg/platform/safefetch"
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

// Check verifies up to the header and decodes nothing; Decode then
// refuses a corrupt picture exactly as Load does.
func TestCheckThenDecode(t *testing.T) {
	whole := jpegBytes(t, 64, 48)
	srv, host := site(t, map[string][]byte{"/ok.jpg": whole, "/trunc.jpg": corrupt(whole), "/text.jpg": []byte("not an image")})
	src := &Source{Fetcher: safefetch.New(safefetch.Config{AllowHosts: []string{host}, Timeout: 5 * time.Second})}
	ctx := context.Background()
	img, err := src.Check(ctx, "org", "imageUrl", srv.URL+"/ok.jpg")
	if err != nil || img.Img != nil || img.Width != 64 || img.Height != 48 || !bytes.Equal(img.Data, whole) {
		t.Fatalf("check: %v %+v", err, img.Format)
	}
	if img, err = src.Decode(ctx, "org", "imageUrl", img); err != nil || img.Img.Bounds().Dx() != 64 {
		t.Fatalf("decode: %v", err)
	}
	trunc, err := src.Check(ctx, "org", "imageUrl", srv.URL+"/trunc.jpg")
	if err != nil {
		t.Fatalf("a truncated JPEG's header is fine: %v", err)
	}
	_, err = src.Decode(ctx, "org", "imageUrl", trunc)
	if r := fieldReason(t, err, "imageUrl"); !strings.Contains(r, "cannot be decoded") {
		t.Errorf("truncated: %q", r)
	}
	_, err = src.Check(ctx, "org", "imageUrl", srv.URL+"/text.jpg")
	if r := fieldReason(t, err, "imageUrl"); !strings.Contains(r, "not a JPEG or PNG") {
		t.Errorf("not an image: %q", r)
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
		"https://example.com/" + strings.Repeat("a", imagecheck.MaxURLLength): "at most",
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
		strings.TrimSuffix(st.PublicURL("x"), "x") + "orgs/" + org + "/uploads//a.png": "not a valid address",
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

// TestRefusedUploadsAreDeleted: an upload refused for its content is
// removed from storage (it would stay public under orgs/), one that is
// merely missing or another organization's is not touched, and neither is
// a refused object outside the uploads prefix.
func TestRefusedUploadsAreDeleted(t *testing.T) {
	st := newStore(t)
	ctx := context.Background()
	org, other := "0f8b7d5e-3333-4a5b-9c9d-000000000003", "0f8b7d5e-4444-4a5b-9c9d-000000000004"
	objects := map[string][]byte{
		s3store.UploadPrefix(org) + "text.png":    []byte("not an image at all"),
		s3store.UploadPrefix(org) + "huge.png":    append(pngBytes(t, 4, 4), make([]byte, 6<<20)...),
		s3store.UploadPrefix(org) + "bomb.png":    pngHeader(6324, 6324, 16),
		s3store.UploadPrefix(org) + "corrupt.png": pngHeader(64, 64, 8),
		s3store.UploadPrefix(org) + "empty.png":   {},
		s3store.OrgPrefix(org) + "faces/x.png":    []byte("a result, not an upload"),
		s3store.UploadPrefix(other) + "text.png":  []byte("not an image either"),
	}
	for k, data := range objects {
		if err := st.Put(ctx, k, bytes.NewReader(data), int64(len(data)), "image/png"); err != nil {
			t.Fatal(err)
		}
	}
	src := &Source{Store: st}
	for k := range objects {
		if _, err := src.Load(ctx, org, "imageUrl", st.PublicURL(k)); err == nil {
			t.Fatalf("%s accepted", k)
		} else {
			fieldReason(t, err, "imageUrl")
		}
		_, err := st.Stat(ctx, k)
		kept := !errors.Is(err, s3store.ErrNotFound)
		if wantKept := !strings.HasPrefix(k, s3store.UploadPrefix(org)); kept != wantKept {
			t.Errorf("%s: kept %v, want %v (stat: %v)", k, kept, wantKept, err)
		}
	}
}

// pngHeader is a PNG whose IHDR declares w×h RGBA at depth bits a sample,
// followed by pixel data that does not decode.
func pngHeader(w, h uint32, depth byte) []byte {
	var buf bytes.Buffer
	buf.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&buf, binary.BigEndian, uint32(len(data)))
		buf.WriteString(typ)
		buf.Write(data)
		_ = binary.Write(&buf, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = depth, 6
	chunk("IHDR", ihdr)
	chunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00})
	chunk("IEND", nil)
	return buf.Bytes()
}

// TestLoadAllRequestDecodeLimit: five images each within the per-image
// limit but together over MaxRequestDecodeBytes are refused from their
// headers, naming the list, before any is decoded (their pixel data is
// corrupt, so a decode would have named each image instead).
func TestLoadAllRequestDecodeLimit(t *testing.T) {
	files := map[string][]byte{"/big.png": pngHeader(8000, 5000, 8)}
	srv, host := site(t, files)
	src := &Source{Fetcher: safefetch.New(safefetch.Config{AllowHosts: []string{host}})}
	urls := make([]string, 5)
	for i := range urls {
		urls[i] = srv.URL + "/big.png"
	}
	_, err := src.LoadAll(context.Background(), "org", "imageUrls", urls)
	if r := fieldReason(t, err, "imageUrls"); !strings.Contains(r, "at most 640 MB per request") {
		t.Fatalf("reason %q", r)
	}
	// Four fit: each is then decoded, and each fails on its own.
	_, err = src.LoadAll(context.Background(), "org", "imageUrls", urls[:4])
	if r := fieldReason(t, err, "imageUrls[3]"); !strings.Contains(r, "cannot be decoded") {
		t.Fatalf("reason %q", r)
	}
}

// TestDecodeBudget: a decode waits while the process's budget is spent,
// answers 503 with a Retry-After once the budget's wait is over, and
// proceeds once bytes are released; a picture larger than the whole
// budget is a 400 naming its field.
func TestDecodeBudget(t *testing.T) {
	b, err := membudget.New(1000, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	srv, host := site(t, map[string][]byte{"/ok.png": pngBytes(t, 8, 8), "/big.png": pngBytes(t, 16, 16)})
	src := &Source{Fetcher: safefetch.New(safefetch.Config{AllowHosts: []string{host}}), Budget: b}
	release, err := b.Acquire(context.Background(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.Load(context.Background(), "org", "f", srv.URL+"/ok.png")
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Code != apierr.Unavailable || ae.Details["retryAfter"] != int64(1) {
		t.Fatalf("load with the budget spent: %v, want 503 with retryAfter 1", err)
	}
	release()
	if _, err := src.Load(context.Background(), "org", "f", srv.URL+"/ok.png"); err != nil {
		t.Fatalf("load after release: %v", err)
	}
	// 16×16 RGBA is 1024 bytes decoded.
	_, err = src.Load(context.Background(), "org", "f", srv.URL+"/big.png")
	if r := fieldReason(t, err, "f"); !strings.Contains(r, "would need") {
		t.Fatalf("reason %q", r)
	}
}

// TestStripsAreRefused: a picture longer than 20:1 either way is refused
// from its header, naming the field, whatever its few bytes decode to.
func TestStripsAreRefused(t *testing.T) {
	srv, host := site(t, map[string][]byte{"/tall.png": pngBytes(t, 1, 10_000), "/wide.png": pngBytes(t, 10_000, 1)})
	src := &Source{Fetcher: safefetch.New(safefetch.Config{AllowHosts: []string{host}})}
	for _, p := range []string{"/tall.png", "/wide.png"} {
		_, err := src.Check(context.Background(), "org", "referenceImageUrls[0]", srv.URL+p)
		if r := fieldReason(t, err, "referenceImageUrls[0]"); !strings.Contains(r, "aspect ratio") {
			t.Errorf("%s: reason %q", p, r)
		}
	}
}

// corrupt damages a JPEG's entropy-coded data and leaves its headers
// whole: the markers still parse, the pixels do not.
func corrupt(b []byte) []byte {
	out := append([]byte{}, b...)
	sos := bytes.LastIndex(out, []byte{0xFF, 0xDA})
	for i := sos + 20; i < len(out)-2; i++ {
		out[i] = 0xFF
	}
	return out
}
