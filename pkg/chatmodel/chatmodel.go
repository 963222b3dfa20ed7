// Package chatmodel asks a hosted chat model for one JSON answer that
// follows a JSON schema (ARCHITECTURE §7). Two wire formats cover the
// providers worth having:
//
//   - "openai": POST {base}/v1/chat/completions with
//     response_format {type: json_schema, json_schema: {name, strict, schema}}.
//     OpenAI speaks it, and so do the local LLM servers (llama.cpp's
//     server, vLLM, Ollama, LM Studio), which is why a key is optional
//     when the base URL is not OpenAI's;
//   - "gemini": POST {base}/v1beta/models/{model}:generateContent with
//     generationConfig {responseMimeType: application/json, responseSchema}.
//     Gemini's schema dialect is an OpenAPI subset, so the schema is
//     translated (type names upper-cased, additionalProperties dropped).
//
// A model is a fallible collaborator: it may answer text that is not JSON,
// JSON that is not the schema's, or refuse. Complete reports those as
// ErrMalformed so the caller can retry or fall back; it never guesses.
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

	"hookline.dev/pkg/apierr"
	"hookline.dev/pkg/telemetry"
)

// Errors Complete returns, wrapped with the provider and detail.
var (
	// ErrUnavailable: the provider could not be reached, timed out, or
	// refused for load (408, 429, 5xx). Retrying later may work.
	ErrUnavailable = errors.New("chatmodel: provider unavailable")
	// ErrMalformed: the provider answered, but not with a JSON object
	// that decodes into the caller's type (or it refused to answer).
	ErrMalformed = errors.New("chatmodel: malformed answer")
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
	DefaultOpenAIModel   = "gpt-4o-mini"
	DefaultGeminiBaseURL = "https://generativelanguage.googleapis.com"
	DefaultGeminiModel   = "gemini-3.5-flash" // gemini-2.0-flash shut down 2026-06-01 (contract testdata)
	// maxAnswer bounds what is read of one answer: a JSON object of a few
	// kilobytes is what is asked for.
	maxAnswer = 4 << 20
)

// Config is the operator's choice of provider (HOOKLINE_TEXT_PROVIDER and
// friends).
type Config struct {
	Provider string // OpenAI or Gemini
	APIKey   string // required for Gemini and for OpenAI's own API
	BaseURL  string // origin (and optional path prefix); empty: the provider's
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
	switch c.provider {
	case OpenAI:
		if raw == "" {
			raw = DefaultOpenAIBaseURL
			if c.key == "" {
				problems = append(problems, errors.New("an API key is required for OpenAI's API"))
			}
		}
		if model == "" {
			model = DefaultOpenAIModel
		}
	case Gemini:
		if raw == "" {
			raw = DefaultGeminiBaseURL
		}
		if model == "" {
			model = DefaultGeminiModel
		}
		if c.key == "" {
			problems = append(problems, errors.New("an API key is required"))
		}
	default:
		return nil, fmt.Errorf("chatmodel: provider %q: want %s or %s", cfg.Provider, OpenAI, Gemini)
	}
	base, err := url.Parse(raw)
	switch {
	case err != nil:
		problems = append(problems, errors.New("base URL: not a URL"))
	case base.Scheme != "http" && base.Scheme != "https", base.Host == "":
		problems = append(problems, errors.New("base URL: want an absolute http or https URL"))
	case base.RawQuery != "" || base.Fragment != "" || base.User != nil:
		problems = append(problems, errors.New("base URL: want an origin and optional path, without credentials, query or fragment"))
	}
	if strings.ContainsAny(model, "/?# \t") {
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

// Complete asks req and decodes the model's JSON object into out (a
// pointer). Errors: ErrUnavailable, ErrMalformed, ctx's, or a plain error
// for a configuration fault (401, 403, other 4xx).
func (c *Client) Complete(ctx context.Context, req Request, out any) error {
	var (
		u      string
		body   any
		header = http.Header{}
	)
	if c.provider == Gemini {
		u = c.base.JoinPath("v1beta", "models", c.model+":generateContent").String()
		header.Set("x-goog-api-key", c.key)
		body = geminiRequest(req)
	} else {
		u = c.base.JoinPath("v1", "chat", "completions").String()
		if c.key != "" {
			header.Set("Authorization", "Bearer "+c.key)
		}
		body = openAIRequest(c.model, req)
	}
	payload, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("chatmodel %s: encode request: %w", c.provider, err)
	}
	status, data, err := c.post(ctx, u, payload, header)
	if err != nil {
		return err
	}
	var content string
	if c.provider == Gemini {
		content, err = geminiContent(status, data)
	} else {
		content, err = openAIContent(status, data)
	}
	if err != nil {
		return c.wrap(err)
	}
	if err := decodeStrict(content, out); err != nil {
		return fmt.Errorf("chatmodel %s: %w: %s", c.provider, ErrMalformed, apierr.Detail(err.Error(), c.key))
	}
	return nil
}

func (c *Client) post(ctx context.Context, u string, payload []byte, header http.Header) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(payload))
	if err != nil {
		return 0, nil, fmt.Errorf("chatmodel %s: build request: %w", c.provider, err)
	}
	req.Header = header
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("chatmodel %s: %w: %w", c.provider, ErrUnavailable, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return 0, nil, fmt.Errorf("chatmodel %s: %w: reading the answer: %w", c.provider, ErrUnavailable, err)
	}
	if len(data) > maxAnswer {
		return 0, nil, fmt.Errorf("chatmodel %s: %w: answer over %d bytes", c.provider, ErrMalformed, maxAnswer)
	}
	return resp.StatusCode, data, nil
}

// statusError is a non-2xx answer, classified by wrap.
type statusError struct {
	status int
	detail string
}

func (e *statusError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.status, e.detail) }

func (c *Client) wrap(err error) error {
	var se *statusError
	if errors.As(err, &se) {
		detail := apierr.Detail(se.detail, c.key)
		if se.status == http.StatusRequestTimeout || se.status == http.StatusTooManyRequests || se.status >= 500 {
			return fmt.Errorf("chatmodel %s: %w: HTTP %d: %s", c.provider, ErrUnavailable, se.status, detail)
		}
		return fmt.Errorf("chatmodel %s: HTTP %d: %s", c.provider, se.status, detail)
	}
	return fmt.Errorf("chatmodel %s: %w", c.provider, err)
}

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
