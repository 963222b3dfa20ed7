package transcribe_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hookline.dev/pkg/ai/vendorapi/contract"

	"hookline.dev/pkg/media/videosite"
	"hookline.dev/services/clips/internal/transcribe"
)

// wav writes a second of 16 kHz mono silence.
func wav(t *testing.T) (string, []byte) {
	t.Helper()
	pcm := make([]byte, 2*16000)
	h := []byte("RIFF\x00\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x80\x3e\x00\x00\x00\x7d\x00\x00\x02\x00\x10\x00data\x00\x00\x00\x00")
	binary.LittleEndian.PutUint32(h[4:], uint32(36+len(pcm)))
	binary.LittleEndian.PutUint32(h[40:], uint32(len(pcm)))
	path := filepath.Join(t.TempDir(), "a.wav")
	if err := os.WriteFile(path, append(h, pcm...), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, append(h, pcm...)
}

// fake is an OpenAI-compatible server that checks the upload against
// OpenAI's contract (pkg/ai/vendorapi/contract: CreateTranscriptionRequest)
// and answers status and body after the headers. Answers to an OpenAI
// model are checked against the contract too (verbose_json,
// diarized_json, the error body); a self-hosted server's answers are its
// own. want lists the form values the request must carry.
func fake(t *testing.T, upload []byte, key string, want map[string][]string, answers ...answer) *httptest.Server {
	t.Helper()
	var (
		mu sync.Mutex
		n  int
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/audio/transcriptions" {
			t.Errorf("%s %s", r.Method, r.URL.Path)
		}
		if got, want := r.Header.Get("Authorization"), map[bool]string{true: "Bearer " + key}[key != ""]; got != want {
			t.Errorf("Authorization %q, want %q", got, want)
		}
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			t.Error(err)
			return
		}
		f := r.MultipartForm
		doc := map[string]any{}
		for k, vs := range f.Value {
			if name, ok := strings.CutSuffix(k, "[]"); ok {
				var arr []any
				for _, v := range vs {
					arr = append(arr, v)
				}
				doc[name] = arr
			} else {
				doc[k] = vs[0]
			}
		}
		for k, fhs := range f.File {
			doc[k] = contract.File{ContentType: fhs[0].Header.Get("Content-Type"), Size: int(fhs[0].Size)}
		}
		if problems := contract.OpenAI.CheckRequest("createTranscription", doc); len(problems) > 0 {
			t.Errorf("the request breaks OpenAI's contract: %v", problems)
		}
		if !reflect.DeepEqual(map[string][]string(f.Value), want) {
			t.Errorf("form values %v, want %v", f.Value, want)
		}
		if fh := f.File["file"]; len(fh) != 1 || fh[0].Filename != "a.wav" {
			t.Errorf("file %v", f.File)
		} else {
			file, _ := fh[0].Open()
			got, _ := io.ReadAll(file)
			if !reflect.DeepEqual(got, upload) {
				t.Errorf("uploaded %d bytes, want the %d of the WAV", len(got), len(upload))
			}
		}
		mu.Lock()
		a := answers[min(n, len(answers)-1)]
		n++
		mu.Unlock()
		if slices.Contains(contract.OpenAI.Models.Transcription, f.Value["model"][0]) {
			if problems := contract.OpenAI.CheckResponse("createTranscription", a.status, []byte(a.body)); len(problems) > 0 {
				t.Errorf("the fake's answer breaks OpenAI's contract: %v", problems)
			}
		}
		for k, v := range a.header {
			w.Header()[k] = v
		}
		w.WriteHeader(a.status)
		_, _ = io.WriteString(w, a.body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// answer is one answer of the fake.
type answer struct {
	status int
	header http.Header
	body   string
}

// whisperForm is the form sent for a word-timing model.
func whisperForm(model string) map[string][]string {
	return map[string][]string{"model": {model}, "response_format": {"verbose_json"}, "timestamp_granularities[]": {"word", "segment"}}
}

func TestOpenAI(t *testing.T) {
	path, upload := wav(t)
	w := func(s, e float64, text string) videosite.Word {
		return videosite.Word{Start: s, End: e, Text: text, Confidence: videosite.Certain}
	}
	for _, tc := range []struct {
		name, body string
		want       []videosite.Segment
	}{{
		name: "segments and words",
		body: `{"text":"Hello there. General Kenobi!","language":"english","duration":4.2,
			"segments":[{"id":0,"start":0.0,"end":1.4,"text":" Hello there."},{"id":1,"start":1.8,"end":4.2,"text":" General Kenobi!"}],
			"words":[{"word":"Hello","start":0.1,"end":0.5},{"word":"there","start":0.6,"end":1.3},
				{"word":"General","start":1.9,"end":2.6},{"word":"Kenobi","start":2.7,"end":3.9}]}`,
		want: []videosite.Segment{
			{Start: 0, End: 1.4, Text: "Hello there.", Words: []videosite.Word{w(0.1, 0.5, "Hello"), w(0.6, 1.3, "there")}},
			{Start: 1.8, End: 4.2, Text: "General Kenobi!", Words: []videosite.Word{w(1.9, 2.6, "General"), w(2.7, 3.9, "Kenobi")}},
		},
	}, {
		name: "segments only",
		body: `{"text":"Hello there.","language":"english","duration":1.5,"segments":[{"id":0,"start":0.5,"end":1.5,"text":"Hello there."}]}`,
		want: []videosite.Segment{{Start: 0.5, End: 1.5, Text: "Hello there."}},
	}, {
		name: "words only",
		body: `{"text":"hello there general kenobi","language":"english","duration":3.5,"words":[{"word":"hello","start":0.1,"end":0.5},{"word":"there.","start":0.6,"end":1.0},
			{"word":"general","start":1.1,"end":1.5},{"word":"kenobi","start":2.5,"end":3.0},{"word":"again","start":3.1,"end":3.5}]}`,
		want: []videosite.Segment{
			{Start: 0.1, End: 1.0, Text: "hello there.", Words: []videosite.Word{w(0.1, 0.5, "hello"), w(0.6, 1.0, "there.")}},
			{Start: 1.1, End: 1.5, Text: "general", Words: []videosite.Word{w(1.1, 1.5, "general")}},
			{Start: 2.5, End: 3.5, Text: "kenobi again", Words: []videosite.Word{w(2.5, 3.0, "kenobi"), w(3.1, 3.5, "again")}},
		},
	}, {
		name: "faster-whisper word probabilities",
		body: `{"text":"hello kenobi","language":"english","duration":1.0,"words":[{"word":"hello","start":0.1,"end":0.5,"probability":0.97},{"word":"kenobi","start":0.6,"end":1.0,"probability":0.41}]}`,
		want: []videosite.Segment{{Start: 0.1, End: 1.0, Text: "hello kenobi", Words: []videosite.Word{
			{Start: 0.1, End: 0.5, Text: "hello", Confidence: 0.97}, {Start: 0.6, End: 1.0, Text: "kenobi", Confidence: 0.41},
		}}},
	}, {
		name: "silence",
		body: `{"text":"","language":"english","duration":1.0,"segments":[],"words":[]}`,
		want: []videosite.Segment{},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake(t, upload, "sk-test", whisperForm("whisper-1"), answer{status: http.StatusOK, body: tc.body})
			eng, err := transcribe.New("openai", srv.URL+"/v1/", "sk-test", "", time.Minute, transcribe.Local{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := eng.Transcribe(context.Background(), path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestOpenAIErrors(t *testing.T) {
	path, upload := wav(t)
	oaiErr := func(typ, code, msg string) string {
		return `{"error":{"message":"` + msg + `","type":"` + typ + `","param":null,"code":` + map[bool]string{true: `"` + code + `"`, false: "null"}[code != ""] + `}}`
	}
	for _, tc := range []struct {
		status      int
		body        string
		unavailable bool
		missing     bool
	}{
		{http.StatusInternalServerError, oaiErr("server_error", "", "boom"), true, false},
		{http.StatusServiceUnavailable, oaiErr("server_error", "", "overloaded"), true, false},
		{http.StatusTooManyRequests, oaiErr("insufficient_quota", "insufficient_quota", "You exceeded your current quota."), true, false},
		{http.StatusBadRequest, oaiErr("invalid_request_error", "", "bad file"), false, false},
		{http.StatusUnauthorized, oaiErr("invalid_request_error", "invalid_api_key", "bad key"), false, false},
		{http.StatusNotFound, oaiErr("invalid_request_error", "model_not_found", "The model 'whisper-1' does not exist"), false, true},
	} {
		srv := fake(t, upload, "", whisperForm("whisper-1"), answer{status: tc.status, body: tc.body})
		_, err := (&transcribe.OpenAI{BaseURL: srv.URL}).Transcribe(context.Background(), path, nil)
		if err == nil || errors.Is(err, transcribe.ErrUnavailable) != tc.unavailable || errors.Is(err, transcribe.ErrModelMissing) != tc.missing {
			t.Errorf("HTTP %d %s: %v (unavailable: want %v, missing %v)", tc.status, tc.body, err, tc.unavailable, tc.missing)
		}
	}
	// Proxies in front of a server answer outside its contract.
	for status, body := range map[int]string{http.StatusBadGateway: "bad gateway", http.StatusOK: "<html>not json</html>"} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
		}))
		_, err := (&transcribe.OpenAI{BaseURL: srv.URL}).Transcribe(context.Background(), path, nil)
		srv.Close()
		if !errors.Is(err, transcribe.ErrUnavailable) {
			t.Errorf("HTTP %d %s: %v, want ErrUnavailable", status, body, err)
		}
	}

	// A server slower than the timeout, and one that is not there.
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	if _, err := (&transcribe.OpenAI{BaseURL: slow.URL, Timeout: 200 * time.Millisecond}).Transcribe(context.Background(), path, nil); !errors.Is(err, transcribe.ErrUnavailable) {
		t.Errorf("timeout: %v", err)
	}
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	if _, err := (&transcribe.OpenAI{BaseURL: gone.URL}).Transcribe(context.Background(), path, nil); !errors.Is(err, transcribe.ErrUnavailable) {
		t.Errorf("no server: %v", err)
	}
}

func TestNew(t *testing.T) {
	// New checks that the model's files are there; loading them waits
	// for the first recording.
	dir := t.TempDir()
	for _, f := range []string{"encoder_model.onnx", "decoder_model_merged.onnx", "tokens.txt", "libonnxruntime.so.1"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	local := transcribe.Local{MoonshineDir: dir, ONNXRuntimeLib: filepath.Join(dir, "libonnxruntime.so.1")}
	for _, tc := range []struct {
		provider, baseURL, key, name string
		ok                           bool
	}{
		{"", "", "", "moonshine", true},
		{"local", "", "", "moonshine", true},
		{"pocketsphinx", "", "", "pocketsphinx", true},
		{"openai", "", "sk", "openai:whisper-1", true},
		{"openai", "http://whisper:8080", "", "openai:whisper-1", true},
		{"openai", "", "", "", false},
		{"azure", "", "sk", "", false},
		{"openai", "ftp://whisper", "", "", false},
	} {
		eng, err := transcribe.New(tc.provider, tc.baseURL, tc.key, "", 0, local, nil)
		if (err == nil) != tc.ok || (err == nil && eng.Name() != tc.name) {
			t.Errorf("New(%q, %q, %q): %v %v", tc.provider, tc.baseURL, tc.key, eng, err)
		}
	}
}

// Models that answer no timestamps are refused at start-up, naming what
// to use instead; the diarizing model is taken, for its segment timings.
func TestModelsWithoutTimestamps(t *testing.T) {
	for _, model := range contract.OpenAI.Models.TranscriptionJSONOnly {
		_, err := transcribe.New("openai", "", "sk", model, 0, transcribe.Local{}, nil)
		if err == nil || !strings.Contains(err.Error(), model) || !strings.Contains(err.Error(), "whisper-1") {
			t.Errorf("%s: %v, want a refusal naming the model and whisper-1", model, err)
		}
	}
	for _, model := range append([]string{"whisper-1"}, contract.OpenAI.Models.TranscriptionDiarized...) {
		if _, err := transcribe.New("openai", "", "sk", model, 0, transcribe.Local{}, nil); err != nil {
			t.Errorf("%s: %v", model, err)
		}
	}
}

// gpt-4o-transcribe-diarize is asked for diarized_json, whose segments
// give the timings (no words).
func TestDiarizeUsesSegmentTimings(t *testing.T) {
	path, upload := wav(t)
	srv := fake(t, upload, "sk", map[string][]string{"model": {"gpt-4o-transcribe-diarize"}, "response_format": {"diarized_json"}, "chunking_strategy": {"auto"}},
		answer{status: http.StatusOK, body: `{"task":"transcribe","duration":4.2,"text":"Hello there. General Kenobi!","segments":[
			{"type":"transcript.text.segment","id":"seg_001","start":0.0,"end":1.4,"text":"Hello there.","speaker":"A"},
			{"type":"transcript.text.segment","id":"seg_002","start":1.8,"end":4.2,"text":"General Kenobi!","speaker":"B"}]}`})
	eng, err := transcribe.New("openai", srv.URL, "sk", "gpt-4o-transcribe-diarize", time.Minute, transcribe.Local{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := eng.Transcribe(context.Background(), path, nil)
	want := []videosite.Segment{{Start: 0, End: 1.4, Text: "Hello there."}, {Start: 1.8, End: 4.2, Text: "General Kenobi!"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v %v, want %+v", got, err, want)
	}
}

// A rate limit is waited out (the server's Retry-After) and the chunk
// sent again.
func TestRateLimitIsRetried(t *testing.T) {
	path, upload := wav(t)
	srv := fake(t, upload, "sk", whisperForm("whisper-1"),
		answer{status: http.StatusTooManyRequests, header: http.Header{"Retry-After-Ms": {"20"}},
			body: `{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}`},
		answer{status: http.StatusOK, body: `{"text":"Hi.","language":"english","duration":1,"segments":[{"id":0,"start":0,"end":1,"text":"Hi."}]}`})
	got, err := (&transcribe.OpenAI{BaseURL: srv.URL + "/v1", APIKey: "sk"}).Transcribe(context.Background(), path, nil)
	if err != nil || len(got) != 1 || got[0].Text != "Hi." {
		t.Fatalf("%+v %v", got, err)
	}
}

// One tested configuration for each self-hosted server the README
// documents: the base URL as each one's documentation writes it, its
// model names, and an answer in its shape.
func TestSelfHostedServers(t *testing.T) {
	path, upload := wav(t)
	for _, tc := range []struct {
		name, base, model, body string
		want                    []videosite.Segment
	}{{
		// speaches (faster-whisper): http://host:8000/v1, Hugging Face
		// model ids, word probabilities.
		name: "speaches", base: "/v1", model: "Systran/faster-distil-whisper-large-v3",
		body: `{"task":"transcribe","language":"en","duration":1.0,"text":"hello kenobi",
			"segments":[{"id":1,"start":0.0,"end":1.0,"text":" hello kenobi"}],
			"words":[{"word":" hello","start":0.1,"end":0.5,"probability":0.9},{"word":" kenobi","start":0.6,"end":1.0,"probability":0.5}]}`,
		want: []videosite.Segment{{Start: 0, End: 1, Text: "hello kenobi", Words: []videosite.Word{
			{Start: 0.1, End: 0.5, Text: "hello", Confidence: 0.9}, {Start: 0.6, End: 1, Text: "kenobi", Confidence: 0.5}}}},
	}, {
		// whisper.cpp's server started with --inference-path
		// /v1/audio/transcriptions: the origin alone, any model name (it
		// serves the one it loaded), segments without words.
		name: "whisper.cpp", base: "", model: "ggml-base.en",
		body: `{"task":"transcribe","language":"english","duration":1.0,"text":"Hello there.","segments":[{"id":0,"start":0.0,"end":1.0,"text":" Hello there."}]}`,
		want: []videosite.Segment{{Start: 0, End: 1, Text: "Hello there."}},
	}, {
		// LocalAI: http://host:8080 (or /v1), its model gallery names.
		name: "LocalAI", base: "/v1/", model: "whisper-base",
		body: `{"text":"Hello there.","segments":[{"id":0,"start":0.0,"end":1.0,"text":"Hello there."}]}`,
		want: []videosite.Segment{{Start: 0, End: 1, Text: "Hello there."}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake(t, upload, "", whisperForm(tc.model), answer{status: http.StatusOK, body: tc.body})
			eng, err := transcribe.New("openai", srv.URL+tc.base, "", tc.model, time.Minute, transcribe.Local{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := eng.Transcribe(context.Background(), path, nil)
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v %v\nwant %+v", got, err, tc.want)
			}
		})
	}
}

// The default model is one OpenAI's contract lists.
func TestDefaultModelIsInTheContract(t *testing.T) {
	model := strings.TrimPrefix((&transcribe.OpenAI{}).Name(), "openai:")
	if why := contract.OpenAI.CheckModel("transcription", model); why != "" {
		t.Error(why)
	}
}

// stubLocal stands for pocketsphinx.
type stubLocal struct{ calls int }

func (*stubLocal) Name() string { return "pocketsphinx" }
func (s *stubLocal) Transcribe(context.Context, string, func(float64)) ([]videosite.Segment, error) {
	s.calls++
	return []videosite.Segment{{Start: 0, End: 1, Text: "local"}}, nil
}

// A model the server no longer knows: the call finds it, the local
// engine transcribes (and names itself with the reason), the watch
// reports it; a lookup that finds the model again restores the server.
func TestMissingModelFallsBackToLocal(t *testing.T) {
	path, upload := wav(t)
	var known atomic.Bool
	srv := fake(t, upload, "sk", whisperForm("whisper-1"), answer{status: http.StatusNotFound,
		body: `{"error":{"message":"The model 'whisper-1' does not exist","type":"invalid_request_error","param":null,"code":"model_not_found"}}`})
	lookups := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models/whisper-1" {
			srv.Config.Handler.ServeHTTP(w, r)
			return
		}
		if !known.Load() {
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"error":{"message":"The model 'whisper-1' does not exist","type":"invalid_request_error","param":null,"code":"model_not_found"}}`)
			return
		}
		_, _ = io.WriteString(w, `{"id":"whisper-1","object":"model","created":1,"owned_by":"system"}`)
	}))
	defer lookups.Close()
	local := &stubLocal{}
	fb := transcribe.NewFallback(&transcribe.OpenAI{BaseURL: lookups.URL, APIKey: "sk"}, local, slog.New(slog.DiscardHandler))
	got, err := fb.Transcribe(context.Background(), path, nil)
	if err != nil || len(got) != 1 || got[0].Text != "local" || fb.Degraded() == nil || !strings.Contains(fb.Name(), "pocketsphinx (fallback: openai:whisper-1") {
		t.Fatalf("%+v %v, name %q, degraded %v", got, err, fb.Name(), fb.Degraded())
	}
	fb.Check(context.Background())
	if fb.Degraded() == nil {
		t.Fatal("a lookup answering 404 cleared the state")
	}
	known.Store(true)
	fb.Check(context.Background())
	if fb.Degraded() != nil || fb.Name() != "openai:whisper-1" {
		t.Fatalf("after the restore: %v %q", fb.Degraded(), fb.Name())
	}
}
