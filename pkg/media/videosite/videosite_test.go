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

	"hookline.dev/pkg/media/videosite"
	"hookline.dev/pkg/media/videosite/videositefake"
	"hookline.dev/pkg/platform/safefetch"
)

const id = "dQw4w9WgXcQ"

func TestParse(t *testing.T) {
	site := func(string) string { return id }
	for _, tc := range []struct {
		in   string
		want string // id, "direct", or "" for an error
	}{
		{"https://www.youtube.com/watch?v=" + id, id},
		{"https://youtube.com/watch?v=" + id, id},
		{"http://www.youtube.com/watch?v=" + id, id},
		{"https://www.youtube.com/watch?feature=share&v=" + id + "&t=42s", id},
		{"https://www.youtube.com/watch?v=" + id + "&list=PL123&index=2", id},
		{"https://m.youtube.com/watch?v=" + id, id},
		{"https://music.youtube.com/watch?v=" + id + "&si=abc", id},
		{"https://youtu.be/" + id, id},
		{"https://youtu.be/" + id + "?t=10", id},
		{"https://youtu.be/" + id + "?si=xyz&t=1m2s", id},
		{"https://www.youtube.com/shorts/" + id, id},
		{"https://youtube.com/shorts/" + id + "?feature=share", id},
		{"https://www.youtube.com/embed/" + id + "?start=30", id},
		{"https://www.youtube-nocookie.com/embed/" + id, id},
		{"https://www.youtube.com/live/" + id + "?si=1", id},
		{"https://www.youtube.com/v/" + id, id},
		{"youtube.com/watch?v=" + id, id},
		{"www.youtube.com/watch?v=" + id, id},
		{"youtu.be/" + id, id},
		{"  https://WWW.YOUTUBE.COM/watch?v=" + id + "  ", id},
		{"https://www.youtube.com/watch?v=" + id + "#t=1m", id},
		{"https://www.youtube.com:443/watch?v=" + id, id},
		{"https://www.youtube.com/shorts/" + id + "/", id},
		{"https://www.youtube.com/watch?v=short", ""},
		{"https://www.youtube.com/watch?v=" + id + "x", ""},
		{"https://www.youtube.com/watch?v=dQw4w9WgX%3C", ""},
		{"https://www.youtube.com/watch", ""},
		{"https://www.youtube.com/channel/UC123", ""},
		{"https://youtube.com@evil.com/watch?v=" + id, ""},
		{"https://user:pw@youtube.com/watch?v=" + id, ""},
		{"https://www.youtube.com:8080/watch?v=" + id, ""},
		{"https://xn--outube-vrf.com/watch?v=" + id, ""},
		{"https://уoutube.com/watch?v=" + id, ""},
		{"javascript:alert(1)", ""},
		{"ftp://youtube.com/watch?v=" + id, ""},
		{"file:///etc/passwd", ""},
		{"", ""},
		{"not a url at all", "direct"}, // becomes https://not a url… → invalid
		{"https://evil.com/youtube.com/watch?v=" + id, "direct"},
		{"https://youtube.com.evil.com/watch?v=" + id, "direct"},
		{"https://notyoutube.com/watch?v=" + id, "direct"},
		{"https://cdn.example.com/media/talk.mp4", "direct"},
		{"http://example.org/v.webm?sig=1", "direct"},
	} {
		got, err := videosite.Parse(tc.in)
		switch {
		case tc.in == "not a url at all":
			if err == nil {
				t.Errorf("Parse(%q) = %+v, want an error", tc.in, got)
			}
		case tc.want == "":
			if !errors.Is(err, videosite.ErrInvalidURL) {
				t.Errorf("Parse(%q) = %+v, %v; want ErrInvalidURL", tc.in, got, err)
			}
		case tc.want == "direct":
			if err != nil || got.Kind != videosite.KindDirect || got.VideoID != "" {
				t.Errorf("Parse(%q) = %+v, %v; want direct media", tc.in, got, err)
			}
		default:
			if err != nil || got.Kind != videosite.KindSite || got.VideoID != site(tc.in) || got.URL != videosite.WatchURL(id) {
				t.Errorf("Parse(%q) = %+v, %v; want %s", tc.in, got, err, tc.want)
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"https://youtu.be/" + id, "https://www.youtube.com/watch?v=" + id + "&t=1", "http://x/y.mp4", "youtube.com@a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		src, err := videosite.Parse(raw)
		if err != nil {
			return
		}
		if src.Kind == videosite.KindSite && !videosite.ValidID(src.VideoID) {
			t.Fatalf("%q: site id %q", raw, src.VideoID)
		}
		again, err := videosite.Parse(src.URL)
		if err != nil || again != src {
			t.Fatalf("%q: %+v does not round-trip: %+v %v", raw, src, again, err)
		}
	})
}

func FuzzParseVTT(f *testing.F) {
	f.Add("WEBVTT\n\n00:00:01.000 --> 00:00:02.500\nhello <c>world</c>\n")
	f.Add("1\n00:00:01,000 --> 00:00:02,000\nhi\n\n")
	f.Fuzz(func(t *testing.T, s string) {
		segs, err := videosite.ParseVTT([]byte(s))
		if err != nil {
			return
		}
		for _, g := range segs {
			if g.End < g.Start || g.Text == "" {
				t.Fatalf("segment %+v", g)
			}
			for _, w := range append([]videosite.Word{{Text: g.Text}}, g.Words...) {
				if why := clean(w.Text, false); why != "" || w.Text == "" {
					t.Fatalf("segment %+v: text %q: %s", g, w.Text, why)
				}
			}
		}
	})
}

var segs = []videosite.Segment{
	{Start: 0, End: 2.5, Text: "Welcome back to the kitchen.", Words: []videosite.Word{{Start: 0, Text: "Welcome"}, {Start: 0.6, Text: "back"}, {Start: 1, Text: "to"}, {Start: 1.2, Text: "the"}, {Start: 1.5, Text: "kitchen."}}},
	{Start: 2.5, End: 5, Text: "Today we bake sourdough & rye."},
}

func client(t *testing.T, fake *videositefake.Server) *videosite.Client {
	return videosite.New(videosite.Config{SiteBase: fake.URL, Fetch: safefetch.Config{AllowHosts: []string{"127.0.0.1"}}})
}

func TestMetadataAndCaptions(t *testing.T) {
	fake := videositefake.New(t)
	fake.Add(videositefake.Video{ID: id, Title: "Sourdough", Channel: "Bakes", LengthSeconds: 754,
		Description: "Bread.\n0:00 Intro\n1:30 Starter\n10:02 Baking",
		Tracks: []videositefake.Track{
			{Lang: "en", Kind: "asr", Segments: []videosite.Segment{{Start: 0, End: 1, Text: "automatic words"}}},
			{Lang: "de", Segments: []videosite.Segment{{Start: 0, End: 1, Text: "Willkommen"}}},
			{Lang: "en", Segments: segs},
		}})
	c := client(t, fake)
	src, _ := videosite.Parse("https://youtu.be/" + id)
	md, err := c.Metadata(t.Context(), src)
	if err != nil {
		t.Fatal(err)
	}
	if md.Title != "Sourdough" || md.Channel != "Bakes" || md.Duration != 754 || len(md.Chapters) != 3 || md.Chapters[2].Start != 602 || md.Language != "de" {
		t.Fatalf("metadata %+v", md)
	}
	// The video's language is its first manual track's (de); English is
	// manual too, but a manual track in the video's language comes first.
	caps, err := c.Captions(t.Context(), src)
	if err != nil {
		t.Fatal(err)
	}
	if caps.Automatic || caps.Language != "de" || caps.Segments[0].Text != "Willkommen" {
		t.Fatalf("captions %+v", caps)
	}
	// Metadata and captions of one video come from one player answer.
	if n := fake.PlayerCalls(); n != 1 {
		t.Errorf("%d player API calls for one video", n)
	}
}

func TestManualBeforeAutomatic(t *testing.T) {
	fake := videositefake.New(t)
	fake.Add(videositefake.Video{ID: id, Title: "x", Tracks: []videositefake.Track{
		{Lang: "en", Kind: "asr", Segments: []videosite.Segment{{Start: 0, End: 1, Text: "automatic words"}}},
		{Lang: "en", Segments: segs},
	}})
	caps, err := client(t, fake).Captions(t.Context(), videosite.Source{Kind: videosite.KindSite, VideoID: id})
	if err != nil {
		t.Fatal(err)
	}
	if caps.Automatic || len(caps.Segments) != 2 || caps.Segments[1].Text != "Today we bake sourdough & rye." {
		t.Fatalf("captions %+v", caps)
	}
	w := caps.Segments[0].Words
	if len(w) != 5 || w[1].Text != "back" || w[1].Start != 0.6 || w[1].End != 1 || w[4].End != 2.5 {
		t.Fatalf("words %+v", w)
	}
	// Only an automatic track: it is used, and says so.
	fake.Add(videositefake.Video{ID: "aaaaaaaaaaa", Title: "x", Tracks: []videositefake.Track{{Lang: "en", Kind: "asr", Segments: segs}}})
	caps, err = client(t, fake).Captions(t.Context(), videosite.Source{Kind: videosite.KindSite, VideoID: "aaaaaaaaaaa"})
	if err != nil || !caps.Automatic {
		t.Fatalf("%+v %v", caps, err)
	}
}

func TestVTTFallback(t *testing.T) {
	fake := videositefake.New(t)
	fake.Add(videositefake.Video{ID: id, Title: "x", Tracks: []videositefake.Track{{Lang: "en", VTTOnly: true, Segments: segs}}})
	caps, err := client(t, fake).Captions(t.Context(), videosite.Source{Kind: videosite.KindSite, VideoID: id})
	if err != nil || len(caps.Segments) != 2 || caps.Segments[1].Start != 2.5 || caps.Segments[1].Text != "Today we bake sourdough & rye." {
		t.Fatalf("%+v %v", caps, err)
	}
}

func TestSiteFailures(t *testing.T) {
	fake := videositefake.New(t)
	fake.Add(
		videositefake.Video{ID: "nocaptions1", Title: "silent"},
		videositefake.Video{ID: "ratelimited", Status: http.StatusTooManyRequests},
		videositefake.Video{ID: "servererror", Status: http.StatusInternalServerError},
		videositefake.Video{ID: "garbage0000", Garbage: true},
		videositefake.Video{ID: "private0000", Unplayable: "This video is private"},
	)
	c := client(t, fake)
	for vid, want := range map[string]error{
		"nocaptions1": videosite.ErrNoCaptions, "ratelimited": videosite.ErrUnavailable, "servererror": videosite.ErrUnavailable,
		"garbage0000": videosite.ErrUnavailable, "private0000": videosite.ErrUnavailable, "unknown0000": videosite.ErrUnavailable,
	} {
		_, err := c.Captions(t.Context(), videosite.Source{Kind: videosite.KindSite, VideoID: vid})
		if !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", vid, err, want)
		}
	}
	if _, err := c.Captions(t.Context(), videosite.Source{Kind: videosite.KindSite, VideoID: "private0000"}); !strings.Contains(err.Error(), "private") {
		t.Errorf("the reason is lost: %v", err)
	}
	// A site on a private address the operator did not allow is refused.
	strict := videosite.New(videosite.Config{SiteBase: fake.URL})
	if _, err := strict.Captions(t.Context(), videosite.Source{Kind: videosite.KindSite, VideoID: id}); !errors.Is(err, videosite.ErrForbidden) {
		t.Errorf("private site base: %v", err)
	}
}

func TestDirectMedia(t *testing.T) {
	files := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if strings.HasSuffix(r.URL.Path, ".mp4") {
			w.Header().Set("Content-Type", "video/mp4")
		}
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	c := videosite.New(videosite.Config{Fetch: safefetch.Config{AllowHosts: []string{"127.0.0.1"}}, MaxDownloadBytes: 1000})
	src, err := videosite.Parse(srv.URL + "/media/My%20Talk.mp4")
	if err != nil || src.Kind != videosite.KindDirect {
		t.Fatal(src, err)
	}
	if got := videosite.SidecarURLs(src.URL); len(got) != 3 || !strings.HasSuffix(got[0], "/media/My%20Talk.vtt") || !strings.HasSuffix(got[1], ".srt") || !strings.HasSuffix(got[2], ".mp4.vtt") {
		t.Fatalf("sidecars %v", got)
	}
	if _, err := c.Captions(t.Context(), src); !errors.Is(err, videosite.ErrNoCaptions) {
		t.Fatalf("no sidecar: %v", err)
	}
	// Only the third form exists: it is found after the other two.
	files["/media/My Talk.mp4.vtt"] = videositefake.VTT(segs)
	if caps, err := c.Captions(t.Context(), src); err != nil || len(caps.Segments) != 2 {
		t.Fatalf("appended .vtt: %+v %v", caps, err)
	}
	// The .srt is preferred to it, and the .vtt to both.
	files["/media/My Talk.srt"] = "1\n00:00:00,000 --> 00:00:01,000\nfrom srt\n\n"
	if caps, _ := c.Captions(t.Context(), src); caps.Segments[0].Text != "from srt" {
		t.Fatalf("srt not preferred: %+v", caps)
	}
	files["/media/My Talk.vtt"] = "WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nfrom vtt\n"
	if caps, _ := c.Captions(t.Context(), src); caps.Segments[0].Text != "from vtt" {
		t.Fatalf("vtt not preferred: %+v", caps)
	}
	if md, _ := c.Metadata(t.Context(), src); md.Title != "My Talk" {
		t.Fatalf("title %q", md.Title)
	}
	// Probe: reachable video; an HTML page and a 404 are refused.
	files["/media/My Talk.mp4"] = "0123456789"
	files["/page.html"] = "<html></html>"
	if err := c.Probe(t.Context(), src); err != nil {
		t.Fatalf("probe: %v", err)
	}
	for _, u := range []string{srv.URL + "/page.html", srv.URL + "/missing.mp4"} {
		s, _ := videosite.Parse(u)
		if err := c.Probe(t.Context(), s); !errors.Is(err, videosite.ErrInvalidURL) {
			t.Errorf("probe %s: %v", u, err)
		}
	}
	// Download: the file arrives; over the cap nothing is left behind.
	dst := filepath.Join(t.TempDir(), "video.mp4")
	if err := c.Download(t.Context(), src, dst); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "0123456789" {
		t.Fatalf("downloaded %q", b)
	}
	files["/big.mp4"] = strings.Repeat("x", 1001)
	big, _ := videosite.Parse(srv.URL + "/big.mp4")
	dst2 := filepath.Join(t.TempDir(), "big.mp4")
	if err := c.Download(t.Context(), big, dst2); !errors.Is(err, safefetch.ErrTooLarge) {
		t.Fatalf("over the cap: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Dir(dst2) + "/*"); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
	// Without the allow list, the loopback address is refused.
	strict := videosite.New(videosite.Config{})
	if _, err := strict.Captions(t.Context(), src); !errors.Is(err, videosite.ErrForbidden) {
		t.Fatalf("loopback: %v", err)
	}
}

func TestYTDLP(t *testing.T) {
	src := videosite.Source{Kind: videosite.KindSite, VideoID: id, URL: videosite.WatchURL(id)}
	missing := videosite.New(videosite.Config{YTDLP: "/nonexistent/yt-dlp"})
	if err := missing.Download(t.Context(), src, filepath.Join(t.TempDir(), "v.mp4")); !errors.Is(err, videosite.ErrUnavailable) || !strings.Contains(err.Error(), "not installed") {
		t.Fatalf("missing yt-dlp: %v", err)
	}
	// A stand-in yt-dlp records its arguments and writes the -o file.
	dir := t.TempDir()
	script := filepath.Join(dir, "yt-dlp")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"$@\" > "+dir+"/args\nwhile [ \"$1\" != -o ]; do shift; done\necho video > \"$2\"\n"), 0o700); err != nil { //nolint:gosec // G306: an executable test script
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "v.mp4")
	if err := videosite.New(videosite.Config{YTDLP: script, Fetch: safefetch.Config{Stall: safefetch.Stall{Idle: 20 * time.Second}}}).Download(t.Context(), src, dst); err != nil {
		t.Fatal(err)
	}
	args, _ := os.ReadFile(filepath.Join(dir, "args"))
	if !strings.Contains(string(args), "--no-playlist") || !strings.Contains(string(args), "--socket-timeout 20 ") || !strings.HasSuffix(strings.TrimSpace(string(args)), "-- "+videosite.WatchURL(id)) {
		t.Fatalf("args %q", args)
	}
	if b, _ := os.ReadFile(dst); string(b) != "video\n" {
		t.Fatalf("file %q", b)
	}
}

func TestParseChapters(t *testing.T) {
	if got := videosite.ParseChapters("Intro text\n0:00 Intro\n1:05 - Part one\n1:02:03 Outro"); len(got) != 3 || got[2].Start != 3723 || got[1].Title != "Part one" {
		t.Fatalf("%+v", got)
	}
	for _, bad := range []string{"0:05 a\n1:00 b\n2:00 c", "0:00 a\n1:00 b", "0:00 a\n2:00 b\n1:00 c"} {
		if got := videosite.ParseChapters(bad); got != nil {
			t.Errorf("%q: %+v", bad, got)
		}
	}
}
