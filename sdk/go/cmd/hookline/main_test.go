package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// api is a small fake of the gateway: it records the requests and answers
// from a table keyed by "METHOD path".
type api struct {
	*httptest.Server
	mu    sync.Mutex
	calls []string
	polls map[string]int
	route map[string]func(w http.ResponseWriter, r *http.Request, body map[string]any)
}

func newAPI(t *testing.T) *api {
	a := &api{polls: map[string]int{}, route: map[string]func(http.ResponseWriter, *http.Request, map[string]any){}}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		key := r.Method + " " + r.URL.Path
		a.mu.Lock()
		a.calls = append(a.calls, key+" "+r.Header.Get("Authorization"))
		h, ok := a.route[key]
		a.mu.Unlock()
		if !ok {
			w.WriteHeader(404)
			_, _ = io.WriteString(w, `{"error":"no such path","code":"not_found","details":{}}`)
			return
		}
		h(w, r, body)
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *api) json(status int, v any) func(http.ResponseWriter, *http.Request, map[string]any) {
	return func(w http.ResponseWriter, _ *http.Request, _ map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
}

func (a *api) env(name string) string {
	switch name {
	case "HOOKLINE_API_KEY":
		return "hk_live_cli"
	case "HOOKLINE_BASE_URL":
		return a.URL + "/api/v1"
	}
	return ""
}

func runCLI(t *testing.T, getenv func(string) string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	err := run(context.Background(), args, getenv, &o, &e)
	code = report(&e, err)
	return o.String(), e.String(), code
}

var credits12 = map[string]any{"data": map[string]any{"tier": "pro", "credits": map[string]any{"total": 12, "purchased": 2, "subscription": 10}, "canGenerate": true, "billingCycle": "monthly"}}

func TestCreditsFromTheDevEnvFile(t *testing.T) {
	a := newAPI(t)
	a.route["GET /api/v1/account/credits"] = a.json(200, credits12)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".hookline"), 0o750); err != nil {
		t.Fatal(err)
	}
	env := fmt.Sprintf("HOOKLINE_BASE_URL=%s/api/v1\nHOOKLINE_ADMIN_TOKEN=x\nHOOKLINE_API_KEY=hk_live_fromfile\n", a.URL)
	if err := os.WriteFile(filepath.Join(dir, ".hookline", "dev.env"), []byte(env), 0o600); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "some", "where")
	if err := os.MkdirAll(sub, 0o750); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	out, errOut, code := runCLI(t, func(string) string { return "" }, "credits")
	if code != 0 || out != "12 credits (subscription 10, purchased 2), tier pro, billed monthly\n" {
		t.Fatalf("exit %d, %q %q", code, out, errOut)
	}
	if a.calls[0] != "GET /api/v1/account/credits Bearer hk_live_fromfile" {
		t.Errorf("calls %v", a.calls)
	}
	out, _, code = runCLI(t, func(string) string { return "" }, "--json", "credits")
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || got["tier"] != "pro" {
		t.Errorf("--json: %d %q", code, out)
	}
}

func TestAPIErrorsExitWithTheirCode(t *testing.T) {
	a := newAPI(t)
	a.route["POST /api/v1/thumbnails"] = a.json(402, map[string]any{"error": "not enough credits: 1 needed, 0 available", "code": "insufficient_credits", "details": map[string]any{}})
	out, errOut, code := runCLI(t, a.env, "thumbnails", "generate", "--prompt", "a cat")
	if code != 1 || out != "" || !strings.Contains(errOut, "not enough credits: 1 needed, 0 available (insufficient_credits, HTTP 402") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	a.route["POST /api/v1/faces"] = a.json(400, map[string]any{"error": "invalid request", "code": "invalid_request", "details": map[string]any{"fields": map[string]any{"imageUrls[0]": "no face found"}}})
	_, errOut, code = runCLI(t, a.env, "faces", "create", "--name", "Me", "--photo", "https://example.com/a.jpg")
	if code != 1 || !strings.Contains(errOut, "imageUrls[0]: no face found") {
		t.Errorf("exit %d, %q", code, errOut)
	}
	for _, args := range [][]string{{"nope"}, {"thumbnails", "generate"}, {"clips", "render", "p"}, {"thumbnails", "upscale", "--image", "/no/such/file.png"}} {
		if _, errOut, code := runCLI(t, a.env, args...); code != 2 {
			t.Errorf("%v: exit %d (%q), want 2", args, code, errOut)
		}
	}
	if _, errOut, code := runCLI(t, func(string) string { return "" }, "credits"); code != 1 || !strings.Contains(errOut, "HOOKLINE_API_KEY") {
		t.Errorf("without a key: %d %q", code, errOut)
	}
}

func TestGenerateFindsTheFaceByNameAndSavesTheImage(t *testing.T) {
	a := newAPI(t)
	face := "6f1c1d9e-0000-4000-8000-000000000001"
	a.route["GET /api/v1/faces"] = a.json(200, map[string]any{"data": []any{map[string]any{"id": face, "name": "Ada", "imageUrls": []string{}}}, "pagination": map[string]any{"page": 1, "limit": 100, "total": 1, "hasMore": false}})
	var sent map[string]any
	a.route["POST /api/v1/thumbnails"] = func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		sent = body
		a.json(201, map[string]any{"data": map[string]any{"id": "t1", "kind": "generated", "imageUrl": a.URL + "/files/t1.jpg", "width": 1280, "height": 720}})(w, r, body)
	}
	a.route["GET /files/t1.jpg"] = func(w http.ResponseWriter, _ *http.Request, _ map[string]any) { _, _ = io.WriteString(w, "JPEGBYTES") }
	file := filepath.Join(t.TempDir(), "thumb.jpg")
	out, errOut, code := runCLI(t, a.env, "thumbnails", "generate", "--prompt", "a cat astronaut", "--face", "ada", "--out", file)
	if code != 0 {
		t.Fatalf("exit %d %q", code, errOut)
	}
	if fmt.Sprint(sent["faceIds"]) != "["+face+"]" || sent["prompt"] != "a cat astronaut" {
		t.Errorf("sent %v", sent)
	}
	if b, _ := os.ReadFile(file); string(b) != "JPEGBYTES" || !strings.HasPrefix(out, "t1  generated  1280x720") {
		t.Errorf("file %q, stdout %q", b, out)
	}
}

func TestRenderWaitsShowsProgressAndDownloads(t *testing.T) {
	a := newAPI(t)
	var sent map[string]any
	a.route["POST /api/v1/clips/projects/p1/renders"] = func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		sent = body
		a.json(201, map[string]any{"data": map[string]any{"renders": []any{map[string]any{"id": "r1", "clipId": "c1", "status": "pending", "creditsCharged": 2}, map[string]any{"id": "r2", "clipId": "c2", "status": "pending", "creditsCharged": 2}}, "creditsCharged": 4}})(w, r, body)
	}
	for _, id := range []string{"r1", "r2"} {
		a.route["GET /api/v1/clips/renders/"+id] = func(w http.ResponseWriter, r *http.Request, body map[string]any) {
			a.mu.Lock()
			a.polls[id]++
			n := a.polls[id]
			a.mu.Unlock()
			job := map[string]any{"id": id, "clipId": "c", "status": "rendering", "currentStep": "encoding", "progress": 50, "options": map[string]any{}}
			if n > 1 {
				job["status"], job["currentStep"], job["progress"], job["outputUrl"] = "completed", "done", 100, a.URL+"/files/"+id+".mp4"
				job["exports"] = []any{map[string]any{"format": "srt", "url": a.URL + "/files/" + id + ".srt", "contentType": "application/x-subrip"}}
				job["captionTranslation"] = map[string]any{"engine": "apertium", "quality": "draft", "language": "es"}
			}
			a.json(200, map[string]any{"data": job})(w, r, body)
		}
		a.route["GET /files/"+id+".mp4"] = func(w http.ResponseWriter, _ *http.Request, _ map[string]any) { _, _ = io.WriteString(w, "MP4 "+id) }
		a.route["GET /files/"+id+".srt"] = func(w http.ResponseWriter, _ *http.Request, _ map[string]any) { _, _ = io.WriteString(w, "SRT "+id) }
	}
	dir := t.TempDir()
	out, errOut, code := runCLI(t, a.env, "--json", "clips", "render", "p1", "c1", "c2", "--style", "bold", "--hook-title", "--censor", "bleep", "--caption-language", "es", "--download", dir)
	if code != 0 {
		t.Fatalf("exit %d %q", code, errOut)
	}
	if fmt.Sprint(sent["clip_ids"]) != "[c1 c2]" || sent["subtitle_style"] != "bold" || fmt.Sprint(sent["options"]) != "map[captionLanguage:es censor:bleep hookTitle:true]" {
		t.Errorf("sent %v", sent)
	}
	for _, line := range []string{"r1:  50% encoding", "r1: 100% done", "r2: 100% done", "saved " + filepath.Join(dir, "r2.mp4")} {
		if !strings.Contains(errOut, line) {
			t.Errorf("stderr lacks %q:\n%s", line, errOut)
		}
	}
	for _, id := range []string{"r1", "r2"} {
		if b, _ := os.ReadFile(filepath.Join(dir, id+".mp4")); string(b) != "MP4 "+id {
			t.Errorf("%s.mp4: %q", id, b)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, id+".srt")); string(b) != "SRT "+id {
			t.Errorf("%s.srt (an export): %q", id, b)
		}
	}
	var jobs []map[string]any
	if err := json.Unmarshal([]byte(out), &jobs); err != nil || len(jobs) != 2 || jobs[1]["status"] != "completed" ||
		fmt.Sprint(jobs[1]["captionTranslation"]) != "map[engine:apertium language:es quality:draft]" {
		t.Errorf("stdout %q", out)
	}
}

func TestCensorWordsGetAndSet(t *testing.T) {
	a := newAPI(t)
	var sent map[string]any
	list := map[string]any{"data": map[string]any{"words": []any{"zorbly", "gloop snarf"}, "builtIn": map[string]any{"source": "LDNOOBW", "count": 402}}}
	a.route["PUT /api/v1/clips/censor-words"] = func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		sent = body
		a.json(200, list)(w, r, body)
	}
	a.route["GET /api/v1/clips/censor-words"] = a.json(200, list)
	out, errOut, code := runCLI(t, a.env, "clips", "censor-words", "set", "Zorbly", "gloop snarf")
	if code != 0 || fmt.Sprint(sent["words"]) != "[Zorbly gloop snarf]" || !strings.Contains(out, "  gloop snarf\n") || !strings.Contains(out, "402 words") {
		t.Errorf("set: exit %d, sent %v, out %q %q", code, sent, out, errOut)
	}
	if _, _, code := runCLI(t, a.env, "clips", "censor-words", "set"); code != 0 || fmt.Sprint(sent["words"]) != "[]" {
		t.Errorf("set with no words: exit %d, sent %v (want the empty list)", code, sent)
	}
	if out, _, code := runCLI(t, a.env, "clips", "censor-words", "get"); code != 0 || !strings.Contains(out, "your own: 2") {
		t.Errorf("get: exit %d %q", code, out)
	}
}
