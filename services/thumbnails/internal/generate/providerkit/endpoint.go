// Package providerkit is what the hosted image provider adapters (openai,
// gemini) share, so that both say and do the same things: one prompt
// built from an engine.Request with the input images it refers to, one
// checked endpoint configuration with a bounded HTTP call whose failures
// map onto the engine's errors, and one conversion of whatever picture a
// provider answers into the exact thumbnail size and format the service
// stores.
package providerkit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"hookline.dev/services/thumbnails/internal/generate/engine"

	"hookline.dev/pkg/ai/vendorapi"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/telemetry"
)

// DefaultTimeout bounds one provider call when the configuration does not:
// image models take tens of seconds for one picture.
const DefaultTimeout = 60 * time.Second

// MaxResponseBytes bounds what is read of one answer. A base64 picture of
// a few megapixels is well under it; anything bigger is not an answer the
// adapters can use.
const MaxResponseBytes = 64 << 20

// Config configures a provider adapter, as the operator gives it:
// openai.Config and gemini.Config are this type.
type Config struct {
	APIKey string // required
	// BaseURL is the API's origin, with or without its version (/v1,
	// /v1beta); tests point it at a fake. Empty means the provider's.
	BaseURL string
	Model   string        // empty means the adapter's default model
	Timeout time.Duration // bounds one call; 0 means DefaultTimeout
	// HTTPClient, when set, replaces the default client.
	HTTPClient *http.Client
}

// Defaults are what an adapter fills an empty Config field with.
type Defaults struct {
	Provider  string // "openai" or "gemini": prefixes every error
	BaseURL   string
	Dialect   vendorapi.Dialect
	Catalogue Catalogue // its Default is the default model
	// Header authenticates a call with the key.
	Header func(key string) http.Header
}

// maxAttempts bounds the calls of one request to a rate-limited provider.
const maxAttempts = 4

// Endpoint is a checked provider configuration.
type Endpoint struct {
	provider string
	dialect  vendorapi.Dialect
	header   http.Header
	key      string
	base     *url.URL
	model    Model
	timeout  time.Duration
	client   *http.Client
}

// NewEndpoint checks cfg: a key is required, the base URL must be an
// absolute http(s) URL without query or fragment, the model a name, the
// timeout not negative. The errors never contain the key.
func NewEndpoint(cfg Config, d Defaults) (*Endpoint, error) {
	var problems []error
	key := strings.TrimSpace(cfg.APIKey)
	if key == "" {
		problems = append(problems, errors.New("an API key is required"))
	}
	base, err := vendorapi.Base(cfg.BaseURL, d.BaseURL)
	if err != nil {
		problems = append(problems, err)
	}
	name := strings.TrimSpace(cfg.Model)
	if name == "" {
		name = d.Catalogue.Default
	}
	if strings.ContainsAny(name, "/?# \t") {
		problems = append(problems, fmt.Errorf("model %q: not a model name", name))
	}
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	if timeout < 0 {
		problems = append(problems, fmt.Errorf("timeout %s: must be positive", timeout))
	}
	if err := errors.Join(problems...); err != nil {
		return nil, fmt.Errorf("%s: %w", d.Provider, err)
	}
	client := cfg.HTTPClient
	if client == nil {
		// No client-wide timeout: every call carries its own deadline.
		client = &http.Client{Transport: telemetry.Transport(nil)}
	}
	model, _ := d.Catalogue.Lookup(name)
	return &Endpoint{provider: d.Provider, dialect: d.Dialect, header: d.Header(key), key: key, base: base, model: model, timeout: timeout, client: client}, nil
}

// Model is the configured model and what it takes.
func (e *Endpoint) Model() Model { return e.model }

// URL is the API's URL of path elements, after its version.
func (e *Endpoint) URL(elem ...string) string { return e.dialect.URL(e.base, elem...) }

// Call posts body to u and returns a 2xx answer's body. A rate limit is
// waited out and retried while ctx's deadline allows. Failures:
//   - not reaching the provider, a timeout, a broken answer, 408, 5xx, a
//     rate limit that outlasts the request, a spent quota: wrap
//     engine.ErrUnavailable and an *engine.Outage (with the provider's
//     Retry-After, when it gave one); the cause stays visible to errors.Is;
//   - the provider does not know the model: wraps engine.ErrModelMissing;
//   - refused(f) true: the provider's safety system refused the content,
//     engine.ErrRejected;
//   - anything else (401, 403, other 4xx): a plain error, a fault in the
//     configuration or in the request the adapter built.
func (e *Endpoint) Call(ctx context.Context, u, contentType string, body []byte, refused func(*vendorapi.Failure) bool) ([]byte, error) {
	data, f, err := vendorapi.Retry(ctx, maxAttempts, func() ([]byte, *vendorapi.Failure, error) {
		return e.post(ctx, u, contentType, body)
	})
	if err != nil {
		return nil, err
	}
	if f == nil {
		return data, nil
	}
	detail := apierr.Detail(f.Error(), e.key)
	switch {
	case refused != nil && refused(f):
		return nil, e.Refused(detail)
	case f.Kind == vendorapi.ModelMissing:
		return nil, fmt.Errorf("%s: %w: %s: %s", e.provider, engine.ErrModelMissing, e.model.Name, detail)
	case f.Kind == vendorapi.Fault:
		return nil, fmt.Errorf("%s: %s", e.provider, detail)
	}
	reason := engine.ReasonUnreachable
	switch f.Kind {
	case vendorapi.RateLimited:
		reason = engine.ReasonRateLimited
	case vendorapi.QuotaExhausted:
		reason = engine.ReasonQuotaExhausted
	}
	return nil, e.Unavailable(reason, f.RetryAfter, detail)
}

// Refused is the error of a request whose content the provider refused;
// why is its reason, which the client is shown.
func (e *Endpoint) Refused(why string) error {
	return fmt.Errorf("%s: %w: %w", e.provider, engine.ErrRejected, &engine.Refusal{Reason: apierr.Detail(why, e.key)})
}

// Unavailable is the error of a provider that cannot draw now: reason is
// an engine.Outage reason, after the wait the provider asked for (0: it
// did not say).
func (e *Endpoint) Unavailable(reason string, after time.Duration, detail string) error {
	return fmt.Errorf("%s: %w: %w: %s", e.provider, engine.ErrUnavailable, &engine.Outage{Reason: reason, RetryAfter: after}, apierr.Detail(detail, e.key))
}

// post sends one request, bounded by the endpoint's timeout and ctx, and
// returns a 2xx answer's body or the classified failure.
func (e *Endpoint) post(ctx context.Context, u, contentType string, body []byte) ([]byte, *vendorapi.Failure, error) {
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: build request: %w", e.provider, err)
	}
	for k, v := range e.header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/json")
	resp, err := e.client.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w: %w: %w", e.provider, engine.ErrUnavailable, &engine.Outage{Reason: engine.ReasonUnreachable}, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w: %w: reading the answer: %w", e.provider, engine.ErrUnavailable, &engine.Outage{Reason: engine.ReasonUnreachable}, err)
	}
	if len(data) > MaxResponseBytes {
		return nil, nil, fmt.Errorf("%s: answer over %d MiB", e.provider, MaxResponseBytes>>20)
	}
	if resp.StatusCode/100 != 2 {
		return nil, vendorapi.Classify(e.dialect, resp.StatusCode, resp.Header, data), nil
	}
	return data, nil, nil
}

// CheckModel asks the provider whether the configured model exists.
// Errors: one wrapping vendorapi.ErrModelMissing when it answers that it
// does not; any other error says nothing about the model. Neither shows
// the key: the lookup's errors hold the vendor's message only.
func (e *Endpoint) CheckModel(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	if err := e.dialect.LookupModel(ctx, e.client, e.base, e.model.Name, e.header); err != nil {
		return fmt.Errorf("%s: %w", e.provider, err)
	}
	return nil
}

// Faultf is a plain error prefixed with the provider's name, for answers
// the adapter cannot use.
func (e *Endpoint) Faultf(format string, args ...any) error {
	return fmt.Errorf("%s: %s", e.provider, apierr.Detail(fmt.Sprintf(format, args...), e.key))
}
