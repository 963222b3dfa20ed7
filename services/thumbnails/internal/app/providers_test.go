package app_test

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"hookline.dev/pkg/ai/chatmodel"
	"hookline.dev/pkg/ai/chatmodel/chatfake"
	"hookline.dev/pkg/testkit"
	"hookline.dev/services/thumbnails/internal/generate/providerfake"
	"hookline.dev/services/thumbnails/internal/generate/providerkit"
)

// get fetches url and returns its status, Retry-After and body.
func get(t *testing.T, method, url string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After"), string(body)
}

// The day Gemini shuts the configured models down: /readyz says degraded
// with each model's name (still 200, so the pod keeps serving), the
// metric is 1 for each, POST /thumbnails answers 201 from the local
// engine with a warning; restoring the models clears it all without a
// restart.
func TestMissingModelFallsBackToLocalAndRecovers(t *testing.T) {
	fake := providerfake.NewGemini(t)
	model := providerkit.GeminiImages.Default
	fake.Retire(model)
	text := chatfake.New(t, "AIza-text")
	textModel := chatmodel.Catalogues[chatmodel.Gemini].Default
	text.Retire(textModel)
	debug := testkit.ReservePort(t)
	h := newHarness(t, "HOOKLINE_IMAGE_PROVIDER", "gemini", "HOOKLINE_IMAGE_BASE_URL", fake.URL()+"/v1beta",
		"HOOKLINE_IMAGE_API_KEY", fake.Key(), "HOOKLINE_MODEL_CHECK_INTERVAL", "200ms", "HOOKLINE_DEBUG_ADDR", debug.InProcess(t),
		"HOOKLINE_TEXT_PROVIDER", "gemini", "HOOKLINE_TEXT_BASE_URL", text.URL, "HOOKLINE_TEXT_API_KEY", "AIza-text")
	org := h.openAccount("pro")

	// gauge is the metric's value for a model, "" when it is not exported.
	series := regexp.MustCompile(`(?m)^hookline_provider_model_missing\{([^}]*)\} (\d+)$`)
	state := func() (body string, gauge map[string]string) {
		status, _, body := get(t, http.MethodGet, h.URL+"/readyz")
		if status != 200 {
			t.Fatalf("readyz %d %s", status, body)
		}
		_, _, metrics := get(t, http.MethodGet, "http://"+debug.Addr+"/metrics")
		gauge = map[string]string{}
		for _, m := range series.FindAllStringSubmatch(metrics, -1) {
			for _, name := range []string{model, textModel} {
				if strings.Contains(m[1], `model="`+name+`"`) {
					gauge[name] = m[2]
				}
			}
		}
		return body, gauge
	}
	testkit.Eventually(t, 20*time.Second, "readyz degraded", func() bool {
		body, gauge := state()
		return strings.Contains(body, `"status":"degraded"`) && strings.Contains(body, model) && strings.Contains(body, textModel) &&
			gauge[model] == "1" && gauge[textModel] == "1"
	})

	var th thumb
	var out struct {
		thumb
		Warning string `json:"warning"`
	}
	h.Must(201, "POST", "/thumbnails", org, map[string]any{"prompt": "budget GPUs ranked", "aspectRatio": "16:9"}).Into(t, &out)
	th = out.thumb
	if th.Engine != "local" || !strings.Contains(out.Warning, model) {
		t.Fatalf("made by %q with warning %q, want local naming %s", th.Engine, out.Warning, model)
	}
	for _, c := range fake.Calls() {
		if c.Status == 200 {
			t.Fatalf("the retired model drew: %+v", c)
		}
	}

	out.Warning = ""
	fake.Restore(model)
	text.Restore(textModel)
	testkit.Eventually(t, 20*time.Second, "readyz ready again", func() bool {
		body, gauge := state()
		return strings.Contains(body, `"status":"ready"`) && gauge[model] == "0" && gauge[textModel] == "0"
	})
	h.Must(201, "POST", "/thumbnails", org, map[string]any{"prompt": "budget GPUs ranked again", "aspectRatio": "16:9"}).Into(t, &out)
	if out.Engine != "gemini" || out.Warning != "" {
		t.Fatalf("after the restore: engine %q warning %q", out.Engine, out.Warning)
	}
	if b := h.balance(org); b != proCredits-2 {
		t.Fatalf("balance %d, want %d", b, proCredits-2)
	}
}

// Each fake's quota-exhausted, rate-limited, refused and image-less
// answers give the documented status and code, with nothing charged; a
// rate limit is waited out and the picture made (and paid).
func TestProviderFailuresThroughTheService(t *testing.T) {
	type failure struct {
		name   string
		status int
		header http.Header
		body   string
		// want: the answer's status and code, its Retry-After; 201 means
		// the picture was made and paid.
		want       int
		code       string
		retryAfter string
	}
	gemini := []failure{
		{"quota", 429, http.Header{"Retry-After": {"120"}}, providerfake.GeminiError(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota, please check your plan and billing details."), 503, "provider_unavailable", "120"},
		{"quota without Retry-After", 429, nil, providerfake.GeminiError(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota."), 503, "provider_unavailable", ""},
		{"refused", 200, nil, `{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"}}`, 400, "unsupported_prompt", ""},
		{"no image", 200, nil, `{"candidates":[{"finishReason":"NO_IMAGE"}]}`, 503, "provider_unavailable", ""},
		{"rate limited", 429, http.Header{"Retry-After": {"1"}}, `{"error":{"code":429,"message":"Quota exceeded for metric requests per minute.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerMinutePerProjectPerModel"}]}]}}`, 201, "", ""},
	}
	openai := []failure{
		{"quota", 429, http.Header{"Retry-After": {"30"}}, providerfake.OpenAIError("insufficient_quota", "insufficient_quota", "You exceeded your current quota, please check your plan and billing details."), 503, "provider_unavailable", "30"},
		{"refused", 400, nil, providerfake.OpenAIError("image_generation_user_error", "moderation_blocked", "Your request was rejected by the safety system."), 400, "unsupported_prompt", ""},
		{"no image", 200, nil, `{"created":1,"data":[]}`, 503, "provider_unavailable", ""},
		{"rate limited", 429, http.Header{"Retry-After-Ms": {"50"}}, providerfake.OpenAIError("requests", "rate_limit_exceeded", "Rate limit reached for gpt-image-2."), 201, "", ""},
	}
	for _, provider := range []string{"gemini", "openai"} {
		t.Run(provider, func(t *testing.T) {
			var (
				url, key string
				failNext func(int, http.Header, string)
				cases    = gemini
			)
			if provider == "gemini" {
				f := providerfake.NewGemini(t)
				url, key, failNext = f.URL(), f.Key(), f.FailNextWith
			} else {
				f := providerfake.NewOpenAI(t)
				url, key, failNext, cases = f.URL()+"/v1", f.Key(), f.FailNextWith, openai
			}
			h := newHarness(t, "HOOKLINE_IMAGE_PROVIDER", provider, "HOOKLINE_IMAGE_BASE_URL", url, "HOOKLINE_IMAGE_API_KEY", key)
			org := h.openAccount("pro")
			paid := 0
			for _, c := range cases {
				failNext(c.status, c.header, c.body)
				r := h.Do("POST", "/thumbnails", org, map[string]any{"prompt": "budget GPUs " + c.name, "aspectRatio": "16:9"})
				if r.Status != c.want || r.Code != c.code {
					t.Fatalf("%s: answer %d %s %v, want %d %s", c.name, r.Status, r.Code, r.Details, c.want, c.code)
				}
				if got, _ := r.Details["retryAfter"].(float64); c.retryAfter != "" && got == 0 || c.retryAfter == "" && got != 0 {
					t.Errorf("%s: details.retryAfter %v, want %q", c.name, r.Details["retryAfter"], c.retryAfter)
				}
				if r.Status == 201 {
					paid++
				}
				if b := h.balance(org); b != int64(proCredits-paid) {
					t.Fatalf("%s: balance %d, want %d: a failed request was charged", c.name, b, proCredits-paid)
				}
			}
		})
	}
}
