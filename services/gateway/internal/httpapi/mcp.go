package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	hlmcp "hookline.dev/sdk/go/mcp"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/gateway/internal/openapi"
)

// MCPPath serves the MCP server (Streamable HTTP) of the public API.
const MCPPath = "/mcp"

// newMCP builds the MCP endpoint: the tools of sdk/go/mcp generated from
// the gateway's own OpenAPI document, calling the public API in process
// (through the whole /api/v1 chain: authentication, rate limit,
// idempotency, proxy) with the caller's key, so a tool call is billed,
// limited and refused exactly as the same call over HTTP.
func (s *server) newMCP() http.Handler {
	doc, err := openapi.Compiled()
	var h http.Handler
	if err == nil {
		h, err = hlmcp.NewHandler(doc.JSON, hlmcp.Config{
			BaseURL:   "http://gateway.internal", // never dialled: the transport is the handler itself
			Transport: inProcess{s},
			// A waiting tool answers on the POST's stream, which must end
			// before the server's write timeout.
			MaxWait: s.cfg.Deadlines.Slow,
			Logger:  s.cfg.Log,
		}, s.cfg.MaxBodyBytes)
	}
	if err != nil {
		// The document is embedded and its tools are tested, so this is a
		// broken build; the rest of the API still works.
		s.cfg.Log.Error("MCP server unavailable", "err", err)
		return s.adapt.Wrap(func(http.ResponseWriter, *http.Request) error {
			return apierr.New(apierr.Internal, "the MCP server is unavailable")
		})
	}
	return s.adapt.Wrap(func(w http.ResponseWriter, r *http.Request) error {
		// The SDK would refuse these in plain text; the API's clients
		// read the envelope.
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			return apierr.New(apierr.UnsupportedMediaType, "Content-Type must be application/json").
				With("contentType", r.Header.Get("Content-Type"))
		}
		if accept := strings.Join(r.Header.Values("Accept"), ","); !acceptsBoth(accept) {
			return apierr.Field("Accept", "must accept application/json and text/event-stream")
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), mcpPeerKey{}, r)))
		return nil
	})
}

// acceptsBoth reports whether an Accept header takes both answers of the
// Streamable HTTP transport.
func acceptsBoth(accept string) bool {
	var json, stream bool
	for _, part := range strings.Split(accept, ",") {
		base, _, _ := strings.Cut(part, ";")
		switch strings.ToLower(strings.TrimSpace(base)) {
		case "application/json", "application/*":
			json = true
		case "text/event-stream", "text/*":
			stream = true
		case "*/*":
			json, stream = true, true
		}
	}
	return json && stream
}

// mcpPeerKey holds the /mcp request in its context, which the SDK's
// stateless handler passes to the tools, so the in-process calls keep the
// caller's address for the per-address limits.
type mcpPeerKey struct{}

// inProcess is a RoundTripper into the gateway's own handler.
type inProcess struct{ s *server }

func (t inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	// The context descends from the /mcp request's; chi would take its
	// route context for a sub-router's and route on the wrong path.
	in := req.Clone(context.WithValue(req.Context(), chi.RouteCtxKey, nil))
	in.RequestURI = req.URL.RequestURI()
	in.RemoteAddr = "127.0.0.1:0"
	if peer, ok := req.Context().Value(mcpPeerKey{}).(*http.Request); ok {
		in.RemoteAddr = peer.RemoteAddr
		in.Header["X-Forwarded-For"] = peer.Header["X-Forwarded-For"]
	}
	if in.Body == nil {
		in.Body = http.NoBody
	}
	rec := &recorder{header: http.Header{}}
	t.s.root.ServeHTTP(rec, in)
	if rec.status == 0 {
		return nil, errors.New("gateway: in-process call wrote no response")
	}
	return &http.Response{
		Status: fmt.Sprintf("%d %s", rec.status, http.StatusText(rec.status)), StatusCode: rec.status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: rec.header, Body: io.NopCloser(bytes.NewReader(rec.body.Bytes())),
		ContentLength: int64(rec.body.Len()), Request: req,
	}, nil
}

// recorder keeps a response written in process. Flush is accepted (the
// proxy flushes) and does nothing: the caller reads the whole body anyway.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 && code >= 200 {
		r.status = code
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(p)
}

func (r *recorder) Flush() {}

// SetReadDeadline has nothing to bound: the body is in memory.
func (r *recorder) SetReadDeadline(time.Time) error { return nil }
