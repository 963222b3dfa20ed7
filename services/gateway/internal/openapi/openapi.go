// Package openapi holds the API's OpenAPI 3.1 document and serves it. The
// document is written in YAML (openapi.yaml, embedded: the one source of
// truth, where anchors keep the repeated headers and error responses in one
// place) and compiled once into the JSON served at /api/v1/openapi.json and
// the self-contained HTML page served at /docs.
package openapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	yaml "go.yaml.in/yaml/v4"
)

//go:embed openapi.yaml
var source []byte

// anchorsKey is the top-level key of openapi.yaml that only holds YAML
// anchors; it means nothing to OpenAPI and is dropped from the JSON.
const anchorsKey = "x-yaml-anchors"

// cacheControl lets clients and proxies keep the document for a few
// minutes and revalidate it with its ETag afterwards: it changes only with
// a deployment.
const cacheControl = "public, max-age=300"

// Document is the compiled document.
type Document struct {
	// Spec is the parsed document.
	Spec *openapi3.T
	// JSON is the document as served.
	JSON []byte
	// HTML is the rendered documentation page.
	HTML []byte

	jsonETag, htmlETag string
}

// Load compiles the embedded document: YAML to JSON, parsed and rendered.
// It does not validate the document against OpenAPI 3.1; the package's
// tests do, so a broken document never reaches a build.
func Load() (*Document, error) {
	var tree map[string]any
	if err := yaml.Unmarshal(source, &tree); err != nil {
		return nil, fmt.Errorf("openapi: parse openapi.yaml: %w", err)
	}
	delete(tree, anchorsKey)
	js, err := json.Marshal(tree)
	if err != nil {
		return nil, fmt.Errorf("openapi: encode JSON: %w", err)
	}
	spec, err := openapi3.NewLoader().LoadFromData(js)
	if err != nil {
		return nil, fmt.Errorf("openapi: load document: %w", err)
	}
	page, err := render(spec)
	if err != nil {
		return nil, err
	}
	return &Document{Spec: spec, JSON: js, HTML: page, jsonETag: etag(js), htmlETag: etag(page)}, nil
}

// Validate checks the compiled document against OpenAPI 3.1.
func (d *Document) Validate(ctx context.Context) error {
	return d.Spec.Validate(ctx, openapi3.EnableExamplesValidation())
}

// loaded is compiled on first use; the document is the same for the life
// of the process.
var loaded = sync.OnceValues(Load)

// Compiled returns the document compiled once for the process: what
// ServeJSON serves.
func Compiled() (*Document, error) { return loaded() }

// ServeJSON answers GET /api/v1/openapi.json.
func ServeJSON(w http.ResponseWriter, r *http.Request) error {
	d, err := loaded()
	if err != nil {
		return err
	}
	serve(w, r, "application/json", d.jsonETag, d.JSON)
	return nil
}

// ServeDocs answers GET /docs.
func ServeDocs(w http.ResponseWriter, r *http.Request) error {
	d, err := loaded()
	if err != nil {
		return err
	}
	serve(w, r, "text/html; charset=utf-8", d.htmlETag, d.HTML)
	return nil
}

// etag is a strong validator of body.
func etag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// serve writes body with its ETag; http.ServeContent answers If-None-Match
// with 304 and HEAD without a body.
func serve(w http.ResponseWriter, r *http.Request, contentType, tag string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("ETag", tag)
	h.Set("Cache-Control", cacheControl)
	h.Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}
