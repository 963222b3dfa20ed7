package fallback_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/fallback"
	"hookline.dev/services/thumbnails/internal/generate/gemini"
	"hookline.dev/services/thumbnails/internal/generate/providerfake"
	"hookline.dev/services/thumbnails/internal/generate/providerkit"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// local stands for the compositor: it answers a fixed-size picture.
type local struct{ calls int }

func (*local) Name() string { return "local" }
func (l *local) Generate(context.Context, engine.Request) (engine.Result, error) {
	l.calls++
	return engine.Result{Data: []byte("jpeg"), ContentType: "image/jpeg", Width: 1280, Height: 720}, nil
}
func (l *local) Vary(ctx context.Context, req engine.Request) (engine.Result, error) {
	return l.Generate(ctx, req)
}

// A model retired between two lookups is found by the call itself: that
// request and the next are drawn locally, with the warning, and the watch
// says degraded until a lookup finds the model again.
func TestModelRetiredBetweenLookups(t *testing.T) {
	fake := providerfake.NewGemini(t)
	p, err := gemini.New(gemini.Config{APIKey: fake.Key(), BaseURL: fake.URL()})
	if err != nil {
		t.Fatal(err)
	}
	l := &local{}
	e := fallback.New(p, l, slog.New(slog.DiscardHandler))
	e.Check(t.Context())
	req := engine.Request{Prompt: "x", Aspect: thumbnail.Landscape}
	if res, err := e.Generate(t.Context(), req); err != nil || res.Engine != "" || l.calls != 0 {
		t.Fatalf("with the model: %+v %v, %d local calls", res.Engine, err, l.calls)
	}
	fake.Retire(providerkit.GeminiImages.Default)
	for range 2 {
		res, err := e.Generate(t.Context(), req)
		if err != nil || res.Engine != "local" || !strings.Contains(res.Warning, providerkit.GeminiImages.Default) {
			t.Fatalf("after the retirement: %+v %v", res, err)
		}
	}
	if l.calls != 2 || len(fake.Calls()) != 2 || e.Degraded() == nil {
		t.Fatalf("%d local calls, %d provider calls, degraded %v", l.calls, len(fake.Calls()), e.Degraded())
	}
	fake.Restore(providerkit.GeminiImages.Default)
	e.Check(t.Context())
	if res, err := e.Vary(t.Context(), engine.Request{Prompt: "x", Aspect: thumbnail.Landscape, Parent: &engine.Picture{Data: providerfake.JPEG(64, 36, "p")}}); err != nil || res.Engine != "" || e.Degraded() != nil {
		t.Fatalf("after the restore: %+v %v", res.Engine, err)
	}
}
