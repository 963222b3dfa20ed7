package httpx

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"hookline.dev/pkg/platform/apierr"
)

type sample struct {
	Name  string   `json:"name"`
	Count int      `json:"count"`
	Tags  []string `json:"tags"`
	Inner struct {
		On bool `json:"on"`
	} `json:"inner"`
}

func decodeString(body string) error {
	var s sample
	return Decode(httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body)), &s)
}

func TestDecodeNamesTheProblem(t *testing.T) {
	cases := map[string]struct{ body, field, msg string }{
		"wrong type":        {body: `{"count":"3"}`, field: "count"},
		"nested wrong type": {body: `{"inner":{"on":1}}`, field: "inner.on"},
		"array wrong type":  {body: `{"tags":"x"}`, field: "tags"},
		"unknown field":     {body: `{"nmae":"x"}`, field: "nmae"},
		"malformed":         {body: `{"name":`, msg: "malformed JSON"},
		"syntax":            {body: `{"name" "x"}`, msg: "malformed JSON at byte"},
		"trailing data":     {body: `{"name":"x"} {}`, msg: "unexpected data"},
		"empty":             {body: ``, msg: "empty"},
		"not an object":     {body: `[1,2]`, msg: "JSON object"},
		"float for int":     {body: `{"count":1.5}`, field: "count"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			err := decodeString(c.body)
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Code != apierr.InvalidRequest {
				t.Fatalf("error = %v, want invalid_request", err)
			}
			if c.field != "" {
				fields, _ := ae.Details["fields"].(map[string]string)
				if _, ok := fields[c.field]; !ok {
					t.Fatalf("details %v do not name %q", ae.Details, c.field)
				}
			}
			if c.msg != "" && !strings.Contains(ae.Message, c.msg) {
				t.Fatalf("message %q lacks %q", ae.Message, c.msg)
			}
		})
	}
	if err := decodeString(`{"name":"ok","count":2,"tags":["a"],"inner":{"on":true}}`); err != nil {
		t.Fatalf("valid body: %v", err)
	}
}

func TestDecodeCapsTheBody(t *testing.T) {
	err := decodeString(`{"name":"` + strings.Repeat("x", MaxBody) + `"}`)
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Details["maxBytes"] != int64(MaxBody) {
		t.Fatalf("oversized body: %v", err)
	}
}

func TestParsePage(t *testing.T) {
	ok := map[string]Page{
		"":                 {1, 20},
		"page=3&limit=100": {3, 100},
		"limit=1":          {1, 1},
	}
	for q, want := range ok {
		got, err := ParsePage(httptest.NewRequest(http.MethodGet, "/?"+q, nil))
		if err != nil || got != want {
			t.Errorf("%q → %+v %v, want %+v", q, got, err, want)
		}
	}
	for _, q := range []string{"page=0", "page=-1", "page=x", "limit=0", "limit=101", "limit=2.5", "page=1&page=2", "page=99999999999999999999", "limit="} {
		if _, err := ParsePage(httptest.NewRequest(http.MethodGet, "/?"+q, nil)); !apierr.Is(err, apierr.InvalidRequest) {
			t.Errorf("%q accepted", q)
		}
	}
}

func TestListAndErrorEnvelopes(t *testing.T) {
	rec := httptest.NewRecorder()
	_ = List(rec, []int(nil), Page{Page: 2, Limit: 10}, 25)
	if got := strings.TrimSpace(rec.Body.String()); got != `{"data":[],"pagination":{"page":2,"limit":10,"total":25,"hasMore":true}}` {
		t.Fatalf("list: %s", got)
	}
	rec = httptest.NewRecorder()
	a := Adapter{}
	a.Wrap(func(http.ResponseWriter, *http.Request) error { return errors.New("db password is hunter2") })(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code != 500 || strings.Contains(rec.Body.String(), "hunter2") {
		t.Fatalf("internal error leaked: %d %s", rec.Code, rec.Body.String())
	}
	var env map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || env["code"] != "internal" || env["details"] == nil {
		t.Fatalf("envelope %s", rec.Body.String())
	}
}

// A 503 says when to retry (when the error says how long, that long),
// unless its handler already did; no other error does.
func TestUnavailableCarriesRetryAfter(t *testing.T) {
	serve := func(h HandlerFunc) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		Adapter{}.Wrap(h)(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		return rec
	}
	rec := serve(func(http.ResponseWriter, *http.Request) error { return apierr.New(apierr.Unavailable, "down") })
	if rec.Code != 503 || rec.Header().Get(RetryAfterHeader) != "1" {
		t.Fatalf("503: %d, Retry-After %q", rec.Code, rec.Header().Get(RetryAfterHeader))
	}
	rec = serve(func(w http.ResponseWriter, _ *http.Request) error {
		w.Header().Set(RetryAfterHeader, "30")
		return apierr.New(apierr.Unavailable, "down")
	})
	if got := rec.Header().Get(RetryAfterHeader); got != "30" {
		t.Fatalf("the handler's Retry-After became %q", got)
	}
	rec = serve(func(http.ResponseWriter, *http.Request) error {
		return apierr.New(apierr.Unavailable, "busy").With("retryAfter", int64(7))
	})
	if got := rec.Header().Get(RetryAfterHeader); got != "7" {
		t.Fatalf("an error's retryAfter of 7 s became Retry-After %q", got)
	}
	rec = serve(func(http.ResponseWriter, *http.Request) error { return apierr.New(apierr.NotFound, "gone") })
	if got := rec.Header().Get(RetryAfterHeader); got != "" {
		t.Fatalf("a 404 carries Retry-After %q", got)
	}
}

// FuzzDecode: any body either decodes or yields a 400 in the envelope; it
// never panics and never produces an internal error.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"name":"x","count":1}`, `{"count":"1"}`, `{`, `[]`, `null`, `{"inner":{"on":true}}`, `{"a":1}`, "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		err := decodeString(body)
		if err != nil && !apierr.Is(err, apierr.InvalidRequest) {
			t.Fatalf("body %q: %v is not invalid_request", body, err)
		}
	})
}

// FuzzParsePage: any query either parses into bounds or is a 400.
func FuzzParsePage(f *testing.F) {
	for _, s := range []string{"page=1&limit=20", "limit=0", "page=-5", "page=1e3", "limit=%zz", "page=9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.URL.RawQuery = q
		if _, err := url.ParseQuery(q); err != nil {
			return // the server would have parsed what it could; nothing to check
		}
		p, err := ParsePage(r)
		if err != nil {
			if !apierr.Is(err, apierr.InvalidRequest) {
				t.Fatalf("%q: %v", q, err)
			}
			return
		}
		if p.Page < 1 || p.Limit < 1 || p.Limit > MaxLimit || p.Offset() < 0 {
			t.Fatalf("%q → %+v out of bounds", q, p)
		}
	})
}

func TestListPage(t *testing.T) {
	all := []int{1, 2, 3, 4, 5}
	calls := 0
	fetch := func(_ context.Context, offset, limit int) ([]int, int, error) {
		calls++
		return all[offset:min(offset+limit, len(all))], len(all), nil
	}
	double := func(n int) int { return 2 * n }

	rec := httptest.NewRecorder()
	if err := ListPage(rec, httptest.NewRequest(http.MethodGet, "/?page=2&limit=2", nil), fetch, double); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(rec.Body.String()); got != `{"data":[6,8],"pagination":{"page":2,"limit":2,"total":5,"hasMore":true}}` {
		t.Fatalf("page 2: %s", got)
	}
	err := ListPage(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/?limit=0", nil), fetch, double)
	if !apierr.Is(err, apierr.InvalidRequest) || calls != 1 {
		t.Fatalf("limit=0: %v after %d fetches; a bad page must be refused before fetching", err, calls)
	}
}

func TestDecodeRefusesNonJSONContentType(t *testing.T) {
	for ct, want := range map[string]apierr.Code{
		"":                                  "",
		"application/json":                  "",
		"application/json; charset=utf-8":   "",
		"application/merge-patch+json":      "",
		"text/plain":                        apierr.UnsupportedMediaType,
		"application/x-www-form-urlencoded": apierr.UnsupportedMediaType,
		"multipart/form-data; boundary=x":   apierr.UnsupportedMediaType,
		"application/jsonx":                 apierr.UnsupportedMediaType,
		"not a media type":                  apierr.UnsupportedMediaType,
	} {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"name":"x"}`))
		if ct != "" {
			r.Header.Set("Content-Type", ct)
		}
		var s sample
		err := Decode(r, &s)
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v, want accepted", ct, err)
		case want != "" && !apierr.Is(err, want):
			t.Errorf("%q: %v, want %s", ct, err, want)
		case want != "" && apierr.UnsupportedMediaType.Status() != http.StatusUnsupportedMediaType:
			t.Errorf("status %d", apierr.UnsupportedMediaType.Status())
		}
	}
}
