package moments

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"hookline.dev/pkg/chatmodel"
	"hookline.dev/pkg/chatmodel/chatfake"
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
