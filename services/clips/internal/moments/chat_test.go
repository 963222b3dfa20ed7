package moments

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"hookline.dev/pkg/ai/chatmodel"
	"hookline.dev/pkg/ai/chatmodel/chatfake"
)

func TestChatWordsTheLocalChoice(t *testing.T) {
	fake := chatfake.New(t, "k")
	m, err := chatmodel.New(chatmodel.Config{Provider: chatmodel.OpenAI, APIKey: "k", BaseURL: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	c := NewEngine(m, nil)
	in := Input{Segments: transcript(60, 20)}
	local := Rank(in)
	answer := func(title string) string {
		type item struct {
			ID    string `json:"id"`
			Title string `json:"title"`
			Hook  string `json:"hook"`
		}
		var items []item
		for _, cl := range local.Clips {
			items = append(items, item{ID: cl.ID, Title: title, Hook: "Nine in ten roofs are wrong."})
		}
		b, _ := json.Marshal(map[string]any{"clips": items})
		return string(b)
	}

	fake.Push(chatfake.Reply{Content: answer("Nine in ten solar roofs are wrong")})
	res, err := c.Rank(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Analysis.Engine != m.Name() || res.Clips[0].Title != "Nine in ten solar roofs are wrong" || res.Clips[0].ID != local.Clips[0].ID {
		t.Fatalf("chat result %+v", res)
	}
	if call := fake.Calls()[0]; !strings.Contains(call.User, local.Clips[0].ID) || !strings.Contains(call.User, "9 out of 10") {
		t.Errorf("the model was not shown the clips: %s", call.User)
	}

	// A title over 70 characters twice: the local wording, and it says so.
	long := strings.Repeat("too long ", 10)
	fake.Push(chatfake.Reply{Content: answer(long)}, chatfake.Reply{Content: "{not json"})
	res, err = c.Rank(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Analysis.Engine, "local (fallback: ") || res.Clips[0].Title != local.Clips[0].Title {
		t.Fatalf("fallback %+v", res.Analysis)
	}

	// Unreachable: asked once, local wording.
	fake.Push(chatfake.Reply{Status: 503, Content: "overloaded"})
	before := len(fake.Calls())
	if res, _ = c.Rank(context.Background(), in); !strings.Contains(res.Analysis.Engine, "unavailable") || len(fake.Calls()) != before+1 {
		t.Fatalf("unavailable: %+v after %d calls", res.Analysis, len(fake.Calls())-before)
	}
}

// With a prompt, the model names the matching sentences; an answer that
// holds is the match (the moment comes first), one that names a sentence
// at other times or one that does not exist is refused, twice, and the
// word matching stands: nothing is invented.
func TestChatFindsThePromptAndIsHeldToTheTranscript(t *testing.T) {
	fake := chatfake.New(t, "k")
	m, err := chatmodel.New(chatmodel.Config{Provider: chatmodel.OpenAI, APIKey: "k", BaseURL: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	c := NewEngine(m, nil)
	in := Input{Segments: transcript(60, 20), Prompt: "when the electrical work gets checked"}
	d := prepare(in)
	k := -1
	for i, s := range d.sents {
		if i > 40 && strings.Contains(s.text, "electrician") {
			k = i
			break
		}
	}
	answer := func(sentence int, start, end float64, quote string) chatfake.Reply {
		b, _ := json.Marshal(map[string]any{"moments": []any{map[string]any{"sentence": sentence, "start": start, "end": end, "quote": quote}}})
		return chatfake.Reply{Content: string(b)}
	}
	s := d.sents[k]
	fake.Push(answer(k, s.start, s.end, "checked the wiring with the electrician"))
	res, err := c.Rank(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	top := res.Clips[0]
	if top.Match == nil || !top.Match.Matched || top.Start > s.start || top.End < s.end || top.Match.Quote != s.text {
		t.Fatalf("top clip %.0f–%.0f match %+v, want sentence %d at %.0f–%.0f", top.Start, top.End, top.Match, k, s.start, s.end)
	}
	if call := fake.Calls()[0]; !strings.Contains(call.User, fmt.Sprintf("[%d] (%.1f–%.1f) %s", k, s.start, s.end, s.text)) {
		t.Errorf("the model was not shown the timed sentences: %.300s", call.User)
	}
	for _, cl := range res.Clips[1:] {
		if cl.Match.Matched {
			t.Errorf("clip %.0f–%.0f matches what the model did not name: %+v", cl.Start, cl.End, cl.Match)
		}
	}

	// Wrong times, then a sentence that does not exist: refused.
	fake.Push(answer(k, s.start+30, s.end+30, "checked the wiring"), answer(len(d.sents)+5, 0, 4, "a moment"))
	res, err = c.Rank(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	local := Rank(in)
	for i, cl := range res.Clips {
		if cl.ID != local.Clips[i].ID || cl.Match.Matched != local.Clips[i].Match.Matched {
			t.Errorf("after refused answers clip %d is %s %+v, the word matching gives %s %+v", i, cl.ID, cl.Match, local.Clips[i].ID, local.Clips[i].Match)
		}
	}
}
