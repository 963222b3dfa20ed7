package testkit

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Exchange is a finished HTTP exchange: the answer's status, headers and
// body as they came.
type Exchange struct {
	Status int
	Header http.Header
	Body   []byte
}

// Send sends a request to url and reads the whole answer. body is sent as
// is when it is a string or []byte and marshalled to JSON otherwise; nil
// sends none. A request with a body is application/json unless headers
// name another Content-Type. headers are name, value pairs, added in order
// (a name may repeat). A request that gets no answer fails the test.
func Send(t testing.TB, client *http.Client, method, url string, body any, headers ...string) Exchange {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	if rd != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer func() { _ = res.Body.Close() }()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, url, err)
	}
	return Exchange{Status: res.StatusCode, Header: res.Header, Body: raw}
}

// Response is a service's answer with its envelope decoded.
type Response struct {
	Status  int
	Raw     []byte
	Data    json.RawMessage `json:"data"`
	Page    *Pagination     `json:"pagination"`
	Error   string          `json:"error"`
	Code    string          `json:"code"`
	Details map[string]any  `json:"details"`
}

// Pagination is the pagination object of a list answer.
type Pagination struct {
	Page    int  `json:"page"`
	Limit   int  `json:"limit"`
	Total   int  `json:"total"`
	HasMore bool `json:"hasMore"`
}

// Into decodes data into v.
func (r Response) Into(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Data, v); err != nil {
		t.Fatalf("decode data %s: %v", r.Raw, err)
	}
}

// Field returns details.fields[name] of an error answer.
func (r Response) Field(name string) string {
	fs, _ := r.Details["fields"].(map[string]any)
	s, _ := fs[name].(string)
	return s
}

// Call is Send for the services' JSON API: every request says it is
// application/json, body or not, and the answer's envelope is decoded; an
// answer that is not JSON fails the test.
func Call(t testing.TB, client *http.Client, method, url string, body any, headers ...string) Response {
	t.Helper()
	x := Send(t, client, method, url, body, append([]string{"Content-Type", "application/json"}, headers...)...)
	r := Response{Status: x.Status, Raw: x.Body}
	if len(x.Body) > 0 {
		if err := json.Unmarshal(x.Body, &r); err != nil {
			t.Fatalf("%s %s: %d %q is not JSON: %v", method, url, x.Status, x.Body, err)
		}
		r.Status, r.Raw = x.Status, x.Body
	}
	return r
}
