package transcribe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"hookline.dev/pkg/telemetry"
	"hookline.dev/pkg/videosite"
)

// OpenAI is an OpenAI-compatible transcription server (OpenAI itself, or
// a whisper.cpp or faster-whisper server).
type OpenAI struct {
	BaseURL string // "" is https://api.openai.com; a trailing /v1 is allowed
	APIKey  string // sent as a bearer token when set
	Model   string // "" is whisper-1
	// Timeout bounds each request (0: only the context does).
	Timeout time.Duration
	HTTP    *http.Client // nil is a client with spans (telemetry.Transport)
}

// openaiChunk keeps each upload (16 kHz 16-bit mono: 1.92 MB a minute)
// under OpenAI's 25 MB limit.
const openaiChunk = 600.0 // seconds

// Name names the engine and its model.
func (o *OpenAI) Name() string { return "openai:" + o.model() }

func (o *OpenAI) model() string {
	if o.Model == "" {
		return "whisper-1"
	}
	return o.Model
}

// Transcribe uploads wavPath, in ten-minute chunks, and reads
// verbose_json with segment and word timestamps. Transport failures,
// timeouts, 429, 5xx and answers that are not verbose_json are
// ErrUnavailable.
func (o *OpenAI) Transcribe(ctx context.Context, wavPath string) ([]videosite.Segment, error) {
	return inChunks(ctx, wavPath, openaiChunk, 1, o.request)
}

func (o *OpenAI) request(ctx context.Context, wavPath string) ([]videosite.Segment, error) {
	body, ctype, err := o.form(wavPath)
	if err != nil {
		return nil, err
	}
	base := strings.TrimSuffix(strings.TrimRight(o.BaseURL, "/"), "/v1")
	if base == "" {
		base = "https://api.openai.com"
	}
	rctx := ctx
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, base+"/v1/audio/transcriptions", body)
	if err != nil {
		return nil, fmt.Errorf("transcribe: building the request: %w", err)
	}
	req.Header.Set("Content-Type", ctype)
	if o.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.APIKey)
	}
	client := o.HTTP
	if client == nil {
		client = tracedClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil { // the caller gave up, not the server
			return nil, fmt.Errorf("transcribe: %w", ctx.Err())
		}
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("%w: reading the answer: %w", ErrUnavailable, err)
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return nil, fmt.Errorf("%w: HTTP %d: %.200s", ErrUnavailable, resp.StatusCode, data)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("transcribe: HTTP %d: %.200s", resp.StatusCode, data)
	}
	return parseVerbose(data)
}

// form builds the multipart body: the file, the model, verbose_json and
// both timestamp granularities.
func (o *OpenAI) form(wavPath string) (io.Reader, string, error) {
	f, err := os.Open(wavPath) //nolint:gosec // G304: the caller's own audio file
	if err != nil {
		return nil, "", fmt.Errorf("transcribe: %w", err)
	}
	defer func() { _ = f.Close() }()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	part, err := w.CreateFormFile("file", filepath.Base(wavPath))
	if err == nil {
		_, err = io.Copy(part, f)
	}
	for _, kv := range [][2]string{
		{"model", o.model()}, {"response_format", "verbose_json"},
		{"timestamp_granularities[]", "word"}, {"timestamp_granularities[]", "segment"},
	} {
		if err == nil {
			err = w.WriteField(kv[0], kv[1])
		}
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		return nil, "", fmt.Errorf("transcribe: building the upload: %w", err)
	}
	return &buf, w.FormDataContentType(), nil
}

// wordGap is the pause that ends a segment built from words alone.
const wordGap = 0.8 // seconds

// parseVerbose reads segments and gives each the words whose middle falls
// inside it; with words only, a segment ends at a sentence's punctuation
// or a pause of wordGap.
func parseVerbose(data []byte) ([]videosite.Segment, error) {
	var v verbose
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("%w: not verbose_json: %w", ErrUnavailable, err)
	}
	words := make([]videosite.Word, 0, len(v.Words))
	for _, w := range v.Words {
		if t := strings.TrimSpace(w.Word); t != "" {
			conf := videosite.Certain
			if w.Probability != nil {
				conf = min(1, max(0, *w.Probability))
			}
			words = append(words, videosite.Word{Start: w.Start, End: w.End, Text: t, Confidence: conf})
		}
	}
	out := []videosite.Segment{}
	if len(v.Segments) > 0 {
		k := 0
		for _, s := range v.Segments {
			seg := videosite.Segment{Start: s.Start, End: s.End, Text: strings.TrimSpace(s.Text)}
			for k < len(words) && (words[k].Start+words[k].End)/2 <= s.End {
				seg.Words = append(seg.Words, words[k])
				k++
			}
			if seg.Text != "" {
				out = append(out, seg)
			}
		}
		if n := len(out); n > 0 && k < len(words) { // words after the last segment's end
			out[n-1].Words = append(out[n-1].Words, words[k:]...)
		}
		return out, nil
	}
	var cur []videosite.Word
	for i, w := range words {
		cur = append(cur, w)
		pause := i+1 < len(words) && words[i+1].Start-w.End >= wordGap
		if strings.ContainsAny(w.Text[len(w.Text)-1:], ".!?") || pause || i == len(words)-1 {
			texts := make([]string, len(cur))
			for j, c := range cur {
				texts[j] = c.Text
			}
			out = append(out, videosite.Segment{Start: cur[0].Start, End: w.End, Text: strings.Join(texts, " "), Words: cur})
			cur = nil
		}
	}
	if len(out) == 0 && strings.TrimSpace(v.Text) != "" {
		return nil, errors.New("transcribe: the answer has text but no timestamps")
	}
	return out, nil
}

// tracedClient is the client of an OpenAI without its own: a client span
// per call. No client-wide timeout; the caller's context bounds each call.
var tracedClient = &http.Client{Transport: telemetry.Transport(nil)}
