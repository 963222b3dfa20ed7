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

	"hookline.dev/pkg/ai/vendorapi"
	"hookline.dev/pkg/media/videosite"
	"hookline.dev/pkg/platform/telemetry"
)

// DefaultOpenAIBaseURL is OpenAI's own API.
const DefaultOpenAIBaseURL = "https://api.openai.com"

// timing is what a transcription model's answer holds (AudioResponseFormat
// and CreateTranscriptionRequest.timestamp_granularities of OpenAI's
// openapi.yaml; pkg/ai/vendorapi/contract/testdata/openai.json).
type timing int

const (
	// wordTimings: verbose_json with segment and word timestamps
	// (whisper-1, and the self-hosted Whisper servers).
	wordTimings timing = iota
	// segmentTimings: diarized_json, whose segments carry start and end
	// but no words (gpt-4o-transcribe-diarize).
	segmentTimings
	// noTimings: json or text only (gpt-4o-transcribe, -mini): nothing
	// to cut clips or time captions by.
	noTimings
)

// openAIModels are OpenAI's transcription models and what they answer; a
// name it does not list (a self-hosted server's) is taken to speak
// verbose_json with words, as Whisper servers do.
var openAIModels = map[string]timing{
	"whisper-1":                         wordTimings,
	"gpt-4o-transcribe-diarize":         segmentTimings,
	"gpt-4o-transcribe":                 noTimings,
	"gpt-4o-mini-transcribe":            noTimings,
	"gpt-4o-mini-transcribe-2025-12-15": noTimings,
	"gpt-transcribe":                    noTimings, // the API documents no timestamps for it
}

// checkModel refuses, at start-up, a model whose answers carry no
// timings.
func checkModel(model string) error {
	if t, listed := openAIModels[model]; listed && t == noTimings {
		return fmt.Errorf("transcribe: HOOKLINE_TRANSCRIBE_MODEL=%s answers text without timestamps (response_format json only), "+
			"and clips are cut and captioned by timed words: use whisper-1 (word timings) or gpt-4o-transcribe-diarize (segment timings)", model)
	}
	return nil
}

// OpenAI is an OpenAI-compatible transcription server (OpenAI itself, or
// a speaches/faster-whisper, whisper.cpp or LocalAI server).
type OpenAI struct {
	BaseURL string // "" is https://api.openai.com; with or without /v1
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
// verbose_json with segment and word timestamps (diarized_json's segments
// for gpt-4o-transcribe-diarize). A rate limit is waited out while ctx
// allows. Transport failures, timeouts, a spent quota, 5xx and answers
// that cannot be read are ErrUnavailable; a model the server does not
// know is ErrModelMissing.
func (o *OpenAI) Transcribe(ctx context.Context, wavPath string, progress func(done float64)) ([]videosite.Segment, error) {
	return inChunks(ctx, wavPath, openaiChunk, 1, progress, o.request)
}

// ErrModelMissing: the server does not know the model.
var ErrModelMissing = vendorapi.ErrModelMissing

func (o *OpenAI) request(ctx context.Context, wavPath string) ([]videosite.Segment, error) {
	base, err := vendorapi.Base(o.BaseURL, DefaultOpenAIBaseURL)
	if err != nil {
		return nil, fmt.Errorf("transcribe: %w", err)
	}
	segs, f, err := vendorapi.Retry(ctx, 3, func() ([]videosite.Segment, *vendorapi.Failure, error) {
		return o.post(ctx, vendorapi.OpenAI.URL(base, "audio", "transcriptions"), wavPath)
	})
	switch {
	case err != nil:
		return nil, err
	case f == nil:
		return segs, nil
	case f.Kind == vendorapi.ModelMissing:
		return nil, fmt.Errorf("transcribe: %w: %s: %w", ErrModelMissing, o.model(), f)
	case f.Kind == vendorapi.Fault:
		return nil, fmt.Errorf("transcribe: %w", f)
	}
	// Classify keeps at most 300 bytes of the server's message.
	return nil, fmt.Errorf("%w: %s: %w", ErrUnavailable, f.Kind, f)
}

// post sends one upload and reads a 2xx answer, or returns the server's
// failure, classified.
func (o *OpenAI) post(ctx context.Context, u, wavPath string) ([]videosite.Segment, *vendorapi.Failure, error) {
	body, ctype, err := o.form(wavPath)
	if err != nil {
		return nil, nil, err
	}
	rctx := ctx
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, u, body)
	if err != nil {
		return nil, nil, fmt.Errorf("transcribe: building the request: %w", err)
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
			return nil, nil, fmt.Errorf("transcribe: %w", ctx.Err())
		}
		return nil, nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: reading the answer: %w", ErrUnavailable, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, vendorapi.Classify(vendorapi.OpenAI, resp.StatusCode, resp.Header, data), nil
	}
	segs, err := parseVerbose(data)
	return segs, nil, err
}

// form builds the multipart body: the file, the model, and verbose_json
// with both timestamp granularities (diarized_json, with the automatic
// chunking the API requires past 30 s, for a diarizing model).
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
	fields := [][2]string{
		{"model", o.model()}, {"response_format", "verbose_json"},
		{"timestamp_granularities[]", "word"}, {"timestamp_granularities[]", "segment"},
	}
	if openAIModels[o.model()] == segmentTimings {
		fields = [][2]string{{"model", o.model()}, {"response_format", "diarized_json"}, {"chunking_strategy", "auto"}}
	}
	for _, kv := range fields {
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
