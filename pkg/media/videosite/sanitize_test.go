package videosite_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"hookline.dev/pkg/media/videosite"
	"hookline.dev/pkg/media/videosite/videositefake"
	"hookline.dev/pkg/platform/safefetch"
)

// clean reports what makes s unfit for Postgres text or an ASS line, or
// "": invalid UTF-8, NUL or another control character (tab and line
// breaks only when multiline).
func clean(s string, multiline bool) string {
	if !utf8.ValidString(s) {
		return "invalid UTF-8"
	}
	for _, r := range s {
		if allowed := multiline && (r == '\t' || r == '\n' || r == '\r'); unicode.IsControl(r) && !allowed {
			return "control character " + string(r)
		}
	}
	return ""
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "plain words", "nul\x00here", "bad \xff\xfe utf-8", "c1 \u0085 \u009b[31m", "tab\tand\r\nbreaks", "  spaced   out  ", "\u2028line\u2029para", "\xe2\x82"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		line := videosite.SanitizeLine(s)
		if why := clean(line, false); why != "" {
			t.Fatalf("SanitizeLine(%q) = %q: %s", s, line, why)
		}
		if line != strings.TrimSpace(line) || strings.Contains(line, "  ") {
			t.Fatalf("SanitizeLine(%q) = %q: white space left", s, line)
		}
		if again := videosite.SanitizeLine(line); again != line {
			t.Fatalf("SanitizeLine is not idempotent: %q -> %q -> %q", s, line, again)
		}
		text := videosite.SanitizeText(s)
		if why := clean(text, true); why != "" {
			t.Fatalf("SanitizeText(%q) = %q: %s", s, text, why)
		}
		if again := videosite.SanitizeText(text); again != text {
			t.Fatalf("SanitizeText is not idempotent: %q -> %q -> %q", s, text, again)
		}
		// Only what must go goes: a clean line comes back as it was.
		if clean(s, false) == "" && strings.Join(strings.Fields(s), " ") == s && line != s {
			t.Fatalf("SanitizeLine changed the clean %q to %q", s, line)
		}
	})
}

// hostile is a sidecar with everything a caption file can hold that
// Postgres or an ASS script cannot: NUL, invalid UTF-8, C0 and C1
// controls, and entities spelling them.
const hostile = "WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nnul\x00 in <c>the</c> cue\n\n" +
	"00:00:02.000 --> 00:00:04.000\nbad \xff\xfe bytes and \x1b[31mescapes\u0085 &#0;&#1; end\n\n" +
	"00:00:04.000 --> 00:00:05.000\n\x00\x07\n\n" +
	"00:00:05.000 --> 00:00:06.000\n<00:00:05.000><c> word\x00one</c><00:00:05.500><c> \x01</c>\n"

func TestCaptionsAreSanitised(t *testing.T) {
	for name, parse := range map[string]func([]byte) ([]videosite.Segment, error){"vtt": videosite.ParseVTT, "srt": videosite.ParseSRT} {
		segs, err := parse([]byte(hostile))
		if err != nil {
			t.Fatal(err)
		}
		var texts []string
		for _, s := range segs {
			texts = append(texts, s.Text)
			for _, w := range append([]videosite.Word{{Text: s.Text}}, s.Words...) {
				if why := clean(w.Text, false); why != "" || w.Text == "" {
					t.Errorf("%s: %q: %s", name, w.Text, why)
				}
			}
		}
		// The cue of nothing but controls is gone; the rest keep their words.
		want := []string{"nul in the cue", "bad \uFFFD bytes and [31mescapes \uFFFD end", "wordone"}
		if strings.Join(texts, "|") != strings.Join(want, "|") {
			t.Errorf("%s: %q, want %q", name, texts, want)
		}
		if last := segs[len(segs)-1]; len(last.Words) != 1 || last.Words[0].Text != "wordone" {
			t.Errorf("%s: words %+v", name, last.Words)
		}
	}
}

func TestMetadataIsSanitised(t *testing.T) {
	fake := videositefake.New(t)
	fake.Add(videositefake.Video{ID: id, Title: "Nul\x00 and\tbell\a title\u0085", Channel: "Chan\x00nel",
		Description: "Line one\x00\n0:00 Intro\x1b\n1:00 Middle\n2:00 End",
		Tracks:      []videositefake.Track{{Lang: "en\x00", Segments: []videosite.Segment{{Start: 0, End: 1, Text: "cap\x00tion"}}}}})
	c := client(t, fake)
	src := videosite.Source{Kind: videosite.KindSite, VideoID: id, URL: videosite.WatchURL(id)}
	md, err := c.Metadata(t.Context(), src)
	if err != nil {
		t.Fatal(err)
	}
	if md.Title != "Nul and bell title" || md.Channel != "Channel" || md.Description != "Line one\n0:00 Intro\n1:00 Middle\n2:00 End" ||
		len(md.Chapters) != 3 || md.Chapters[0].Title != "Intro" || md.Language != "en" {
		t.Errorf("metadata %+v", md)
	}
	caps, err := c.Captions(t.Context(), src)
	if err != nil || caps.Language != "en" || caps.Segments[0].Text != "caption" {
		t.Errorf("captions %+v %v", caps, err)
	}
	// A direct address's file name is its title: %00 and friends go too.
	direct, err := videosite.Parse("http://127.0.0.1:1/media/My%00Talk%0A%C2%85.mp4")
	if err != nil {
		t.Fatal(err)
	}
	if md, _ := c.Metadata(t.Context(), direct); md.Title != "MyTalk" {
		t.Errorf("direct title %q", md.Title)
	}
}

func TestSanitizeSegments(t *testing.T) {
	got := videosite.SanitizeSegments([]videosite.Segment{
		{Start: 0, End: 1, Text: "a\x00b \xff", Words: []videosite.Word{{Text: "a\x00b"}, {Text: "\x01"}, {Text: "\xff"}}},
		{Start: 1, End: 2, Text: "\x00\x7f"},
	})
	if len(got) != 1 || got[0].Text != "ab \uFFFD" || len(got[0].Words) != 2 || got[0].Words[0].Text != "ab" || got[0].Words[1].Text != "\uFFFD" {
		t.Fatalf("%+v", got)
	}
}

// A download whose server hangs up before the length it declared, or
// that drips, fails with the fetcher's reason and leaves nothing behind.
func TestDownloadEndedEarlyOrStalled(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "video/mp4")
		if r.URL.Path == "/short.mp4" {
			w.Header().Set("Content-Length", "5000")
			_, _ = w.Write([]byte("only this"))
			return
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	c := videosite.New(videosite.Config{Fetch: safefetch.Config{AllowHosts: []string{"127.0.0.1"}, Stall: safefetch.Stall{Idle: 200 * time.Millisecond}}})
	for path, want := range map[string]error{"/short.mp4": safefetch.ErrTruncated, "/idle.mp4": safefetch.ErrStalled} {
		src, _ := videosite.Parse(srv.URL + path)
		dst := filepath.Join(t.TempDir(), "v.mp4")
		if err := c.Download(t.Context(), src, dst); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", path, err, want)
		}
		if left, _ := os.ReadDir(filepath.Dir(dst)); len(left) != 0 {
			t.Errorf("%s: left %v", path, left)
		}
	}
}
