package textai

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"hookline.dev/pkg/ai/chatmodel"
	"hookline.dev/pkg/ai/chatmodel/chatfake"
	"hookline.dev/pkg/ai/nlp"
)

// segmentSeconds is each caption segment's length in the test video.
const segmentSeconds = 4.0

// threeTopics reads testdata/three_topics.txt: captions of three topics,
// each segmentSeconds long, and the indexes where topics two and three
// begin.
func threeTopics(t testing.TB) (segs []nlp.Timed, boundaries []int) {
	t.Helper()
	raw, err := os.ReadFile("../../../../pkg/ai/nlp/testdata/three_topics.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
		case strings.TrimSpace(line) == "":
			if len(segs) > 0 {
				boundaries = append(boundaries, len(segs))
			}
		default:
			start := float64(len(segs)) * segmentSeconds
			segs = append(segs, nlp.Timed{Start: start, End: start + segmentSeconds, Text: line})
		}
	}
	if n := len(boundaries); n > 0 && boundaries[n-1] == len(segs) {
		boundaries = boundaries[:n-1] // the blank line at the end
	}
	return segs, boundaries
}

func source(t testing.TB) Source {
	segs, _ := threeTopics(t)
	texts := make([]string, len(segs))
	for i, s := range segs {
		texts[i] = s.Text
	}
	return Source{Title: "Sourdough, bike chains and Roman aqueducts", Text: strings.Join(texts, " "), Segments: segs, Duration: segs[len(segs)-1].End}
}

func TestConcepts(t *testing.T) {
	a, err := (&Local{}).Concepts(t.Context(), source(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Concepts) != ConceptCount || a.Engine != "local" || a.Summary == "" {
		t.Fatalf("analysis %+v", a)
	}
	seen := map[string]bool{}
	for _, c := range a.Concepts {
		if seen[c.ID] || seen[c.Prompt] || seen[c.HookText] {
			t.Errorf("concept %q repeats another", c.ID)
		}
		seen[c.ID], seen[c.Prompt], seen[c.HookText] = true, true, true
		if c.Title == "" || c.Description == "" || c.TextStyle == "" || c.TextPlacement == "" {
			t.Errorf("concept %+v incomplete", c)
		}
		if h := QuotedHeadline(c.Prompt); h == "" || !strings.Contains(strings.Trim(c.HookText, "“”"), strings.TrimSuffix(h, "…")) {
			t.Errorf("prompt %q does not carry hook %q", c.Prompt, c.HookText)
		}
		if CodePoints(c.Prompt) > 2000 {
			t.Errorf("prompt of %d characters", CodePoints(c.Prompt))
		}
	}
	// The concepts are about what the video says.
	all := strings.ToLower(fmt.Sprint(a.Concepts))
	if !strings.Contains(all, "starter") && !strings.Contains(all, "chain") && !strings.Contains(all, "aqueduct") {
		t.Errorf("concepts name none of the topics: %s", all)
	}
}

func TestTitles(t *testing.T) {
	l := &Local{}
	for _, tc := range []struct {
		keywords []string
		count    int
	}{
		{nil, 10}, {nil, 6}, {[]string{"bicycle chain", "quick link"}, 20}, {[]string{"a keyword of exactly forty characters xx"}, 6},
	} {
		got, err := l.Titles(t.Context(), TitlesInput{Source: source(t), Keywords: tc.keywords, Count: tc.count})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Titles) != tc.count {
			t.Fatalf("%d titles, want %d: %+v", len(got.Titles), tc.count, got.Titles)
		}
		main := strings.ToLower(measure(source(t)).mainKeyword(tc.keywords))
		patterns, early, seen := map[Pattern]bool{}, 0, map[string]bool{}
		for _, x := range got.Titles {
			lt := strings.ToLower(x.Title)
			if CodePoints(x.Title) > MaxTitle || !strings.Contains(lt, main) || seen[lt] || x.Reason == "" {
				t.Errorf("title %q (%d characters, keyword %q, reason %q)", x.Title, CodePoints(x.Title), main, x.Reason)
			}
			if strings.Index(lt, main) <= len(lt)/2 {
				early++
			}
			seen[lt], patterns[x.Pattern] = true, true
		}
		if tc.count >= 6 && len(patterns) != 6 {
			t.Errorf("patterns %v", patterns)
		}
		if early < tc.count*2/3 {
			t.Errorf("only %d of %d titles have the keyword in their first half", early, tc.count)
		}
	}
}

func TestDescription(t *testing.T) {
	src := source(t)
	_, bounds := threeTopics(t)
	d, err := (&Local{}).Description(t.Context(), DescriptionInput{Title: src.Title, Source: src, Keywords: []string{"sourdough"},
		Links: []Link{{Title: "Recipe", URL: "https://example.com/recipe"}}})
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(d.Description, "\n", 2)[0]
	if CodePoints(first) == 0 || CodePoints(first) > MaxHookLine || !strings.Contains(d.Description, "https://example.com/recipe") {
		t.Errorf("description %q", d.Description)
	}
	if n := len(strings.Join(d.Tags, ",")); n > MaxTagsTotal || len(d.Tags) == 0 || d.Tags[0] != "sourdough" {
		t.Errorf("tags %v (%d characters)", d.Tags, n)
	}
	if len(d.Hashtags) < MinHashtags || len(d.Hashtags) > MaxHashtags {
		t.Errorf("hashtags %v", d.Hashtags)
	}
	if d.ChaptersEstimated || len(d.Chapters) < 3 || d.Chapters[0].Start != 0 {
		t.Fatalf("chapters %+v estimated %v", d.Chapters, d.ChaptersEstimated)
	}
	for i := 1; i < len(d.Chapters); i++ {
		if d.Chapters[i].Start-d.Chapters[i-1].Start < MinChapterGap {
			t.Errorf("chapters %v closer than %v s", d.Chapters, MinChapterGap)
		}
	}
	// Each true topic boundary has a chapter within one segment of it.
	for _, b := range bounds {
		at, ok := float64(b)*segmentSeconds, false
		for _, c := range d.Chapters {
			ok = ok || math.Abs(c.Start-at) <= segmentSeconds
		}
		if !ok {
			t.Errorf("no chapter near the topic change at %v s: %+v", at, d.Chapters)
		}
	}
	// A plain transcript's chapters are dated at 150 words per minute.
	plain, err := (&Local{}).Description(t.Context(), DescriptionInput{Title: src.Title, Source: Source{Text: src.Text}})
	if err != nil {
		t.Fatal(err)
	}
	if !plain.ChaptersEstimated || len(plain.Chapters) < 2 || plain.Chapters[0].Start != 0 {
		t.Errorf("plain transcript chapters %+v estimated %v", plain.Chapters, plain.ChaptersEstimated)
	}
}

func TestOptimize(t *testing.T) {
	for idea, want := range map[string]string{
		"me reacting to the worst sourdough loaf ever baked": "SOURDOUGH",
		`a bike repair video titled "CHAIN FIXED"`:           "CHAIN FIXED",
		"5 mistakes everyone makes with bike chains":         "5",
	} {
		o, err := (&Local{}).Optimize(t.Context(), idea)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(o.Headline, want) || QuotedHeadline(o.Prompt) != o.Headline || CodePoints(o.Prompt) > 2000 {
			t.Errorf("%q: %+v", idea, o)
		}
	}
}

func chat(t *testing.T) (*Chat, *chatfake.Server) {
	fake := chatfake.New(t, "k")
	m, err := chatmodel.New(chatmodel.Config{Provider: chatmodel.OpenAI, APIKey: "k", BaseURL: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	return &Chat{Model: m, Local: &Local{}}, fake
}

func TestChatEngine(t *testing.T) {
	good := `{"titles":[` + strings.TrimSuffix(strings.Repeat(`{"title":"Sourdough X","pattern":"how-to","reason":"r"},`, 1), ",") + `]}`
	t.Run("a good answer is used", func(t *testing.T) {
		c, fake := chat(t)
		fake.Push(chatfake.Reply{Content: good})
		got, err := c.Titles(t.Context(), TitlesInput{Source: source(t), Keywords: []string{"sourdough"}, Count: 1})
		if err != nil || got.Engine != "openai:gpt-4o-mini" || got.Titles[0].Title != "Sourdough X" || len(fake.Calls()) != 1 {
			t.Fatalf("%+v %v calls %d", got, err, len(fake.Calls()))
		}
	})
	t.Run("malformed once, then good", func(t *testing.T) {
		c, fake := chat(t)
		fake.Push(chatfake.Reply{Content: "here are your titles!"}, chatfake.Reply{Content: good})
		got, err := c.Titles(t.Context(), TitlesInput{Source: source(t), Keywords: []string{"sourdough"}, Count: 1})
		if err != nil || got.Engine != "openai:gpt-4o-mini" || len(fake.Calls()) != 2 {
			t.Fatalf("%+v %v calls %d", got, err, len(fake.Calls()))
		}
	})
	t.Run("malformed twice falls back to local", func(t *testing.T) {
		c, fake := chat(t)
		fake.Push(chatfake.Reply{Content: "{not json"}, chatfake.Reply{Content: `{"titles":[{"title":"no keyword here","pattern":"how-to","reason":"r"}]}`})
		got, err := c.Titles(t.Context(), TitlesInput{Source: source(t), Keywords: []string{"sourdough"}, Count: 1})
		if err != nil || got.Engine != "local (fallback: openai:gpt-4o-mini answered malformed JSON twice)" || len(got.Titles) != 1 || len(fake.Calls()) != 2 {
			t.Fatalf("%+v %v calls %d", got, err, len(fake.Calls()))
		}
	})
	t.Run("unavailable falls back at once", func(t *testing.T) {
		c, fake := chat(t)
		fake.Push(chatfake.Reply{Status: 503, Content: "overloaded"})
		got, err := c.Concepts(t.Context(), source(t))
		if err != nil || !strings.HasPrefix(got.Engine, "local (fallback: openai:gpt-4o-mini was unavailable") || len(got.Concepts) != 3 || len(fake.Calls()) != 1 {
			t.Fatalf("%+v %v calls %d", got, err, len(fake.Calls()))
		}
	})
	t.Run("a retired model falls back at once and says so", func(t *testing.T) {
		c, fake := chat(t)
		fake.Retire("gpt-4o-mini")
		got, err := c.Concepts(t.Context(), source(t))
		if err != nil || got.Engine != "local (fallback: openai:gpt-4o-mini is a model the provider does not know)" || len(got.Concepts) != 3 {
			t.Fatalf("%+v %v", got, err)
		}
		if n := len(fake.Calls()); n != 0 {
			t.Errorf("%d calls recorded, want none served", n)
		}
	})
	t.Run("description keeps measured chapters", func(t *testing.T) {
		c, fake := chat(t)
		fake.Push(chatfake.Reply{Content: `{"hook":"Three skills in one video.","summary":"Bread, bikes and Rome.","tags":["sourdough","bike chain"],"hashtags":["#Sourdough","#Bike","#Rome"]}`})
		got, err := c.Description(t.Context(), DescriptionInput{Title: "Three skills", Source: source(t)})
		if err != nil || got.Engine != "openai:gpt-4o-mini" || !strings.HasPrefix(got.Description, "Three skills in one video.") || len(got.Chapters) < 3 {
			t.Fatalf("%+v %v", got, err)
		}
	})
	t.Run("optimize", func(t *testing.T) {
		c, fake := chat(t)
		fake.Push(chatfake.Reply{Content: `{"prompt":"A baker holding a burnt loaf, shocked face, warm light","headline":"BURNT?!"}`})
		got, err := c.Optimize(t.Context(), "my bread burnt")
		if err != nil || got.Headline != "BURNT?!" || QuotedHeadline(got.Prompt) != "BURNT?!" {
			t.Fatalf("%+v %v", got, err)
		}
	})
	t.Run("a cancelled request is an error, not a fallback", func(t *testing.T) {
		c, _ := chat(t)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := c.Titles(ctx, TitlesInput{Source: source(t), Count: 3}); err == nil {
			t.Fatal("no error")
		}
	})
}

// sixtyMinutes is a 60-minute transcript of about 9,000 words: the three
// topics repeated, with each pass numbered so the sentences differ.
func sixtyMinutes(b testing.TB) Source {
	segs, _ := threeTopics(b)
	var out []nlp.Timed
	var text strings.Builder
	for pass := 0; len(out) < 900; pass++ {
		for _, s := range segs {
			start := float64(len(out)) * segmentSeconds
			line := fmt.Sprintf("%s Part %d.", s.Text, pass+1)
			out = append(out, nlp.Timed{Start: start, End: start + segmentSeconds, Text: line})
			text.WriteString(line + " ")
		}
	}
	return Source{Title: "An hour of craft", Text: text.String(), Segments: out, Duration: out[len(out)-1].End}
}

func BenchmarkDescription60Min(b *testing.B) {
	src := sixtyMinutes(b)
	b.Logf("%d words", len(strings.Fields(src.Text)))
	l := &Local{}
	for b.Loop() {
		if _, err := l.Description(b.Context(), DescriptionInput{Title: src.Title, Source: src}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkConcepts60Min(b *testing.B) {
	src := sixtyMinutes(b)
	l := &Local{}
	for b.Loop() {
		if _, err := l.Concepts(b.Context(), src); err != nil {
			b.Fatal(err)
		}
	}
}
