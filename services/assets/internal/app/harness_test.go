package app_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/testkit/apptest"
	"hookline.dev/services/assets/internal/app"
)

// harness runs a real assets service against a fresh schema, NATS
// namespace and bucket, and talks to it the way the gateway does.
type harness struct {
	*apptest.Service
}

// newHarness starts the service; overrides are name, value pairs of
// environment variables.
func newHarness(t testing.TB, overrides ...string) *harness {
	t.Helper()
	return &harness{apptest.Start(t, apptest.Config{Name: "assets", Run: app.Run, Bucket: true, Env: overrides})}
}

func newOrg() string { return uuid.NewString() }

type presigned struct {
	UploadURL string `json:"uploadUrl"`
	PublicURL string `json:"publicUrl"`
	ExpiresAt string `json:"expiresAt"`
}

// presign asks for an upload URL.
func (h *harness) presign(org, name, fileType string, size int) presigned {
	h.T.Helper()
	var p presigned
	h.Must(200, "POST", "/uploads/presigned-url", org, map[string]any{"fileName": name, "fileType": fileType, "fileSize": size}).Into(h.T, &p)
	return p
}

// put sends data to a presigned URL the way a browser would: no service
// credentials, just the Content-Type.
func (h *harness) put(uploadURL, contentType string, data []byte) (int, string) {
	h.T.Helper()
	req, err := http.NewRequest(http.MethodPut, uploadURL, bytes.NewReader(data))
	if err != nil {
		h.T.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	res, err := h.Client.Do(req)
	if err != nil {
		h.T.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// upload presigns and uploads data, returning its public URL.
func (h *harness) upload(org, name, contentType string, data []byte) string {
	h.T.Helper()
	p := h.presign(org, name, contentType, min(max(len(data), 1), 5<<20))
	if st, body := h.put(p.UploadURL, contentType, data); st != 200 {
		h.T.Fatalf("upload %s: %d %s", name, st, body)
	}
	return p.PublicURL
}

// thumbnailsEvent publishes an event of the thumbnails service and waits
// until the projection consumer has handled it.
func (h *harness) thumbnailsEvent(typ, org string, data any) events.Envelope {
	h.T.Helper()
	return h.Deliver(typ, "thumbnails", "assets-thumbnails", org, data)
}

// typesFor lists the types of envs for one entity id (found in the
// payload).
func typesFor(envs []events.Envelope, id string) []string {
	var out []string
	for _, e := range envs {
		if strings.Contains(string(e.Data), id) {
			out = append(out, e.Type)
		}
	}
	return out
}
