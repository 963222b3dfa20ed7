package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"hookline.dev/pkg/media/videosite"
	"hookline.dev/pkg/media/videosite/videositefake"
)

// threeTopics is the captions of pkg/ai/nlp's test video: sourdough, a bike
// chain and Roman aqueducts, one 4-second segment per line.
func threeTopics(t *testing.T) ([]videosite.Segment, string) {
	raw, err := os.ReadFile("../pkg/ai/nlp/testdata/three_topics.txt")
	if err != nil {
		t.Fatal(err)
	}
	var segs []videosite.Segment
	var all []string
	for _, line := range strings.Split(string(raw), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s := float64(len(segs)) * 4
		segs = append(segs, videosite.Segment{Start: s, End: s + 4, Text: line})
		all = append(all, line)
	}
	return segs, strings.Join(all, " ")
}

// The text endpoints through the gateway, against a fake video site: the
// shapes, the 400s, and credits only for optimize (refunded when drawing
// fails).
func TestTextThroughTheGateway(t *testing.T) {
	s := startStack(t)
	segs, transcript := threeTopics(t)
	site := videositefake.New(t)
	site.Add(
		videositefake.Video{ID: "bakebikeRom", Title: "Bread, bikes and Rome", Channel: "Craft", LengthSeconds: 240,
			Tracks: []videositefake.Track{{Lang: "en", Kind: "asr", Segments: segs[:3]}, {Lang: "en", Segments: segs}}},
		videositefake.Video{ID: "nocaptions0", Title: "Silent film", LengthSeconds: 60},
		videositefake.Video{ID: "ratelimited", Status: http.StatusTooManyRequests},
	)
	s.restartThumbnails("HOOKLINE_VIDEOSITE_BASE="+site.URL, "HOOKLINE_FETCH_ALLOW_HOSTS=127.0.0.1")
	_, key := s.newOrg("pro")
	s.waitTotal(key, 500)

	// Analyze a transcript and a video: three distinct concepts each.
	for _, body := range []map[string]any{
		{"transcript": transcript},
		{"videoSiteUrl": "https://youtu.be/bakebikeRom?t=5"},
	} {
		a := s.must(200, "POST", "/api/v1/thumbnails/analyze", key, body)
		concepts := a["concepts"].([]any)
		if len(concepts) != 3 || a["engine"] != "local" {
			t.Fatalf("analysis %v", a)
		}
		seen := map[string]bool{}
		for _, c := range concepts {
			p := c.(map[string]any)["prompt"].(string)
			if seen[p] {
				t.Fatalf("repeated concept %q", p)
			}
			seen[p] = true
		}
		video := a["video"].(map[string]any)
		if _, ok := body["transcript"]; ok && video["title"] != "Your Video" {
			t.Fatalf("default title: %v", video)
		}
		if _, ok := body["videoSiteUrl"]; ok && video["title"] != "Bread, bikes and Rome" {
			t.Fatalf("the video's own title: %v", video)
		}
	}
	// A concept's prompt is usable as is: POST /thumbnails draws it.
	a := s.must(200, "POST", "/api/v1/thumbnails/analyze", key, map[string]any{"transcript": transcript, "videoTitle": "Three skills"})
	c0 := a["concepts"].([]any)[0].(map[string]any)
	made := s.must(201, "POST", "/api/v1/thumbnails", key, map[string]any{"prompt": c0["prompt"]})
	fetchImage(t, made["imageUrl"].(string))
	s.waitTotal(key, 499)

	// The 400s of analyze, all free.
	for _, tc := range []struct {
		body  map[string]any
		field string
		why   string
	}{
		{map[string]any{}, "videoSiteUrl", ""},
		{map[string]any{"transcript": transcript, "videoSiteUrl": "https://youtu.be/bakebikeRom"}, "transcript", ""},
		{map[string]any{"transcript": strings.Repeat("ü", 49)}, "transcript", ""},
		{map[string]any{"videoSiteUrl": "https://youtube.com@evil.com/watch?v=bakebikeRom"}, "videoSiteUrl", ""},
		{map[string]any{"videoSiteUrl": "https://youtu.be/nocaptions0"}, "videoSiteUrl", "no transcript available; send transcript"},
	} {
		st, body := s.do("POST", "/api/v1/thumbnails/analyze", key, tc.body)
		if st != 400 || body["code"] != "invalid_request" || fieldOf(body, tc.field) == nil || tc.why != "" && fieldOf(body, tc.field) != tc.why {
			t.Fatalf("%v: %d %v", tc.body, st, body)
		}
	}
	if st, body := s.do("POST", "/api/v1/thumbnails/analyze", key, map[string]any{"videoSiteUrl": "https://youtu.be/ratelimited"}); st != 503 || body["code"] != "unavailable" {
		t.Fatalf("rate-limited site: %d %v", st, body)
	}

	// Titles: length and keyword rules, all six patterns.
	ti := s.must(200, "POST", "/api/v1/seo/titles", key, map[string]any{"transcript": transcript, "keywords": []string{"bike chain"}, "count": 8})
	titles := ti["titles"].([]any)
	patterns := map[any]bool{}
	for _, x := range titles {
		m := x.(map[string]any)
		title := m["title"].(string)
		if utf8.RuneCountInString(title) > 70 || !strings.Contains(strings.ToLower(title), "bike chain") || m["reason"] == "" {
			t.Fatalf("title %v", m)
		}
		patterns[m["pattern"]] = true
	}
	if len(titles) != 8 || len(patterns) != 6 {
		t.Fatalf("titles %v", titles)
	}
	if n := len(s.must(200, "POST", "/api/v1/seo/titles", key, map[string]any{"videoTitle": "My sourdough journey"})["titles"].([]any)); n != 10 {
		t.Fatalf("default count: %d", n)
	}
	for _, body := range []map[string]any{{}, {"keywords": []string{}}, {"videoTitle": "x", "count": 21}, {"videoTitle": "x", "colour": "red"}} {
		if st, resp := s.do("POST", "/api/v1/seo/titles", key, body); st != 400 {
			t.Fatalf("titles %v: %d %v", body, st, resp)
		}
	}

	// Description: chapters from the captions' timing; estimated for a
	// plain transcript; links as strings or objects.
	d := s.must(200, "POST", "/api/v1/seo/description", key, map[string]any{"title": "Three skills", "videoSiteUrl": "https://www.youtube.com/watch?v=bakebikeRom",
		"links": []any{"https://example.com/recipe", map[string]any{"title": "Chain tool", "url": "https://example.com/tool"}}})
	chapters := d["chapters"].([]any)
	if d["chaptersEstimated"] != false || len(chapters) < 3 || chapters[0].(map[string]any)["start"] != 0.0 {
		t.Fatalf("description %v", d)
	}
	desc := d["description"].(string)
	if !strings.Contains(desc, "Chain tool: https://example.com/tool") || utf8.RuneCountInString(strings.SplitN(desc, "\n", 2)[0]) > 200 {
		t.Fatalf("description text %q", desc)
	}
	if tags := strings.Join(toStrings(d["tags"]), ","); len(tags) > 500 || tags == "" {
		t.Fatalf("tags %q", tags)
	}
	if h := d["hashtags"].([]any); len(h) < 3 || len(h) > 5 {
		t.Fatalf("hashtags %v", h)
	}
	plain := s.must(200, "POST", "/api/v1/seo/description", key, map[string]any{"title": "Three skills", "transcript": transcript})
	if plain["chaptersEstimated"] != true {
		t.Fatalf("plain transcript: %v", plain)
	}
	for _, body := range []map[string]any{{}, {"title": "x", "transcript": "t", "videoSiteUrl": "https://youtu.be/bakebikeRom"}, {"title": "x", "links": []any{"ftp://x"}}} {
		if st, resp := s.do("POST", "/api/v1/seo/description", key, body); st != 400 {
			t.Fatalf("description %v: %d %v", body, st, resp)
		}
	}
	s.waitTotal(key, 499) // every text call above was free

	// Optimize: one credit, the thumbnail carries the optimized prompt.
	o := s.must(201, "POST", "/api/v1/thumbnails/optimize", key, map[string]any{"idea": `my bike chain snapped mid-race, title "CHAIN SNAPPED"`})
	if o["kind"] != "optimized" || o["headline"] != "CHAIN SNAPPED" || o["prompt"] != o["optimizedPrompt"] || o["textEngine"] != "local" {
		t.Fatalf("optimize %v", o)
	}
	fetchImage(t, o["imageUrl"].(string))
	s.waitTotal(key, 498)
	for _, body := range []map[string]any{{}, {"idea": "ab"}, {"idea": strings.Repeat("x", 501)}, {"idea": "fine idea", "aspectRatio": "4:3"}} {
		if st, resp := s.do("POST", "/api/v1/thumbnails/optimize", key, body); st != 400 {
			t.Fatalf("optimize %v: %d %v", body, st, resp)
		}
	}
	// A failing image engine: 503 and the credit comes back.
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error":{"message":"boom"}}`))
	}))
	defer provider.Close()
	s.restartThumbnails("HOOKLINE_IMAGE_PROVIDER=openai", "HOOKLINE_IMAGE_API_KEY=sk-test", "HOOKLINE_IMAGE_BASE_URL="+provider.URL, "HOOKLINE_IMAGE_TIMEOUT=2s")
	if st, body := s.do("POST", "/api/v1/thumbnails/optimize", key, map[string]any{"idea": "a broken bike"}); st != 503 {
		t.Fatalf("failing engine: %d %v", st, body)
	}
	s.waitTotal(key, 498)
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
