package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// contract is an http.RoundTripper that holds every response of the
// gateway to the OpenAPI document the gateway itself serves: a status the
// operation does not document, a missing required header or a body that
// does not match its schema fails the test. A request the gateway accepted
// (2xx) must also be valid by the document, so the document cannot be
// stricter than the handlers either.
type contract struct {
	t       *testing.T
	host    string // only the gateway's responses are checked
	doc     *openapi3.T
	router  routers.Router
	next    http.RoundTripper
	checked atomic.Int64
}

// The docs page is the one non-JSON body; it is checked as a string.
func init() { openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder) }

// documents holds each served document, loaded and validated once for the
// tests that are served the same bytes (on two cores, about a second each).
var documents sync.Map // the document → *document

type document struct {
	once   sync.Once
	doc    *openapi3.T
	router routers.Router
	err    error
}

func (d *document) load(raw []byte) {
	if d.doc, d.err = openapi3.NewLoader().LoadFromData(raw); d.err != nil {
		d.err = fmt.Errorf("load the served OpenAPI document: %w", d.err)
		return
	}
	if err := d.doc.Validate(context.Background()); err != nil {
		d.err = fmt.Errorf("the served OpenAPI document is invalid: %w", err)
		return
	}
	d.router, d.err = gorillamux.NewRouter(d.doc)
}

// newContract fetches the gateway's document and validates it.
func newContract(t *testing.T, base, host string) *contract {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/v1/openapi.json: %d %s", resp.StatusCode, raw)
	}
	v, _ := documents.LoadOrStore(string(raw), &document{})
	d := v.(*document)
	d.once.Do(func() { d.load(raw) })
	if d.err != nil {
		t.Fatal(d.err)
	}
	c := &contract{t: t, host: host, doc: d.doc, router: d.router, next: http.DefaultTransport}
	t.Cleanup(func() { t.Logf("%d gateway responses validated against the OpenAPI document", c.checked.Load()) })
	return c
}

func (c *contract) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err != nil || req.URL.Host != c.host {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err := c.check(req, resp, body); err != nil {
		c.t.Errorf("OpenAPI contract: %s %s → %d: %v\nbody: %.2000s", req.Method, req.URL.RequestURI(), resp.StatusCode, err, body)
	}
	c.checked.Add(1)
	return resp, nil
}

func (c *contract) check(req *http.Request, resp *http.Response, body []byte) error {
	ctx := context.Background()
	route, params, err := c.router.FindRoute(req)
	if errors.Is(err, routers.ErrPathNotFound) || errors.Is(err, routers.ErrMethodNotAllowed) {
		// No operation to hold it to; the gateway must still answer in the
		// envelope, with the status the introduction promises.
		switch resp.StatusCode {
		case http.StatusUnauthorized, http.StatusNotFound, http.StatusMethodNotAllowed:
		default:
			return errors.New("an undocumented path or method must be 401, 404 or 405")
		}
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			return err
		}
		return c.doc.Components.Schemas["Error"].Value.VisitJSON(v, openapi3.EnableJSONSchema2020())
	}
	if err != nil {
		return err
	}
	opts := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	if err := openapi3filter.ValidateResponse(ctx, &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header,
		Body: io.NopCloser(bytes.NewReader(body)), Options: opts,
	}); err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		return nil
	}
	accepted := req.Clone(ctx)
	if req.GetBody != nil {
		if accepted.Body, err = req.GetBody(); err != nil {
			return err
		}
	}
	in.Request = accepted
	if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
		return errors.New("the gateway accepted a request the document calls invalid: " + err.Error())
	}
	return nil
}
