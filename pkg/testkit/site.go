package testkit

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// File is one file of a test website.
type File struct {
	ContentType string
	Body        []byte
	// Redirect, when set, answers 302 to this location instead.
	Redirect string
}

// Site is a local website, for what a service fetches from the web
// (imports, reference pictures) and for SSRF checks. It counts every
// request it receives.
type Site struct {
	*httptest.Server
	// Host is host:port, the form HOOKLINE_FETCH_ALLOW_HOSTS takes.
	Host string
	hits atomic.Int64
}

// ServeSite serves files by path until the test ends; other paths are 404.
func ServeSite(t testing.TB, files map[string]File) *Site {
	t.Helper()
	s := &Site{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		f, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if f.Redirect != "" {
			http.Redirect(w, r, f.Redirect, http.StatusFound)
			return
		}
		if f.ContentType != "" {
			w.Header().Set("Content-Type", f.ContentType)
		}
		_, _ = w.Write(f.Body)
	}))
	t.Cleanup(s.Close)
	s.Host = strings.TrimPrefix(s.URL, "http://")
	return s
}

// Hits is the number of requests the site has received.
func (s *Site) Hits() int64 { return s.hits.Load() }
