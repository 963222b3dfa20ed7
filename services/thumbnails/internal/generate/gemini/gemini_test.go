package gemini_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"hookline.dev/pkg/ai/vendorapi"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/gemini"
	"hookline.dev/services/thumbnails/internal/generate/providerfake"
	"hookline.dev/services/thumbnails/internal/generate/providerkit"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

func newClient(t *testing.T, fake *providerfake.Gemini, mod func(*gemini.Config)) *gemini.Client {
	t.Helper()
	cfg := gemini.Config{APIKey: fake.Key(), BaseURL: fake.URL()}
	if mod != nil {
		mod(&cfg)
	}
	c, err := gemini.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// lastCall is the fake's latest call, which must have been a valid request.
func lastCall(t *testing.T, fake *providerfake.Gemini) providerfake.GeminiCall {
	t.Helper()
	calls := fake.Calls()
	if len(calls) == 0 {
		t.Fatal("no call")
	}
	c := calls[len(calls)-1]
	if c.Problem != "" {
		t.Fatalf("the fake refused the request: %s", c.Problem)
	}
	return c
}

func TestGenerate(t *testing.T) {
	for _, a := range []thumbnail.Aspect{thumbnail.Landscape, thumbnail.Portrait} {
		t.Run(string(a), func(t *testing.T) {
			fake := providerfake.NewGemini(t)
			res, err := newClient(t, fake, nil).Generate(t.Context(), providerfake.Sample(a))
			if err != nil {
				t.Fatal(err)
			}
			providerfake.CheckThumbnail(t, res, a)
			c := lastCall(t, fake)
			if c.Model != providerkit.GeminiImages.Default || c.AspectRatio != string(a) || !slices.Equal(c.Modalities, []string{"IMAGE"}) ||
				c.Seed == nil || *c.Seed != 42 || c.Status != http.StatusOK {
				t.Errorf("call %+v", c)
			}
			var got []string
			for _, u := range c.Images {
				got = append(got, fmt.Sprintf("%s %dx%d", u.Format, u.Width, u.Height))
			}
			want := []string{"jpeg 256x256", "png 256x256", "png 64x64", "jpeg 640x360"} // Alex, Sam, logo, reference
			if !slices.Equal(got, want) {
				t.Errorf("images %v, want %v", got, want)
			}
			for _, s := range []string{"Neon night", "#FF0099", "Byte Bench", "#123456", "Images 1–2 show the 2 people (Alex, Sam)", "Image 3 is the brand logo"} {
				if !strings.Contains(c.Text, s) {
					t.Errorf("prompt lacks %q:\n%s", s, c.Text)
				}
			}
		})
	}
}

func TestConfiguredModelAndVary(t *testing.T) {
	fake := providerfake.NewGemini(t)
	c := newClient(t, fake, func(cfg *gemini.Config) { cfg.Model = "gemini-3-pro-image"; cfg.BaseURL += "/v1beta" })
	req := engine.Request{Prompt: "budget GPUs", Tweak: "night scene", Aspect: thumbnail.Landscape, Seed: 1<<40 | 9,
		Parent: &engine.Picture{Data: providerfake.JPEG(1280, 720, "parent")}}
	res, err := c.Vary(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	providerfake.CheckThumbnail(t, res, thumbnail.Landscape)
	call := lastCall(t, fake)
	if call.Model != "gemini-3-pro-image" || len(call.Images) != 1 || call.Images[0].Width != 1280 || *call.Seed != 9 {
		t.Errorf("call %+v", call)
	}
	for _, s := range []string{"Image 1 is the thumbnail to vary", "Change requested: night scene"} {
		if !strings.Contains(call.Text, s) {
			t.Errorf("prompt lacks %q:\n%s", s, call.Text)
		}
	}
	req.Seed = 10
	if _, err := c.Vary(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if s := *lastCall(t, fake).Seed; s != 10 {
		t.Errorf("second variation sent seed %d, want 10", s)
	}
	req.Parent = nil
	if _, err := c.Vary(t.Context(), req); err == nil || len(fake.Calls()) != 2 {
		t.Errorf("Vary without a parent: %v after %d calls", err, len(fake.Calls()))
	}
}

// TestAnswerSpellings feeds answers the REST API or a proxy may write: the
// image in snake_case, after a thought draft, after text.
func TestAnswerSpellings(t *testing.T) {
	pic := base64.StdEncoding.EncodeToString(providerfake.PNG(1344, 768, "answer"))
	tests := map[string]string{
		"snake_case": `{"candidates":[{"content":{"role":"model","parts":[{"inline_data":{"mime_type":"image/png","data":"` + pic + `"}}]},"finish_reason":"STOP"}]}`,
		"thought draft first": `{"candidates":[{"content":{"parts":[{"thought":true,"inlineData":{"mimeType":"image/png","data":"bm90IGFuIGltYWdl"}},` +
			`{"inlineData":{"mimeType":"image/png","data":"` + pic + `"}}]},"finishReason":"STOP"}]}`,
		"URL-safe base64": `{"candidates":[{"content":{"parts":[{"text":"Sure!"},{"inlineData":{"mimeType":"image/png","data":"` +
			base64.URLEncoding.EncodeToString(providerfake.PNG(300, 200, "url-safe-\xff\xfe")) + `"}}]}}]}`,
	}
	for name, body := range tests {
		t.Run(name, func(t *testing.T) {
			fake := providerfake.NewGemini(t)
			fake.FailNext(http.StatusOK, body)
			res, err := newClient(t, fake, nil).Generate(t.Context(), engine.Request{Prompt: "x", Aspect: thumbnail.Landscape})
			if err != nil {
				t.Fatal(err)
			}
			providerfake.CheckThumbnail(t, res, thumbnail.Landscape)
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   error // nil: a plain error, neither sentinel
	}{
		{"prompt blocked", 200, `{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},"usageMetadata":{"promptTokenCount":12}}`, engine.ErrRejected},
		{"image safety", 200, `{"candidates":[{"finishReason":"IMAGE_SAFETY","index":0}]}`, engine.ErrRejected},
		{"safety", 200, `{"candidates":[{"content":{"parts":[]},"finishReason":"SAFETY"}]}`, engine.ErrRejected},
		{"words only", 200, `{"candidates":[{"content":{"role":"model","parts":[{"text":"I can't draw that."}]},"finishReason":"STOP"}]}`, engine.ErrRejected},
		{"no candidates", 200, `{}`, engine.ErrUnavailable},
		{"no image", 200, `{"candidates":[{"content":{"parts":[{"text":"Here you go"}]},"finishReason":"NO_IMAGE"}]}`, engine.ErrUnavailable},
		{"other", 200, `{"candidates":[{"finishReason":"OTHER"}]}`, engine.ErrUnavailable},
		{"image other", 200, `{"candidates":[{"finishReason":"IMAGE_OTHER"}]}`, engine.ErrUnavailable},
		{"max tokens", 200, `{"candidates":[{"finishReason":"MAX_TOKENS"}]}`, engine.ErrUnavailable},
		{"recitation", 200, `{"candidates":[{"finishReason":"RECITATION"}]}`, engine.ErrUnavailable},
		{"model shut down", 404, providerfake.GeminiError(404, "NOT_FOUND", "models/gemini-3.1-flash-image is not found for API version v1beta"), engine.ErrModelMissing},
		{"exhausted", 429, providerfake.GeminiError(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota."), engine.ErrUnavailable},
		{"internal", 500, providerfake.GeminiError(500, "INTERNAL", "An internal error has occurred."), engine.ErrUnavailable},
		{"overloaded", 503, providerfake.GeminiError(503, "UNAVAILABLE", "The model is overloaded. Please try again later."), engine.ErrUnavailable},
		{"deadline", 504, providerfake.GeminiError(504, "DEADLINE_EXCEEDED", "Deadline exceeded."), engine.ErrUnavailable},
		{"invalid", 400, providerfake.GeminiError(400, "INVALID_ARGUMENT", "Request contains an invalid argument."), nil},
		{"denied", 403, providerfake.GeminiError(403, "PERMISSION_DENIED", "Permission denied."), nil},
		{"malformed JSON", 200, `{"candidates":[`, nil},
		{"not a picture", 200, `{"candidates":[{"content":{"parts":[{"inlineData":{"mimeType":"image/png","data":"aGVsbG8="}}]}}]}`, nil},
		{"not base64", 200, `{"candidates":[{"content":{"parts":[{"inlineData":{"mimeType":"image/png","data":"%%%"}}]}}]}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := providerfake.NewGemini(t)
			if tt.name == "not base64" {
				fake.BreakNext(tt.status, tt.body)
			} else {
				fake.FailNext(tt.status, tt.body)
			}
			_, err := newClient(t, fake, nil).Generate(t.Context(), engine.Request{Prompt: "x", Aspect: thumbnail.Landscape})
			providerfake.CheckError(t, err, tt.want, fake.Key())
			lastCall(t, fake)
		})
	}
}

// A shut-down model is refused by the fake the way the API refuses it,
// and the adapter says the model is missing; the lookup agrees.
func TestShutDownModel(t *testing.T) {
	fake := providerfake.NewGemini(t)
	c := newClient(t, fake, func(cfg *gemini.Config) { cfg.Model = "gemini-2.5-flash-image" })
	_, err := c.Generate(t.Context(), engine.Request{Prompt: "x", Aspect: thumbnail.Landscape})
	providerfake.CheckError(t, err, engine.ErrModelMissing, fake.Key())
	if err := c.CheckModel(t.Context()); !errors.Is(err, vendorapi.ErrModelMissing) {
		t.Errorf("CheckModel = %v, want ErrModelMissing", err)
	}
	if err := newClient(t, fake, nil).CheckModel(t.Context()); err != nil {
		t.Errorf("CheckModel of the default = %v", err)
	}
}

func TestTimeoutAndRefusedKey(t *testing.T) {
	fake := providerfake.NewGemini(t)
	fake.StallNext()
	c := newClient(t, fake, func(cfg *gemini.Config) { cfg.Timeout = 200 * time.Millisecond })
	_, err := c.Generate(t.Context(), engine.Request{Prompt: "x", Aspect: thumbnail.Portrait})
	providerfake.CheckError(t, err, engine.ErrUnavailable, fake.Key())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the deadline as its cause", err)
	}

	c = newClient(t, fake, func(cfg *gemini.Config) { cfg.APIKey = "AIza-wrong" })
	_, err = c.Generate(t.Context(), engine.Request{Prompt: "x", Aspect: thumbnail.Portrait})
	providerfake.CheckError(t, err, nil, "AIza-wrong")
	if !strings.Contains(err.Error(), "API key not valid") {
		t.Errorf("err = %v, want the provider's message", err)
	}
}

func TestNew(t *testing.T) {
	if _, err := gemini.New(gemini.Config{BaseURL: "https://example.com"}); err == nil {
		t.Error("New accepted a config without a key")
	}
	if _, err := gemini.New(gemini.Config{APIKey: "k", Timeout: -1}); err == nil {
		t.Error("New accepted a negative timeout")
	}
	c, err := gemini.New(gemini.Config{APIKey: "k"})
	if err != nil || c.Name() != "gemini" {
		t.Errorf("New with defaults: %v, %v", c, err)
	}
}
