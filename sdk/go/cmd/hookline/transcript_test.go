package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// clips transcript edit sends the operations it was given, in order, with
// the version as If-Match (a bare number quoted as the ETag it names),
// and shows the new version's words; get shows them with the ETag.
func TestTranscriptEditSendsOperationsAndIfMatch(t *testing.T) {
	a := newAPI(t)
	page := map[string]any{"data": map[string]any{"projectId": "p1", "version": 2, "vocabulary": []any{"Brixley"},
		"words": []any{map[string]any{"id": 0, "text": "Brixley", "start": 0.1, "end": 0.6, "confidence": 0.9, "deleted": false},
			map[string]any{"id": 1, "text": "rocks", "start": 0.6, "end": 1.0, "confidence": 0.8, "deleted": true}},
		"segments": []any{}, "pagination": map[string]any{"page": 1, "limit": 20, "total": 2, "hasMore": false}}}
	var sent map[string]any
	var ifMatch string
	a.route["PATCH /api/v1/clips/projects/p1/transcript"] = func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		sent, ifMatch = body, r.Header.Get("If-Match")
		w.Header().Set("ETag", `"2"`)
		a.json(200, page)(w, r, body)
	}
	a.route["GET /api/v1/clips/projects/p1/transcript"] = func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		if r.URL.Query().Get("limit") != "50" {
			t.Errorf("query %s", r.URL.RawQuery)
		}
		w.Header().Set("ETag", `"2"`)
		a.json(200, page)(w, r, body)
	}
	out, errOut, code := runCLI(t, a.env, "clips", "transcript", "edit", "p1", "--if-match", "1", "--replace", "0=Brixley",
		"--delete", "1-1", "--restore", "5", "--term", "Brixley", "--rerank")
	if code != 0 {
		t.Fatalf("exit %d %q", code, errOut)
	}
	raw, _ := json.Marshal(sent)
	want := `{"operations":[{"op":"replace","text":"Brixley","wordId":0},{"from":1,"op":"delete","to":1},{"from":5,"op":"restore","to":5},` +
		`{"op":"vocabulary","terms":["Brixley"]}],"rerank":true}`
	if string(raw) != want || ifMatch != `"1"` {
		t.Errorf("sent %s with If-Match %s, want %s", raw, ifMatch, want)
	}
	if !strings.Contains(out, `version 2 (ETag "2")`) || !strings.Contains(out, "rocks  (deleted)") {
		t.Errorf("stdout %q", out)
	}
	if out, errOut, code = runCLI(t, a.env, "clips", "transcript", "get", "p1", "--limit", "50"); code != 0 || !strings.Contains(out, "vocabulary: Brixley") {
		t.Errorf("get: %d %q %q", code, out, errOut)
	}
	if _, _, code = runCLI(t, a.env, "clips", "transcript", "edit", "p1", "--replace", "0=x"); code == 0 {
		t.Error("edit without --if-match succeeded")
	}
}

// clips create --prompt sends the prompt and shows each clip's match,
// sub-scores and reasons; transcript edit --rerank --prompt re-ranks
// without an edit.
func TestPromptOnCreateAndRerank(t *testing.T) {
	a := newAPI(t)
	var created, edited map[string]any
	a.route["POST /api/v1/clips/projects"] = func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		created = body
		a.json(201, map[string]any{"data": map[string]any{"id": "p1", "downloadStatus": "ready", "format": "portrait", "videoTitle": "Cars",
			"analysis": map[string]any{"prompt": "automobiles", "scoreWeights": map[string]any{"hook": 0.3, "flow": 0.25, "value": 0.2, "trend": 0.25}},
			"clips": []any{map[string]any{"id": "c1", "startTime": 24, "endTime": 48, "viralScore": 55, "title": "The car",
				"scores":  map[string]any{"hook": 0, "flow": 100, "value": 100, "trend": 40},
				"reasons": []any{"opens without a hook: 'Next we drove the car to the garage.'"},
				"match":   map[string]any{"matched": true, "terms": []any{"car"}, "quote": "Next we drove the car to the garage."}}}}})(w, r, body)
	}
	a.route["PATCH /api/v1/clips/projects/p1/transcript"] = func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		edited = body
		w.Header().Set("ETag", `"2"`)
		a.json(200, map[string]any{"data": map[string]any{"projectId": "p1", "version": 2, "vocabulary": []any{}, "words": []any{}, "segments": []any{},
			"pagination": map[string]any{"page": 1, "limit": 20, "total": 0, "hasMore": false}}})(w, r, body)
	}
	out, errOut, code := runCLI(t, a.env, "clips", "create", "https://youtu.be/abcdefghijk", "--prompt", "automobiles")
	if code != 0 {
		t.Fatalf("exit %d %q", code, errOut)
	}
	if created["prompt"] != "automobiles" {
		t.Errorf("sent %v", created)
	}
	for _, line := range []string{"prompt: automobiles", "hook 0  flow 100  value 100  trend 40", `matches: car  "Next we drove the car to the garage."`, "- opens without a hook"} {
		if !strings.Contains(out, line) {
			t.Errorf("stdout lacks %q:\n%s", line, out)
		}
	}
	if _, errOut, code = runCLI(t, a.env, "clips", "transcript", "edit", "p1", "--if-match", "*", "--rerank", "--prompt", "cooking"); code != 0 {
		t.Fatalf("exit %d %q", code, errOut)
	}
	if raw, _ := json.Marshal(edited); string(raw) != `{"operations":[],"prompt":"cooking","rerank":true}` {
		t.Errorf("sent %s", raw)
	}
	if _, _, code = runCLI(t, a.env, "clips", "transcript", "edit", "p1", "--if-match", "*", "--prompt", "cooking"); code == 0 {
		t.Error("--prompt without --rerank succeeded")
	}
}
