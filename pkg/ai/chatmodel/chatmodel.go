// Package chatmodel asks a hosted chat model for one JSON answer that
// follows a JSON schema (ARCHITECTURE §7). Two wire formats cover the
// providers worth having:
//
//   - "openai": POST {base}/v1/chat/completions with
//     response_format {type: json_schema, json_schema: {name, strict, schema}}.
//     OpenAI speaks it, and so do the local LLM servers (llama.cpp's
//     server, vLLM, Ollama, LM Studio, LocalAI), which is why a key is
//     optional when the base URL is not OpenAI's;
//   - "gemini": POST {base}/v1beta/models/{model}:generateContent with
//     generationConfig {responseMimeType: application/json, responseSchema}.
//     Gemini's schema dialect is an OpenAPI subset, so the schema is
//     translated (type names upper-cased, additionalProperties dropped).
//
// A model is a fallible collaborator: it may answer text that is not JSON,
// JSON that is not the schema's, or refuse. Complete reports those as
// ErrMalformed so the caller can retry or fall back; it never guesses.
// Base URLs, error answers, rate limits and model lookups are read by
// pkg/ai/vendorapi, as the image and speech adapters read them.
package chatmodel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"hookline.dev/pkg/ai/vendorapi"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/telemetry"
)

// Errors Complete returns, wrapped with the provider and detail.
var (
	// ErrUnavailable: the provider could not be reached, timed out, or
	// refused for load (408, 429, 5xx). Retrying later may work.
	ErrUnavailable = errors.New("chatmodel: provider unavailable")
	// ErrMalformed: the provider answered, but not with a JSON object
	// that decodes into the caller's type (or it refused to answer).
	ErrMalformed = errors.New("chatmodel: malformed answer")
	// ErrModelMissing: the provider does not know the model (retired,
	// misspelt); no retry helps until an operator changes it.
	ErrModelMissing = vendorapi.ErrModelMissing
)

// Providers.
const (
	OpenAI = "openai"
	Gemini = "gemini"
)

// Defaults for a Config that leaves fields empty.
const (
	DefaultTimeout       = 30 * time.Second
	DefaultOpenAIBaseURL = "https://api.openai.com"
	DefaultGeminiBaseURL = "https://generativelanguage.googleapis.com"
	// maxAnswer bounds what is read of one answer: a JSON object of a few
	// kilobytes is what is asked for.
	maxAnswer = 4 << 20
)

// Catalogue is a provider's chat models that answer JSON to a schema
// (OpenAI's response_format json_schema, Gemini's responseSchema), the
// default first. A self-hosted OpenAI-compatible server serves its own
// names, which are taken as configured.
type Catalogue struct {
	Default string
	Models  []string
}

// Catalogues are the chat models of each provider, from the vendors'
// current documentation (pkg/ai/vendorapi/contract/testdata cites it;
// gemini-2.0-flash shut down on 2026-06-01, gemini-2.5-flash goes on
// 2026-12-01). The contract tests check every name.
var Catalogues = map[string]Catalogue{
	OpenAI: {Default: "gpt-4o-mini", Models: []string{"gpt-4o-mini", "gpt-4o", "gpt-4.1-mini", "gpt-4.1", "gpt-4.1-nano", "gpt-5-mini", "gpt-5-nano", "gpt-5", "gpt-5.1", "gpt-5.2"}},
	Gemini: {Default: "gemini-3.5-flash", Models: []string{"gemini-3.5-flash", "gemini-3.5-flash-lite", "gemini-3.1-pro", "gemini-3.1-flash-lite", "gemini-2.5-flash-lite"}},
}

// Config is the operator's choice of provider (HOOKLINE_TEXT_PROVIDER and
// friends).
type Config struct {
	Provider string // OpenAI or Gemini
	APIKey   string // required for Gemini and for OpenAI's own API
	BaseURL  string // origin (and optional path prefix, with or without /v1); empty: the provider's
	Model    string
	Timeout  time.Duration // one call, 0: DefaultTimeout
	// HTTPClient replaces the default client (tests).
	HTTPClient *http.Client
}

// Request is one question.
type Request struct {
	System string
	User   string
	// SchemaName names the schema ([a-zA-Z0-9_-], as OpenAI requires).
	SchemaName string
	// Schema is a JSON Schema object: type object with properties and
	// required, every object closed (additionalProperties false), as
	// OpenAI's strict mode demands.
	Schema map[string]any
	// Temperature, 0 for the provider's default.
	Temperature float64
}

// Client is a checked configuration. It is safe for concurrent use.
type Client struct {
	provider string
	dialect  vendorapi.Dialect
	key      string
	base     *url.URL
	model    string
	timeout  time.Duration
	http     *http.Client
}

// New checks cfg. Errors never contain the key.
func New(cfg Config) (*Client, error) {
	var problems []error
	c := &Client{provider: strings.ToLower(strings.TrimSpace(cfg.Provider)), key: strings.TrimSpace(cfg.APIKey), timeout: cfg.Timeout, http: cfg.HTTPClient}
	raw, model := strings.TrimSpace(cfg.BaseURL), strings.TrimSpace(cfg.Model)
	def := DefaultOpenAIBaseURL
	bad := "?# \t" // vLLM's and LocalAI's names hold slashes: the model travels in the body
	switch c.provider {
	case OpenAI:
		c.dialect = vendorapi.OpenAI
		if raw == "" && c.key == "" {
			problems = append(problems, errors.New("an API key is required for OpenAI's API"))
		}
	case Gemini:
		c.dialect, def, bad = vendorapi.Gemini, DefaultGeminiBaseURL, "/?# \t" // the model is a path segment
		if c.key == "" {
			problems = append(problems, errors.New("an API key is required"))
		}
	default:
		return nil, fmt.Errorf("chatmodel: provider %q: want %s or %s", cfg.Provider, OpenAI, Gemini)
	}
	if model == "" {
		model = Catalogues[c.provider].Default
	}
	base, err := vendorapi.Base(raw, def)
	if err != nil {
		problems = append(problems, err)
	}
	if strings.ContainsAny(model, bad) {
		problems = append(problems, fmt.Errorf("model %q: not a model name", model))
	}
	if c.timeout == 0 {
		c.timeout = DefaultTimeout
	}
	if c.timeout < 0 {
		problems = append(problems, errors.New("timeout: must be positive"))
	}
	if err := errors.Join(problems...); err != nil {
		return nil, fmt.Errorf("chatmodel %s: %w", c.provider, err)
	}
	if c.http == nil {
		c.http = &http.Client{Transport: telemetry.Transport(nil)}
	}
	c.base, c.model = base, model
	return c, nil
}

// Name is "provider:model", as responses report the engine.
func (c *Client) Name() string { return c.provider + ":" + c.model }

// Provider and Model are the configured provider and model.
func (c *Client) Provider() string { return c.provider }

// Model is the configured model.
func (c *Client) Model() string { return c.model }

// CheckModel asks the provider whether the model exists (OpenAI's
// GET /v1/models/{model}, Gemini's GET /v1beta/models/{model}). Errors:
// one wrapping ErrModelMissing when it answers that it does not; any
// other error says nothing about the model.
func (c *Client) CheckModel(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	// The lookup's errors hold the vendor's message, never the key.
	if err := c.dialect.LookupModel(ctx, c.http, c.base, c.model, c.header()); err != nil {
		return fmt.Errorf("chatmodel %s: %w", c.provider, err)
	}
	return nil
}

// header authenticates a call.
func (c *Client) header() http.Header {
	h := http.Header{}
	switch {
	case c.dialect == vendorapi.Gemini:
		h.Set("x-goog-api-key", c.key)
	case c.key != "":
		h.Set("Authorization", "Bearer "+c.key)
	}
	return h
}

// Complete asks req and decodes the model's JSON object into out (a
// pointer). A rate limit is waited out while ctx's deadline allows.
// Errors: ErrUnavailable (also for a spent quota), ErrModelMissing,
// ErrMalformed, ctx's, or a plain error for a configuration fault (401,
// 403, other 4xx).
func (c *Client) Complete(ctx context.Context, req Request, out any) error {
	var (
		u    string
		body any
	)
	if c.provider == Gemini {
		u = c.dialect.URL(c.base, "models", c.model+":generateContent")
		body = geminiRequest(req)
	} else {
		u = c.dialect.URL(c.base, "chat", "completions")
		body = openAIRequest(c.model, req)
	}
	payload, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("chatmodel %s: encode request: %w", c.provider, err)
	}
	data, f, err := vendorapi.Retry(ctx, 3, func() ([]byte, *vendorapi.Failure, error) {
		return c.post(ctx, u, payload, c.header())
	})
	if err != nil {
		return err
	}
	if f != nil {
		return c.failure(f)
	}
	var content string
	if c.provider == Gemini {
		content, err = geminiContent(data)
	} else {
		content, err = openAIContent(data)
	}
	if err != nil {
		return c.wrap(err)
	}
	if err := decodeStrict(content, out); err != nil {
		return fmt.Errorf("chatmodel %s: %w: %s", c.provider, ErrMalformed, apierr.Detail(err.Error(), c.key))
	}
	return nil
}

// post sends one request and returns a 2xx answer's body or the
// vendor's failure, classified.
func (c *Client) post(ctx context.Context, u string, payload []byte, header http.Header) ([]byte, *vendorapi.Failure, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(payload))
	if err != nil {
		return nil, nil, fmt.Errorf("chatmodel %s: build request: %w", c.provider, err)
	}
	req.Header = header
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("chatmodel %s: %w: %w", c.provider, ErrUnavailable, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, nil, fmt.Errorf("chatmodel %s: %w: reading the answer: %w", c.provider, ErrUnavailable, err)
	}
	if len(data) > maxAnswer {
		return nil, nil, fmt.Errorf("chatmodel %s: %w: answer over %d bytes", c.provider, ErrMalformed, maxAnswer)
	}
	if resp.StatusCode/100 != 2 {
		return nil, vendorapi.Classify(c.dialect, resp.StatusCode, resp.Header, data), nil
	}
	return data, nil, nil
}

// failure maps a vendor's error answer onto Complete's errors.
func (c *Client) failure(f *vendorapi.Failure) error {
	detail := apierr.Detail(f.Error(), c.key)
	switch f.Kind {
	case vendorapi.ModelMissing:
		return fmt.Errorf("chatmodel %s: %w: %s: %s", c.provider, ErrModelMissing, c.model, detail)
	case vendorapi.Fault:
		return fmt.Errorf("chatmodel %s: %s", c.provider, detail)
	}
	return fmt.Errorf("chatmodel %s: %w: %s: %s", c.provider, ErrUnavailable, f.Kind, detail)
}

// wrap prefixes an answer's decoding error with the provider.
func (c *Client) wrap(err error) error { return fmt.Errorf("chatmodel %s: %w", c.provider, err) }

// decodeStrict decodes one JSON object into out, refusing fields the
// schema does not have and trailing data. Models sometimes wrap JSON in a
// Markdown fence even when told not to; that much is forgiven.
func decodeStrict(content string, out any) error {
	s := strings.TrimSpace(content)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(strings.TrimPrefix(s, "```json"), "```")
		s = strings.TrimSpace(strings.TrimSuffix(s, "```"))
	}
	if !strings.HasPrefix(s, "{") {
		return errors.New("the answer is not a JSON object")
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("the answer does not fit the schema: %w", err)
	}
	if dec.More() {
		return errors.New("the answer has data after the JSON object")
	}
	return nil
}
