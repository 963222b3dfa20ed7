package app_test

import (
	"fmt"
	"strings"
	"testing"

	"hookline.dev/services/thumbnails/internal/generate/providerfake"
)

// With an image provider configured, an edit prompt outside the local
// grammar goes to the provider's edits endpoint with the source; one
// inside it stays local. Each costs 1 credit; a provider failure refunds.
func TestEditsBeyondTheGrammarGoToTheProvider(t *testing.T) {
	fake := providerfake.NewOpenAI(t)
	h := newHarness(t, "HOOKLINE_IMAGE_PROVIDER", "openai", "HOOKLINE_IMAGE_BASE_URL", fake.URL(), "HOOKLINE_IMAGE_API_KEY", fake.Key())
	org := h.openAccount("pro")
	src := h.PutObject(fmt.Sprintf("orgs/%s/uploads/source.jpg", org), "image/jpeg", providerfake.JPEG(1280, 720, "source"))

	var out struct {
		ID, Engine, Operation string
		CreditsCost           int
	}
	h.Must(201, "POST", "/thumbnails/edit", org, map[string]any{"imageUrl": src, "prompt": "turn the sky into a galaxy"}).Into(t, &out)
	calls := fake.Calls()
	if out.Engine != "openai" || out.CreditsCost != 1 || out.Operation != "edit" || len(calls) != 1 ||
		calls[0].Endpoint != "edits" || !strings.Contains(calls[0].Prompt, "galaxy") {
		t.Fatalf("provider edit %+v, calls %+v", out, calls)
	}
	h.Must(201, "POST", "/thumbnails/edit", org, map[string]any{"imageUrl": src, "prompt": "brighter and mirror"}).Into(t, &out)
	if out.Engine != "local" || len(fake.Calls()) != 1 {
		t.Fatalf("grammar edit %+v, %d provider calls", out, len(fake.Calls()))
	}
	fake.FailNext(500, providerfake.OpenAIError("server_error", "", "boom"))
	h.Must(503, "POST", "/thumbnails/edit", org, map[string]any{"imageUrl": src, "prompt": "paint it like van gogh"})
	h.settledInBilling(org)
	if b := h.balance(org); b != proCredits-2 {
		t.Fatalf("balance %d, want %d: two edits paid, the failed one refunded", b, proCredits-2)
	}
}

// A prompt written as a person writes it goes through: every operation
// it names is applied and listed in applied, on the response and on the
// stored thumbnail; a prompt in which nothing is recognised is refused
// before any credit is reserved.
func TestFreeTextPrompts(t *testing.T) {
	h := newHarness(t)
	org := h.openAccount("pro")
	src := h.PutObject(fmt.Sprintf("orgs/%s/uploads/source.jpg", org), "image/jpeg", providerfake.JPEG(640, 360, "source"))

	var out struct {
		ID, Operation string
		Applied       []string
		CreditsCost   int
	}
	r := h.Must(201, "POST", "/thumbnails/edit/filter", org, map[string]any{"imageUrl": src, "filterPrompt": "Vintage film look with grain, but no vignette please"})
	r.Into(t, &out)
	if out.Operation != "filter" || strings.Join(out.Applied, "|") != "vintage|film grain" || out.CreditsCost != 0 {
		t.Fatalf("filter result %+v", out)
	}
	var stored struct{ Applied []string }
	h.Must(200, "GET", "/thumbnails/"+out.ID, org, nil).Into(t, &stored)
	if strings.Join(stored.Applied, "|") != "vintage|film grain" {
		t.Fatalf("stored applied %q", stored.Applied)
	}
	checkFields(t, h.Must(200, "GET", "/thumbnails/"+out.ID, org, nil).Data)

	h.Must(201, "POST", "/thumbnails/edit", org, map[string]any{"imageUrl": src,
		"prompt": "add the text HOUSTON WE HAVE A PROBLEM in big yellow letters"}).Into(t, &out)
	if want := `add text "HOUSTON WE HAVE A PROBLEM" yellow big`; strings.Join(out.Applied, "|") != want || out.CreditsCost != 1 {
		t.Fatalf("edit result %+v, want applied %s", out, want)
	}
	h.settledInBilling(org)
	before, reserved := h.balance(org), h.reservations(org)

	for _, tc := range []struct{ path, field, prompt string }{
		{"/thumbnails/edit", "prompt", "make it look like a dream I had once"},
		{"/thumbnails/edit/filter", "filterPrompt", "no grain"},
		{"/thumbnails/edit/combine", "prompt", "arrange them nicely"},
		{"/thumbnails/edit/background-replace", "backgroundPrompt", "somewhere nice"},
	} {
		body := map[string]any{"imageUrl": src, tc.field: tc.prompt}
		if strings.HasSuffix(tc.path, "combine") {
			body = map[string]any{"imageUrl1": src, "imageUrl2": src, tc.field: tc.prompt}
		}
		r := h.Must(400, "POST", tc.path, org, body)
		if r.Code != "unsupported_prompt" || r.Field(tc.field) == "" && !strings.Contains(string(r.Raw), tc.field) {
			t.Errorf("%s %q: %s", tc.path, tc.prompt, r.Raw)
		}
	}
	if n := h.reservations(org); n != reserved {
		t.Fatalf("%d reservations after the refusals, want %d", n, reserved)
	}
	if b := h.balance(org); b != before {
		t.Fatalf("balance %d after the refusals, want %d", b, before)
	}
}
