package main

import (
	"bytes"
	stdimage "image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hookline upload: the file's own size and type are signed and PUT; a
// --type the bytes contradict stops before any request, naming it.
func TestUploadChecksTheFileBeforeThePUT(t *testing.T) {
	var b bytes.Buffer
	if err := png.Encode(&b, stdimage.NewGray(stdimage.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "me.png")
	if err := os.WriteFile(file, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	var put struct{ contentType, body string }
	store := http.NewServeMux()
	store.HandleFunc("PUT /o", func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		put.contentType, put.body = r.Header.Get("Content-Type"), string(raw)
	})
	storeSrv := httptest.NewServer(store)
	t.Cleanup(storeSrv.Close)
	a := newAPI(t)
	var signed map[string]any
	a.route["POST /api/v1/uploads/presigned-url"] = func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		signed = body
		a.json(200, map[string]any{"data": map[string]any{"uploadUrl": storeSrv.URL + "/o", "publicUrl": "https://cdn.example.com/me.png", "expiresAt": "2026-01-01T00:00:00Z"}})(w, r, body)
	}

	out, errOut, code := runCLI(t, a.env, "upload", "--type", "image/jpeg", file)
	if code != 1 || out != "" || !strings.Contains(errOut, "fileType is image/jpeg but the file is image/png") || len(a.calls) != 0 {
		t.Fatalf("--type contradicted: exit %d, %q, calls %v", code, errOut, a.calls)
	}
	out, errOut, code = runCLI(t, a.env, "upload", file)
	if code != 0 || strings.TrimSpace(out) != "https://cdn.example.com/me.png" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if signed["fileType"] != "image/png" || signed["fileSize"] != float64(b.Len()) || put.contentType != "image/png" || put.body != b.String() {
		t.Fatalf("signed %v, PUT %q of %d bytes", signed, put.contentType, len(put.body))
	}
}
