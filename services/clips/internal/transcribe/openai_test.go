package transcribe_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"hookline.dev/pkg/videosite"
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

// fake is an OpenAI-compatible server that checks the upload and answers
// status and body.
func fake(t *testing.T, upload []byte, key string, status int, body string) *httptest.Server {
	t.Helper()
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
		if f.Value["model"][0] != "whisper-1" || f.Value["response_format"][0] != "verbose_json" ||
			!reflect.DeepEqual(f.Value["timestamp_granularities[]"], []string{"word", "segment"}) {
			t.Errorf("form values %v", f.Value)
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
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
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
		body: `{"text":"Hello there.","segments":[{"start":0.5,"end":1.5,"text":"Hello there."}]}`,
		want: []videosite.Segment{{Start: 0.5, End: 1.5, Text: "Hello there."}},
	}, {
		name: "words only",
		body: `{"text":"hello there general kenobi","words":[{"word":"hello","start":0.1,"end":0.5},{"word":"there.","start":0.6,"end":1.0},
			{"word":"general","start":1.1,"end":1.5},{"word":"kenobi","start":2.5,"end":3.0},{"word":"again","start":3.1,"end":3.5}]}`,
		want: []videosite.Segment{
			{Start: 0.1, End: 1.0, Text: "hello there.", Words: []videosite.Word{w(0.1, 0.5, "hello"), w(0.6, 1.0, "there.")}},
			{Start: 1.1, End: 1.5, Text: "general", Words: []videosite.Word{w(1.1, 1.5, "general")}},
			{Start: 2.5, End: 3.5, Text: "kenobi again", Words: []videosite.Word{w(2.5, 3.0, "kenobi"), w(3.1, 3.5, "again")}},
		},
	}, {
		name: "faster-whisper word probabilities",
		body: `{"text":"hello kenobi","words":[{"word":"hello","start":0.1,"end":0.5,"probability":0.97},{"word":"kenobi","start":0.6,"end":1.0,"probability":0.41}]}`,
		want: []videosite.Segment{{Start: 0.1, End: 1.0, Text: "hello kenobi", Words: []videosite.Word{
			{Start: 0.1, End: 0.5, Text: "hello", Confidence: 0.97}, {Start: 0.6, End: 1.0, Text: "kenobi", Confidence: 0.41},
		}}},
	}, {
		name: "silence",
		body: `{"text":"","segments":[],"words":[]}`,
		want: []videosite.Segment{},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake(t, upload, "sk-test", http.StatusOK, tc.body)
			eng, err := transcribe.New("openai", srv.URL+"/v1/", "sk-test", "", time.Minute, transcribe.Local{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := eng.Transcribe(context.Background(), path)
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
	for _, tc := range []struct {
		status      int
		body        string
		unavailable bool
	}{
		{http.StatusInternalServerError, `{"error":{"message":"boom"}}`, true},
		{http.StatusBadGateway, `bad gateway`, true},
		{http.StatusTooManyRequests, `{"error":{"message":"slow down"}}`, true},
		{http.StatusOK, `<html>not json</html>`, true},
		{http.StatusBadRequest, `{"error":{"message":"bad file"}}`, false},
		{http.StatusUnauthorized, `{"error":{"message":"bad key"}}`, false},
	} {
		srv := fake(t, upload, "", tc.status, tc.body)
		_, err := (&transcribe.OpenAI{BaseURL: srv.URL}).Transcribe(context.Background(), path)
		if err == nil || errors.Is(err, transcribe.ErrUnavailable) != tc.unavailable {
			t.Errorf("HTTP %d %s: %v (unavailable: want %v)", tc.status, tc.body, err, tc.unavailable)
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
	if _, err := (&transcribe.OpenAI{BaseURL: slow.URL, Timeout: 200 * time.Millisecond}).Transcribe(context.Background(), path); !errors.Is(err, transcribe.ErrUnavailable) {
		t.Errorf("timeout: %v", err)
	}
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	if _, err := (&transcribe.OpenAI{BaseURL: gone.URL}).Transcribe(context.Background(), path); !errors.Is(err, transcribe.ErrUnavailable) {
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
	} {
		eng, err := transcribe.New(tc.provider, tc.baseURL, tc.key, "", 0, local)
		if (err == nil) != tc.ok || (err == nil && eng.Name() != tc.name) {
			t.Errorf("New(%q, %q, %q): %v %v", tc.provider, tc.baseURL, tc.key, eng, err)
		}
	}
}
