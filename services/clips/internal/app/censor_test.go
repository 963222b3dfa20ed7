package app_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
)

type censorWords struct {
	Words   []string `json:"words"`
	BuiltIn struct {
		Source string `json:"source"`
		Count  int    `json:"count"`
	} `json:"builtIn"`
}

// An organization's own profanity-filter words: stored, replaced whole,
// invisible to another organization; bad lists are 400 naming words and
// store nothing.
func TestCensorWordsPerOrganization(t *testing.T) {
	h := newHarness(t)
	a, b := uuid.NewString(), uuid.NewString()
	var got censorWords
	h.Must(http.StatusOK, http.MethodGet, "/clips/censor-words", a, nil).Into(t, &got)
	if len(got.Words) != 0 || got.BuiltIn.Count < 400 || !strings.Contains(got.BuiltIn.Source, "CC-BY-4.0") {
		t.Fatalf("a new organization's list: %+v", got)
	}
	h.Must(http.StatusOK, http.MethodPut, "/clips/censor-words", a, map[string]any{"words": []string{" Zorbly ", "gloop  snarf", "zorbly"}}).Into(t, &got)
	if !slices.Equal(got.Words, []string{"zorbly", "gloop snarf"}) {
		t.Errorf("PUT answered %v", got.Words)
	}
	h.Must(http.StatusOK, http.MethodGet, "/clips/censor-words", a, nil).Into(t, &got)
	if !slices.Equal(got.Words, []string{"zorbly", "gloop snarf"}) {
		t.Errorf("GET after PUT: %v", got.Words)
	}
	h.Must(http.StatusOK, http.MethodGet, "/clips/censor-words", b, nil).Into(t, &got)
	if len(got.Words) != 0 {
		t.Errorf("another organization sees %v", got.Words)
	}
	for _, body := range []string{`{}`, `{"words": null}`, `{"words": [""]}`, `{"words": ["a b c d e f"]}`, `{"words": ["` + strings.Repeat("x", 61) + `"]}`,
		`{"words": "zorbly"}`, `{"words": ["ok"], "extra": 1}`} {
		r := h.Do(http.MethodPut, "/clips/censor-words", a, body)
		if r.Status != http.StatusBadRequest || (r.Field("words") == "" && !strings.Contains(body, "extra") && !strings.Contains(body, `"zorbly"}`)) {
			t.Errorf("PUT %.60s: %d %s", body, r.Status, r.Raw)
		}
	}
	h.Must(http.StatusOK, http.MethodGet, "/clips/censor-words", a, nil).Into(t, &got)
	if !slices.Equal(got.Words, []string{"zorbly", "gloop snarf"}) {
		t.Errorf("refused PUTs changed the list: %v", got.Words)
	}
	h.Must(http.StatusOK, http.MethodPut, "/clips/censor-words", a, map[string]any{"words": []string{}}).Into(t, &got)
	if len(got.Words) != 0 {
		t.Errorf("an empty list leaves %v", got.Words)
	}
}
