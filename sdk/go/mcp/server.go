package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// DocumentPath is where the gateway serves the OpenAPI document, relative
// to its origin.
const DocumentPath = "/api/v1/openapi.json"

// maxResponse caps the API response a tool reads.
const maxResponse = 16 << 20

// Config says how the tools reach the API.
type Config struct {
	// BaseURL is the gateway's origin (https://api.example.com); the
	// document's paths, /api/v1/…, are appended to it. A BaseURL that
	// ends in /api/v1 (HOOKLINE_BASE_URL) is taken as its origin.
	BaseURL string
	// Transport carries the API calls; nil is http.DefaultTransport. The
	// gateway passes a transport into its own handler.
	Transport http.RoundTripper
	// APIKey authorises the calls of an MCP request that carries no
	// Authorization header of its own: over stdio, the only key there is.
	// Over Streamable HTTP, each request's "Authorization: Bearer" is
	// passed on, so every caller pays with their own key.
	APIKey string
	// MaxWait bounds how long a tool waits for work it started (10 min by
	// default); past it, the tool returns the work as it stands.
	MaxWait time.Duration
	// PollInterval is the pause between two polls of that work (1 s).
	PollInterval time.Duration
	// Version is the server version reported at initialisation.
	Version string
	Logger  *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.Transport == nil {
		c.Transport = http.DefaultTransport
	}
	if c.MaxWait <= 0 {
		c.MaxWait = 10 * time.Minute
	}
	if c.PollInterval <= 0 {
		c.PollInterval = time.Second
	}
	if c.Version == "" {
		c.Version = "1"
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

type server struct {
	cfg  Config
	base *url.URL
	http *http.Client
}

// NewServer builds the MCP server of the API described by doc (the OpenAPI
// 3.1 document as JSON, as served at DocumentPath): one tool per operation
// of the catalogue, its input and output schemas taken from the document.
// Each tool calls the API through cfg, so credits, limits and errors are
// the API's own; an API error comes back as a tool error carrying the
// envelope's code and message.
func NewServer(doc []byte, cfg Config) (*sdk.Server, error) {
	d, err := parseDocument(doc)
	if err != nil {
		return nil, err
	}
	tools, err := buildTools(d)
	if err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	base, err := url.Parse(origin(cfg.BaseURL))
	if err != nil || base.Scheme == "" || base.Host == "" {
		return nil, fmt.Errorf("mcp: BaseURL %q is not an absolute URL", cfg.BaseURL)
	}
	s := &server{cfg: cfg, base: base, http: &http.Client{Transport: cfg.Transport}}
	srv := sdk.NewServer(&sdk.Implementation{Name: "hookline", Title: "Hookline", Version: cfg.Version}, &sdk.ServerOptions{
		Instructions: "Hookline makes YouTube thumbnails and short clips. Paid tools say their price in credits; " +
			"get_credits shows the balance. Images are passed by URL: an https address or the publicUrl of create_upload_url.",
		Logger: cfg.Logger,
		// Only what the server does: tools, a fixed list (it never
		// sends tools/list_changed: over Streamable HTTP it is
		// stateless and has no stream to send it on), and no logging
		// notifications.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
	})
	for _, t := range tools {
		srv.AddTool(t.def, s.handler(t))
	}
	return srv, nil
}

// ServeStdio serves the tools over standard input and output until ctx
// ends or the client hangs up; cfg.APIKey authorises every call.
func ServeStdio(ctx context.Context, doc []byte, cfg Config) error {
	srv, err := NewServer(doc, cfg)
	if err != nil {
		return err
	}
	return srv.Run(ctx, &sdk.StdioTransport{})
}

// NewHandler serves the tools over Streamable HTTP, statelessly: every
// POST stands alone, so any replica behind a load balancer can answer it,
// and a tool's progress notifications travel on the event stream of the
// POST that called it. The caller authenticates requests before they
// reach the handler; their Authorization header pays for the calls.
func NewHandler(doc []byte, cfg Config, maxBody int64) (http.Handler, error) {
	srv, err := NewServer(doc, cfg)
	if err != nil {
		return nil, err
	}
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{
		Stateless:           true,
		Logger:              cfg.Logger,
		MaxRequestBodyBytes: maxBody,
		// The protection keeps web pages from reaching an
		// unauthenticated local server through DNS rebinding; every call
		// here needs a bearer key that such a page cannot know, and the
		// gateway may well sit behind a proxy on the same host.
		DisableLocalhostProtection: true,
	}), nil
}

// origin strips what the document's paths already start with.
func origin(baseURL string) string {
	return strings.TrimSuffix(strings.TrimSuffix(baseURL, "/"), "/api/v1")
}

// FetchDocument reads the OpenAPI document the gateway at baseURL (its
// origin, or the origin plus /api/v1) serves, without a key, for
// NewServer.
func FetchDocument(ctx context.Context, baseURL string, transport http.RoundTripper) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, origin(baseURL)+DocumentPath, nil)
	if err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	resp, err := (&http.Client{Transport: transport}).Do(req)
	if err != nil {
		return nil, fmt.Errorf("mcp: fetch the OpenAPI document: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return nil, fmt.Errorf("mcp: fetch the OpenAPI document: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("mcp: fetch the OpenAPI document: %s: %.200s", resp.Status, raw)
	}
	return raw, nil
}

// APIError is an error answer of the API: its envelope and status.
type APIError struct {
	Status  int            `json:"status"`
	Code    string         `json:"code"`
	Message string         `json:"error"`
	Details map[string]any `json:"details"`
	// enveloped: the API answered with its error envelope, which the
	// output schemas admit; any other body is only told in the text.
	enveloped bool
}

func (e *APIError) Error() string {
	msg := fmt.Sprintf("%s (code %s, HTTP %d)", e.Message, e.Code, e.Status)
	if fields := object(e.Details["fields"]); len(fields) > 0 {
		raw, _ := json.Marshal(fields)
		msg += "; fields: " + string(raw)
	}
	return msg
}

// errArguments is a call whose arguments do not fit the operation.
var errArguments = errors.New("invalid arguments")

func (s *server) handler(t *tool) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		args := map[string]any{}
		if len(req.Params.Arguments) > 0 && string(req.Params.Arguments) != "null" {
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return failure(fmt.Errorf("%w: arguments must be a JSON object: %w", errArguments, err)), nil
			}
		}
		wait := true
		if t.wait != nil {
			if v, ok := args[waitArgument]; ok {
				b, isBool := v.(bool)
				if !isBool {
					return failure(fmt.Errorf("%w: %s must be true or false", errArguments, waitArgument)), nil
				}
				wait = b
				delete(args, waitArgument)
			}
		}
		got, err := s.call(ctx, req, t.op, args, t.nested)
		if err != nil {
			return failure(err), nil
		}
		if got.apiErr != nil {
			return failure(got.apiErr), nil
		}
		body := got.body
		note := ""
		if t.wait != nil && wait && body != nil {
			waited, ended, err := s.await(ctx, req, t, body)
			if err != nil {
				return failure(fmt.Errorf("started, but waiting for it failed: %w", err)), nil
			}
			body = waited
			if !ended {
				note = fmt.Sprintf("Still running after %s; poll it with the matching get tool.\n", s.cfg.MaxWait)
			}
		}
		if body == nil {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("done (HTTP %d)", got.status)}}}, nil
		}
		raw, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		return &sdk.CallToolResult{
			Content:           []sdk.Content{&sdk.TextContent{Text: note + string(raw)}},
			StructuredContent: body,
		}, nil
	}
}

// failure is a tool error, as the MCP specification has them (isError,
// the message in content): the model sees it and may correct its call.
// An API error also carries its envelope as structured content, which the
// tool's output schema admits, and as JSON text for clients that read
// only content.
func failure(err error) *sdk.CallToolResult {
	res := &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: err.Error()}}}
	if apiErr, ok := errors.AsType[*APIError](err); ok && apiErr.enveloped {
		res.StructuredContent = apiErr
		if raw, err := json.Marshal(apiErr); err == nil {
			res.Content = append(res.Content, &sdk.TextContent{Text: string(raw)})
		}
	}
	return res
}

// answer is the API's answer to one call.
type answer struct {
	status int
	body   map[string]any // nil when empty
	apiErr *APIError      // set for a status of 400 and above
}

// call sends op with args: path and query parameters by name, the rest as
// the JSON body (or args["body"] when nested).
func (s *server) call(ctx context.Context, req *sdk.CallToolRequest, op *operation, args map[string]any, nested bool) (*answer, error) {
	args = maps.Clone(args)
	path := op.Path
	query := url.Values{}
	header := http.Header{}
	for _, p := range op.Params {
		v, ok := args[p.Name]
		delete(args, p.Name)
		if !ok || v == nil {
			if p.Required {
				return nil, fmt.Errorf("%w: %s is required", errArguments, p.Name)
			}
			continue
		}
		switch p.In {
		case "path":
			str, err := scalar(v)
			if err != nil || str == "" {
				return nil, fmt.Errorf("%w: %s must be a non-empty string", errArguments, p.Name)
			}
			path = strings.ReplaceAll(path, "{"+p.Name+"}", url.PathEscape(str))
		case "query":
			values := []any{v}
			if l, isList := v.([]any); isList {
				values = l
			}
			for _, e := range values {
				str, err := scalar(e)
				if err != nil {
					return nil, fmt.Errorf("%w: %s: %w", errArguments, p.Name, err)
				}
				query.Add(p.Name, str)
			}
		case "header":
			str, err := scalar(v)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %w", errArguments, p.Name, err)
			}
			header.Set(p.Name, str)
		}
	}
	var body io.Reader
	switch {
	case op.Body == nil && len(args) > 0:
		return nil, fmt.Errorf("%w: unknown argument(s) %s", errArguments, strings.Join(sortedKeys(args), ", "))
	case op.Body != nil && nested:
		if extra := without(args, bodyProperty); len(extra) > 0 {
			return nil, fmt.Errorf("%w: unknown argument(s) %s", errArguments, strings.Join(extra, ", "))
		}
		if b, ok := args[bodyProperty]; ok {
			raw, err := json.Marshal(b)
			if err != nil {
				return nil, err
			}
			body = bytes.NewReader(raw)
		}
	case op.Body != nil:
		raw, err := json.Marshal(args)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(raw)
	}

	u := *s.base
	u.Path = s.base.Path + path
	u.RawQuery = query.Encode()
	hreq, err := http.NewRequestWithContext(ctx, op.Method, u.String(), body)
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		hreq.Header[k] = v
	}
	if body != nil {
		hreq.Header.Set("Content-Type", "application/json")
	}
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set("User-Agent", "hookline-mcp/"+s.cfg.Version)
	if auth := forwardedAuthorization(req); auth != "" {
		hreq.Header.Set("Authorization", auth)
	} else if s.cfg.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+s.cfg.APIKey)
	}
	resp, err := s.http.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("the Hookline API could not be reached: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, fmt.Errorf("reading the API's answer: %w", err)
	}
	if len(raw) > maxResponse {
		return nil, fmt.Errorf("the API's answer exceeds %d bytes", maxResponse)
	}
	a := &answer{status: resp.StatusCode}
	if resp.StatusCode >= 400 {
		a.apiErr = &APIError{Status: resp.StatusCode}
		if json.Unmarshal(raw, a.apiErr) != nil || a.apiErr.Code == "" || a.apiErr.Details == nil {
			a.apiErr.Code, a.apiErr.Message = "http_"+fmt.Sprint(resp.StatusCode), strings.TrimSpace(string(raw))
		} else {
			a.apiErr.enveloped = true
		}
		a.apiErr.Status = resp.StatusCode
		return a, nil
	}
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &a.body); err != nil {
			return nil, fmt.Errorf("the API answered %d with a body that is not a JSON object: %w", resp.StatusCode, err)
		}
	}
	return a, nil
}

// forwardedAuthorization is the Authorization header of the HTTP request
// that carried the MCP call, if any.
func forwardedAuthorization(req *sdk.CallToolRequest) string {
	if req == nil || req.Extra == nil || req.Extra.Header == nil {
		return ""
	}
	return req.Extra.Header.Get("Authorization")
}

// scalar renders a parameter value.
func scalar(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case bool:
		return strconv.FormatBool(x), nil
	}
	return "", fmt.Errorf("want a string, number or boolean, got %T", v)
}

func sortedKeys(m map[string]any) []string {
	return without(m, "")
}

// without returns the sorted keys of m other than skip.
func without(m map[string]any, skip string) []string {
	var keys []string
	for k := range m {
		if k != skip {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
