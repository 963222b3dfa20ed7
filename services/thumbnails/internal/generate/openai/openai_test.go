package openai_test

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/openai"
	"hookline.dev/services/thumbnails/internal/generate/providerfake"
	"hookline.dev/services/thumbnails/internal/generate/providerkit"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

func client(t *testing.T, fake *providerfake.OpenAI, timeout time.Duration) *openai.Client {
	t.Helper()
	c, err := openai.New(openai.Config{APIKey: fake.Key(), BaseURL: fake.URL(), Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func onlyCall(t *testing.T, fake *providerfake.OpenAI) providerfake.OpenAICall {
	t.Helper()
	calls := fake.Calls()
	if len(calls) != 1 {
		t.Fatalf("%d calls, want 1: %+v", len(calls), calls)
	}
	if calls[0].Problem != "" {
		t.Fatalf("the fake refused the request: %s", calls[0].Problem)
	}
	return calls[0]
}

func TestGenerateTextOnlyUsesGenerations(t *testing.T) {
	fake := providerfake.NewOpenAI(t)
	req := providerfake.Sample(thumbnail.Landscape)
	req.Faces, req.References, req.Brand.Logo = nil, nil, nil

	res, err := client(t, fake, 0).Generate(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	providerfake.CheckThumbnail(t, res, thumbnail.Landscape)
	c := onlyCall(t, fake)
	want := providerfake.OpenAICall{
		Endpoint: "generations", Model: "gpt-image-2", Prompt: c.Prompt, N: 1, Size: "1536x864",
		Quality: "medium", OutputFormat: "jpeg", Outcome: providerfake.Outcome{Status: http.StatusOK},
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("call %+v\nwant %+v", c, want)
	}
	for _, s := range []string{"I tried every budget GPU", "Neon night", "#FF0099", "Byte Bench", "#123456"} {
		if !strings.Contains(c.Prompt, s) {
			t.Errorf("prompt lacks %q:\n%s", s, c.Prompt)
		}
	}
}

func TestGenerateWithImagesUsesEdits(t *testing.T) {
	// Every model of the catalogue, each through a base URL written
	// another way: with a trailing slash, with /v1.
	for i, model := range append([]string{""}, providerkit.OpenAIImages.Names()...) {
		t.Run(model, func(t *testing.T) {
			fake := providerfake.NewOpenAI(t)
			base := []string{fake.URL() + "/", fake.URL() + "/v1", fake.URL() + "/v1/"}[i%3]
			c, err := openai.New(openai.Config{APIKey: fake.Key(), BaseURL: base, Model: model})
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Generate(t.Context(), providerfake.Sample(thumbnail.Portrait))
			if err != nil {
				t.Fatal(err)
			}
			providerfake.CheckThumbnail(t, res, thumbnail.Portrait)
			call := onlyCall(t, fake)
			m, _ := providerkit.OpenAIImages.Lookup(cmp.Or(model, providerkit.OpenAIImages.Default))
			fidelity := map[bool]string{true: "high"}[m.InputFidelity]
			if call.Endpoint != "edits" || call.Model != m.Name || call.Size != m.Size(thumbnail.Portrait).String() ||
				call.Quality != "medium" || call.OutputFormat != "jpeg" || call.InputFidelity != fidelity || call.N != 1 {
				t.Errorf("call %+v", call)
			}
			// Alex (JPEG), Sam (PNG), the logo (PNG), the reference (JPEG).
			var got []string
			for _, u := range call.Images {
				got = append(got, u.ContentType+" "+u.Format)
			}
			want := []string{"image/jpeg jpeg", "image/png png", "image/png png", "image/jpeg jpeg"}
			if !slices.Equal(got, want) {
				t.Errorf("images %v, want %v", got, want)
			}
			if !strings.Contains(call.Prompt, "Images 1–2 show the 2 people (Alex, Sam)") {
				t.Errorf("prompt does not name the faces:\n%s", call.Prompt)
			}
		})
	}
}

func TestVary(t *testing.T) {
	fake := providerfake.NewOpenAI(t)
	c := client(t, fake, 0)
	req := engine.Request{Prompt: "budget GPUs", Tweak: "red background", Aspect: thumbnail.Landscape, Seed: 7,
		Parent: &engine.Picture{Data: providerfake.JPEG(1280, 720, "parent")}}

	res, err := c.Vary(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	providerfake.CheckThumbnail(t, res, thumbnail.Landscape)
	call := onlyCall(t, fake)
	if call.Endpoint != "edits" || len(call.Images) != 1 || call.Images[0].Width != 1280 || call.InputFidelity != "" {
		t.Errorf("call %+v", call)
	}
	for _, s := range []string{"Image 1 is the thumbnail to vary", "Change requested: red background"} {
		if !strings.Contains(call.Prompt, s) {
			t.Errorf("prompt lacks %q:\n%s", s, call.Prompt)
		}
	}

	req.Parent = nil
	if _, err := c.Vary(t.Context(), req); err == nil || errors.Is(err, engine.ErrUnavailable) {
		t.Errorf("Vary without a parent: %v, want a plain error", err)
	}
	if n := len(fake.Calls()); n != 1 {
		t.Errorf("Vary without a parent called the API (%d calls)", n)
	}
}

func TestErrors(t *testing.T) {
	moderation := providerfake.OpenAIError("image_generation_user_error", "moderation_blocked",
		"Your request was rejected as a result of our safety system. Your request may contain content that is not allowed by our safety system.")
	tests := []struct {
		name   string
		status int
		body   string
		want   error // nil: a plain error, neither sentinel
	}{
		{"quota spent", 429, providerfake.OpenAIError("insufficient_quota", "insufficient_quota", "You exceeded your current quota, please check your plan and billing details."), engine.ErrUnavailable},
		{"model gone", 404, providerfake.OpenAIError("invalid_request_error", "model_not_found", "The model 'gpt-image-2' does not exist or you do not have access to it."), engine.ErrModelMissing},
		{"server error", 500, providerfake.OpenAIError("server_error", "", "The server had an error while processing your request."), engine.ErrUnavailable},
		{"overloaded, HTML", 503, "<html>Service Unavailable</html>", engine.ErrUnavailable},
		{"moderation", 400, moderation, engine.ErrRejected},
		{"content policy", 400, providerfake.OpenAIError("invalid_request_error", "content_policy_violation", "Your request was rejected."), engine.ErrRejected},
		{"safety without a code", 400, providerfake.OpenAIError("image_generation_user_error", "", "Rejected by the safety system."), engine.ErrRejected},
		{"bad parameter", 400, providerfake.OpenAIError("invalid_request_error", "invalid_value", "Invalid value: 'huge'."), nil},
		{"unauthorised", 401, providerfake.OpenAIError("invalid_request_error", "invalid_api_key", "Incorrect API key provided."), nil},
		{"forbidden", 403, providerfake.OpenAIError("invalid_request_error", "", "Your organization must be verified to use gpt-image-1."), nil},
		{"malformed JSON", 200, `{"created": 1, "data": [`, nil},
		{"no image", 200, `{"created": 1, "data": []}`, engine.ErrUnavailable},
		{"not base64", 200, `{"created": 1, "data": [{"b64_json": "%%%"}]}`, nil},
		{"not a picture", 200, `{"created": 1, "data": [{"b64_json": "aGVsbG8="}]}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := providerfake.NewOpenAI(t)
			fake.FailNext(tt.status, tt.body)
			_, err := client(t, fake, 0).Generate(t.Context(), engine.Request{Prompt: "x", Aspect: thumbnail.Landscape})
			providerfake.CheckError(t, err, tt.want, fake.Key())
			onlyCall(t, fake) // the request itself was valid
		})
	}
}

// A rate limit is waited out within the request's deadline: the second
// call draws the picture.
func TestRateLimitIsRetried(t *testing.T) {
	fake := providerfake.NewOpenAI(t)
	fake.FailNextWith(429, http.Header{"Retry-After-Ms": {"30"}}, providerfake.OpenAIError("requests", "rate_limit_exceeded", "Rate limit reached for gpt-image-2"))
	res, err := client(t, fake, 0).Generate(t.Context(), engine.Request{Prompt: "x", Aspect: thumbnail.Landscape})
	if err != nil {
		t.Fatal(err)
	}
	providerfake.CheckThumbnail(t, res, thumbnail.Landscape)
	if calls := fake.Calls(); len(calls) != 2 || calls[0].Status != 429 || calls[1].Status != 200 {
		t.Errorf("calls %+v, want a 429 then a 200", calls)
	}
}

func TestTimeoutIsUnavailable(t *testing.T) {
	fake := providerfake.NewOpenAI(t)
	fake.StallNext()
	_, err := client(t, fake, 200*time.Millisecond).Generate(t.Context(), engine.Request{Prompt: "x", Aspect: thumbnail.Landscape})
	providerfake.CheckError(t, err, engine.ErrUnavailable, fake.Key())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the deadline as its cause", err)
	}
}

func TestWrongKeyAndDeadServer(t *testing.T) {
	fake := providerfake.NewOpenAI(t)
	c, err := openai.New(openai.Config{APIKey: "sk-wrong-key", BaseURL: fake.URL()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Generate(t.Context(), engine.Request{Prompt: "x", Aspect: thumbnail.Landscape})
	providerfake.CheckError(t, err, nil, "sk-wrong-key")
	if calls := fake.Calls(); len(calls) != 1 || calls[0].Status != http.StatusUnauthorized {
		t.Errorf("calls %+v, want one answered 401", calls)
	}

	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	c, err = openai.New(openai.Config{APIKey: fake.Key(), BaseURL: dead.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Generate(t.Context(), engine.Request{Prompt: "x", Aspect: thumbnail.Landscape})
	providerfake.CheckError(t, err, engine.ErrUnavailable, fake.Key())
}

func TestNew(t *testing.T) {
	if _, err := openai.New(openai.Config{}); err == nil || !strings.Contains(err.Error(), "API key") {
		t.Errorf("New without a key: %v", err)
	}
	if _, err := openai.New(openai.Config{APIKey: "k", BaseURL: "not a url"}); err == nil {
		t.Error("New accepted a relative base URL")
	}
	c, err := openai.New(openai.Config{APIKey: "k"})
	if err != nil || c.Name() != "openai" {
		t.Errorf("New with defaults: %v, %v", c, err)
	}
}
