package testkit

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

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

// Call sends a JSON request to url, body marshalled unless it is a string
// (sent as is), with headers as name, value pairs, and decodes the answer's
// envelope; an answer that is not JSON fails the test.
func Call(t testing.TB, client *http.Client, method, url string, body any, headers ...string) Response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
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
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer func() { _ = res.Body.Close() }()
	raw, _ := io.ReadAll(res.Body)
	r := Response{Status: res.StatusCode, Raw: raw}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatalf("%s %s: %d %q is not JSON: %v", method, url, res.StatusCode, raw, err)
		}
		r.Status, r.Raw = res.StatusCode, raw
	}
	return r
}
