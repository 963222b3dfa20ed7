package translate

import (
	"context"
	"strings"
	"testing"

	"hookline.dev/pkg/ai/chatmodel"
	"hookline.dev/pkg/ai/chatmodel/chatfake"
)

func TestProviderTranslatesBySentenceKeepingNumbersAndNames(t *testing.T) {
	fake := chatfake.New(t, "k")
	m, err := chatmodel.New(chatmodel.Config{Provider: chatmodel.OpenAI, APIKey: "k", BaseURL: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	p := &Provider{Model: m}
	ws := timed("Pay yourself first and move 10 percent to savings. Maria says so", nil)
	ts := Translators{p}

	// The model drops "10" once: asked again, and the second answer stands.
	fake.Push(chatfake.Reply{Content: `{"sentences":[{"id":0,"text":"Págate primero y pasa un diez por ciento al ahorro."},{"id":1,"text":"Lo dice Maria"}]}`},
		chatfake.Reply{Content: `{"sentences":[{"id":1,"text":"Lo dice Maria"},{"id":0,"text":"Págate primero y pasa el 10 por ciento al ahorro."}]}`})
	res, err := ts.Captions(context.Background(), "en", "es", ws, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Engine != "provider" || res.Quality != Fluent || res.Language != "es" {
		t.Errorf("translation %+v", res.Translation)
	}
	var got []string
	for _, w := range res.Words {
		got = append(got, w.Text)
	}
	if strings.Join(got, " ") != "Págate primero y pasa el 10 por ciento al ahorro. Lo dice Maria" {
		t.Errorf("words %q", got)
	}
	if last := res.Words[len(res.Words)-1]; last.End != ws[len(ws)-1].End {
		t.Errorf("the last word ends at %v, the sentence at %v", last.End, ws[len(ws)-1].End)
	}
	calls := fake.Calls()
	if len(calls) != 2 || !strings.Contains(calls[0].User, "into Spanish") || !strings.Contains(calls[0].User, "keep as written: 10") ||
		!strings.Contains(calls[0].User, "1: Maria says so") {
		t.Errorf("the model was asked %d times: %+v", len(calls), calls)
	}

	// Unreachable: the translation fails (the next engine, if any, translates).
	fake.Push(chatfake.Reply{Status: 503, Content: "overloaded"})
	if _, err := ts.Captions(context.Background(), "en", "es", ws, ""); err == nil {
		t.Error("an unreachable provider translated")
	}
	if _, err := p.Translate(context.Background(), "en", "xx", nil); err == nil {
		t.Error("an unknown language was asked for")
	}
}
