package hookline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

func encoded(t *testing.T, format string) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 4, 4))
	var b bytes.Buffer
	var err error
	if format == "png" {
		err = png.Encode(&b, img)
	} else {
		err = jpeg.Encode(&b, img, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestCheckUploadNamesTheMismatch(t *testing.T) {
	pngBytes, jpegBytes := encoded(t, "png"), encoded(t, "jpeg")
	n := int64(len(pngBytes))
	for _, c := range []struct {
		name                 string
		req                  UploadRequest
		data                 []byte
		field, declared, got string
	}{
		{"fits", UploadRequest{FileName: "a.png", FileType: "image/png", FileSize: n}, pngBytes, "", "", ""},
		{"type in any case, with spaces", UploadRequest{FileName: "a.png", FileType: " IMAGE/PNG ", FileSize: n}, pngBytes, "", "", ""},
		{"one byte short", UploadRequest{FileName: "a.png", FileType: "image/png", FileSize: n + 1}, pngBytes, "fileSize", fmt.Sprintf("%d bytes", n+1), fmt.Sprintf("%d bytes", n)},
		{"declared PNG, bytes JPEG", UploadRequest{FileName: "a.png", FileType: "image/png", FileSize: int64(len(jpegBytes))}, jpegBytes, "fileType", "image/png", "image/jpeg"},
		{"a type the API refuses", UploadRequest{FileName: "a.gif", FileType: "image/gif", FileSize: n}, pngBytes, "fileType", `"image/gif"`, "not allowed: image/jpeg or image/png"},
		{"empty", UploadRequest{FileName: "a.png", FileType: "image/png", FileSize: 1}, nil, "fileSize", "1", "empty"},
	} {
		err := CheckUpload(&c.req, c.data)
		if c.field == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		var m *UploadMismatchError
		if !errors.As(err, &m) || m.Field != c.field || m.Declared != c.declared || m.Actual != c.got {
			t.Errorf("%s: %#v (%v), want %s declared %q, actual %q", c.name, m, err, c.field, c.declared, c.got)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.field) || !strings.Contains(msg, c.req.FileName) {
			t.Errorf("%s: the message %q does not name the field and file", c.name, msg)
		}
	}
	big := append(append([]byte{}, pngBytes...), make([]byte, MaxUploadSize)...)
	err := CheckUpload(&UploadRequest{FileName: "big.png", FileType: "image/png", FileSize: int64(len(big))}, big)
	if m, ok := errors.AsType[*UploadMismatchError](err); !ok || !strings.Contains(m.Actual, "over the 5242880-byte limit") {
		t.Errorf("over 5 MB: %v", err)
	}
}

// storage is a fake of a presigned PUT: like S3 it answers 403
// SignatureDoesNotMatch when the length or the Content-Type differs from
// what was signed (here, carried in the address's query).
func storage(t *testing.T, puts *atomic.Int64) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		puts.Add(1)
		body, _ := io.ReadAll(r.Body)
		size, _ := strconv.ParseInt(r.URL.Query().Get("size"), 10, 64)
		if r.Method != http.MethodPut || r.Header.Get("Content-Type") != r.URL.Query().Get("type") ||
			r.ContentLength != size || int64(len(body)) != size || r.Header.Get("Authorization") != "" {
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, "<Error><Code>SignatureDoesNotMatch</Code></Error>")
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(s.Close)
	return s
}

func TestUploadPutsTheSignedSizeAndType(t *testing.T) {
	var puts, signs atomic.Int64
	store := storage(t, &puts)
	var signed UploadRequest
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		signs.Add(1)
		_ = json.NewDecoder(r.Body).Decode(&signed)
		w.Header().Set("Content-Type", "application/json")
		// The API signs the lower-case, trimmed type.
		_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{
			"uploadUrl": fmt.Sprintf("%s/o?size=%d&type=%s", store.URL, signed.FileSize, SignedContentType(signed.FileType)),
			"publicUrl": store.URL + "/o", "expiresAt": "2026-01-01T00:00:00Z",
		}})
	}))
	t.Cleanup(api.Close)
	c, err := New(WithBaseURL(api.URL), WithAPIKey("hk_live_x"))
	if err != nil {
		t.Fatal(err)
	}
	pngBytes := encoded(t, "png")
	u, err := c.Upload(t.Context(), "a.png", pngBytes)
	if err != nil || u != store.URL+"/o" || puts.Load() != 1 || signed.FileType != "image/png" || signed.FileSize != int64(len(pngBytes)) {
		t.Fatalf("upload: %q %v (%d PUTs, signed %+v)", u, err, puts.Load(), signed)
	}

	// A type declared in capitals is PUT in the signed lower case.
	req := &UploadRequest{FileName: "b.png", FileType: "Image/PNG", FileSize: int64(len(pngBytes))}
	up, err := c.CreatePresignedUpload(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.PutUpload(t.Context(), up, req, pngBytes); err != nil {
		t.Fatalf("PUT with the declared type in capitals: %v", err)
	}
	// Bytes that do not fit the address are refused before the PUT.
	before := puts.Load()
	err = c.PutUpload(t.Context(), up, req, pngBytes[:len(pngBytes)-1])
	if m, ok := errors.AsType[*UploadMismatchError](err); !ok || m.Field != "fileSize" || puts.Load() != before {
		t.Fatalf("a short body: %v (%d PUTs)", err, puts.Load()-before)
	}
	// Too large: nothing is signed.
	before = signs.Load()
	big := append(append([]byte{}, pngBytes...), make([]byte, MaxUploadSize)...)
	if _, err := c.Upload(t.Context(), "big.png", big); err == nil || signs.Load() != before {
		t.Fatalf("over 5 MB: %v (%d signed)", err, signs.Load()-before)
	}
	if _, err := c.Upload(t.Context(), "notes.txt", []byte("hello")); !errors.Is(err, ErrNotAnImage) || signs.Load() != before {
		t.Fatalf("text: %v", err)
	}
}
