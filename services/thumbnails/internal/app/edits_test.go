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
	fake.FailNext(500, `{"error":{"message":"boom","type":"server_error"}}`)
	h.Must(503, "POST", "/thumbnails/edit", org, map[string]any{"imageUrl": src, "prompt": "paint it like van gogh"})
	h.settledInBilling(org)
	if b := h.balance(org); b != proCredits-2 {
		t.Fatalf("balance %d, want %d: two edits paid, the failed one refunded", b, proCredits-2)
	}
}
