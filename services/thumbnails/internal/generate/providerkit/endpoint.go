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

	"hookline.dev/pkg/apierr"
	"hookline.dev/pkg/telemetry"
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
	APIKey  string        // required
	BaseURL string        // the API's origin (tests point it at a fake); empty means the provider's
	Model   string        // empty means the adapter's default model
	Timeout time.Duration // bounds one call; 0 means DefaultTimeout
	// HTTPClient, when set, replaces the default client.
	HTTPClient *http.Client
}

// Defaults are what an adapter fills an empty Config field with.
type Defaults struct {
	Provider string // "openai" or "gemini": prefixes every error
	BaseURL  string
	Model    string
}

// Endpoint is a checked provider configuration.
type Endpoint struct {
	provider string
	key      string
	base     *url.URL
	model    string
	timeout  time.Duration
	client   *http.Client
}

// NewEndpoint checks cfg: a key is required, the base URL must be an
// absolute http(s) URL without query or fragment, the timeout must not be
// negative. The errors never contain the key.
func NewEndpoint(cfg Config, d Defaults) (*Endpoint, error) {
	var problems []error
	key := strings.TrimSpace(cfg.APIKey)
	if key == "" {
		problems = append(problems, errors.New("an API key is required"))
	}
	raw := strings.TrimSpace(cfg.BaseURL)
	if raw == "" {
		raw = d.BaseURL
	}
	// The URL itself stays out of the errors: a mistaken one may carry a
	// key in its query or user info.
	base, err := url.Parse(raw)
	switch {
	case err != nil:
		if urlErr := (*url.Error)(nil); errors.As(err, &urlErr) {
			err = urlErr.Err // without the URL
		}
		problems = append(problems, fmt.Errorf("base URL: %w", err))
	case base.Scheme != "http" && base.Scheme != "https", base.Host == "":
		problems = append(problems, errors.New("base URL: want an absolute http or https URL"))
	case base.RawQuery != "" || base.Fragment != "" || base.User != nil:
		problems = append(problems, errors.New("base URL: want an origin and optional path, without credentials, query or fragment"))
	}
	model := strings.TrimSpace(cfg.Model)
	if model == "" {
		model = d.Model
	}
	if strings.ContainsAny(model, "/?# \t") {
		problems = append(problems, fmt.Errorf("model %q: not a model name", model))
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
	return &Endpoint{provider: d.Provider, key: key, base: base, model: model, timeout: timeout, client: client}, nil
}

// Key is the API key, for the adapter's authentication header only.
func (e *Endpoint) Key() string { return e.key }

// Model is the configured model.
func (e *Endpoint) Model() string { return e.model }

// URL is the base URL joined with path elements.
func (e *Endpoint) URL(elem ...string) string { return e.base.JoinPath(elem...).String() }

// Post sends body to u with header, bounded by the endpoint's timeout and
// ctx, and returns the answer's status and body. Not reaching the
// provider, a timeout and a broken answer wrap engine.ErrUnavailable (and
// the cause, so a caller's cancellation stays visible to errors.Is); the
// status is the caller's to judge.
func (e *Endpoint) Post(ctx context.Context, u, contentType string, body []byte, header http.Header) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return 0, nil, fmt.Errorf("%s: build request: %w", e.provider, err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/json")
	resp, err := e.client.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %w: %w", e.provider, engine.ErrUnavailable, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %w: reading the answer: %w", e.provider, engine.ErrUnavailable, err)
	}
	if len(data) > MaxResponseBytes {
		return 0, nil, fmt.Errorf("%s: answer over %d MiB", e.provider, MaxResponseBytes>>20)
	}
	return resp.StatusCode, data, nil
}

// Failure is the error for an answer with a non-2xx status, or a 2xx one
// without a picture: rejected (the provider's safety system refused the
// content) wraps engine.ErrRejected; 408, 429 and 5xx wrap
// engine.ErrUnavailable; anything else (401, 403, other 4xx) is a plain
// error, a fault in the configuration or in the request the adapter built.
// detail is the provider's own message.
func (e *Endpoint) Failure(status int, detail string, rejected bool) error {
	detail = apierr.Detail(detail, e.key)
	switch {
	case rejected:
		return fmt.Errorf("%s: %w: %s", e.provider, engine.ErrRejected, detail)
	case status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500:
		return fmt.Errorf("%s: %w: HTTP %d: %s", e.provider, engine.ErrUnavailable, status, detail)
	default:
		return fmt.Errorf("%s: HTTP %d: %s", e.provider, status, detail)
	}
}

// Faultf is a plain error prefixed with the provider's name, for answers
// the adapter cannot use.
func (e *Endpoint) Faultf(format string, args ...any) error {
	return fmt.Errorf("%s: %s", e.provider, apierr.Detail(fmt.Sprintf(format, args...), e.key))
}
