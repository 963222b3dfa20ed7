package app_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"hookline.dev/pkg/media/videosite"
	"hookline.dev/pkg/media/videosite/videositefake"
	"hookline.dev/pkg/testkit"
	"hookline.dev/services/clips/internal/mediatest"
)

// captionedTalk puts a 48-second video in the media server as name.mp4
// with a sidecar of the talk's sentences, 4 s each, passed through edit
// (hostile bytes, a long word); it returns the video's address.
func captionedTalk(t *testing.T, h *harness, name string, edit func(i int, line string) string) string {
	t.Helper()
	video := captionedVideo.get(t, func(dir string) string {
		return mediatest.Video(t, dir, mediatest.VideoSpec{Width: 320, Height: 180,
			Scenes: []mediatest.Scene{{Colour: "navy", Seconds: 24}, {Colour: "darkred", Seconds: 24}}})
	})
	var segs []videosite.Segment
	for i, line := range talk[:12] {
		segs = append(segs, videosite.Segment{Start: float64(4 * i), End: float64(4*i + 4), Text: edit(i, line)})
	}
	h.media.putText(t, name+".vtt", videositefake.VTT(segs))
	return h.media.put(t, video, name+".mp4")
}

// captionedVideo is captionedTalk's video, the same for every name.
var captionedVideo sharedMedia[string]

func asIs(_ int, line string) string { return line }

// drip serves /drip.mp4 (any query) as video that never arrives: a
// ranged request (the reachability check at creation) gets its byte at
// once; a download gets a byte every half second, two a second, until the
// client hangs up. It counts the downloads started, the ones the client
// cut off, and the most that were open at once.
type drip struct {
	*httptest.Server
	started, cut, open, most atomic.Int64
}

func newDrip(t *testing.T) *drip {
	d := &drip{}
	d.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/drip.mp4" {
			http.NotFound(w, r) // no sidecar
			return
		}
		w.Header().Set("Content-Type", "video/mp4")
		if r.Header.Get("Range") != "" {
			w.Header().Set("Content-Range", "bytes 0-0/1000000")
			w.WriteHeader(http.StatusPartialContent)
			_, _ = w.Write([]byte{0})
			return
		}
		w.Header().Set("Content-Length", "1000000")
		d.started.Add(1)
		for n := d.open.Add(1); ; {
			if m := d.most.Load(); n <= m || d.most.CompareAndSwap(m, n) {
				break
			}
		}
		defer d.open.Add(-1)
		defer d.cut.Add(1)
		for {
			if _, err := w.Write([]byte{0}); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-time.After(500 * time.Millisecond):
			case <-r.Context().Done():
				return
			}
		}
	}))
	t.Cleanup(d.Close)
	return d
}

// One organization's sources drip two bytes a second; another's, started
// while they download, is prepared beside them, not after them. The
// dripping organization has four projects, as many as a worker's
// preparation slots, but holds only its share (two) of them: the other
// project is ready while the first drips are still downloading. A drip
// fails on its own with the idle-timeout reason, after each attempt's
// download was cut off. How long the normal project took, alone and
// beside the drips, is logged (no bound on it here: scheduling noise would
// decide it; the ordering is what fairness guarantees).
func TestADrippingSourceDoesNotHoldUpAnotherOrganization(t *testing.T) {
	h := newHarness(t,
		"HOOKLINE_CLIPS_PREPARATIONS", "4",
		"HOOKLINE_CLIPS_ORG_PREPARATIONS", "2",
		"HOOKLINE_CLIPS_DOWNLOAD_IDLE_TIMEOUT", "2s",
		"HOOKLINE_CLIPS_DOWNLOAD_MIN_RATE_KIB", "1",
		// Long enough for the other project's preparation (its face
		// sampling included) under the race detector on two busy cores.
		"HOOKLINE_CLIPS_DOWNLOAD_RATE_WINDOW", "20s",
		"HOOKLINE_CLIPS_MAX_ATTEMPTS", "2")
	h.worker()
	d := newDrip(t)

	ready := func(org, url string) (string, time.Duration) {
		start := time.Now()
		p := h.create(org, url)
		got := h.wait(org, p.ID, 90*time.Second)
		if got.DownloadStatus != "ready" {
			t.Fatalf("%s: %+v (error %s)", url, got, deref(got.DownloadError))
		}
		return p.ID, time.Since(start)
	}
	_, alone := ready(uuid.NewString(), captionedTalk(t, h, "alone", asIs))

	dripOrg := uuid.NewString()
	var dripping []project
	for i := range 4 {
		dripping = append(dripping, h.create(dripOrg, fmt.Sprintf("%s/drip.mp4?n=%d", d.URL, i)))
	}
	testkit.Eventually(t, 30*time.Second, "the drips' downloads started", func() bool { return d.started.Load() == 2 })
	_, beside := ready(uuid.NewString(), captionedTalk(t, h, "beside", asIs))
	if cut := d.cut.Load(); cut != 0 {
		t.Fatalf("a drip's download was cut off before the other project was ready: the other waited for it")
	}
	t.Logf("a normal project took %s alone and %s beside four dripping sources (%+.1f s)", alone.Round(10*time.Millisecond),
		beside.Round(10*time.Millisecond), (beside - alone).Seconds())

	// Every drip ends failed, saying why, after its two attempts.
	for _, p := range dripping {
		got := h.wait(dripOrg, p.ID, 3*time.Minute)
		if got.DownloadStatus != "failed" || !strings.Contains(deref(got.DownloadError), "the download stalled (idle timeout)") ||
			!strings.Contains(deref(got.DownloadError), "under the minimum of 1024 bytes a second") {
			t.Fatalf("a dripping project: %s (%s), want failed with the idle-timeout reason", got.DownloadStatus, deref(got.DownloadError))
		}
	}
	if started, cut, most := d.started.Load(), d.cut.Load(), d.most.Load(); started != 8 || cut != 8 || most != 2 {
		t.Errorf("the drips served %d downloads, saw %d cut off and %d at once; want 8, 8 (two attempts each) and 2 (the organization's share)", started, cut, most)
	}
}

// clean reports why s is not text Postgres and an ASS script can hold, or
// "".
func clean(s string) string {
	if !utf8.ValidString(s) {
		return "invalid UTF-8"
	}
	if i := strings.IndexFunc(s, unicode.IsControl); i >= 0 {
		return fmt.Sprintf("control character %U", []rune(s[i:])[0])
	}
	return ""
}

// Caption files with NUL, invalid UTF-8 and control characters, and one
// with a 300-character word, make projects (201, not the 500 Postgres'
// refusal of NUL gave) whose clips hold clean text, and are prepared.
func TestHostileCaptionFilesMakeProjects(t *testing.T) {
	h := newHarness(t)
	h.worker()
	long := "https://example.com/" + strings.Repeat("a", 280)
	for name, edit := range map[string]func(int, string) string{
		"nul": func(i int, line string) string {
			if i == 3 {
				return "\x00"
			}
			return strings.Replace(line, " ", " \x00", 2)
		},
		"utf8": func(i int, line string) string {
			return strings.Replace(line, " ", " \xff\xfe\u0085\x1b[31m ", 1)
		},
		"long": func(i int, line string) string { return line + " " + long },
	} {
		org := uuid.NewString()
		r := h.Must(http.StatusCreated, http.MethodPost, "/clips/projects", org, map[string]string{"video_site_url": captionedTalk(t, h, name, edit)})
		var p project
		r.Into(t, &p)
		if len(p.Clips) == 0 || p.Transcript == nil || *p.Transcript != "captions" {
			t.Fatalf("%s: created %s", name, r.Raw)
		}
		for _, c := range p.Clips {
			for _, s := range append([]string{c.Title, c.Hook}, c.Keywords...) {
				if why := clean(s); why != "" {
					t.Errorf("%s: clip text %q: %s", name, s, why)
				}
			}
		}
		if got := h.wait(org, p.ID, 90*time.Second); got.DownloadStatus != "ready" || len(got.Clips) != len(p.Clips) {
			t.Errorf("%s: prepared %+v (error %s)", name, got, deref(got.DownloadError))
		}
	}
	// The long word is kept whole in the captions: cutting it to the frame
	// is the renderer's business.
	var kept int
	if err := h.Pool.QueryRow(context.Background(), `SELECT count(*) FROM projects WHERE strpos(captions::text, $1) > 0`, long).Scan(&kept); err != nil || kept != 1 {
		t.Errorf("%d projects keep the long word (%v), want 1", kept, err)
	}
}

// A source that cannot be prepared fails on its first attempt, saying
// why: a picture the decoder refuses (16383×16383), and a file cut short
// by a server that declared a shorter Content-Length (its header declares
// the whole length, its data stops early). A server that sends less than
// the Content-Length it declared is retried, and the attempt that gives
// up says the download ended early.
func TestSourcesThatCannotBePreparedSayWhy(t *testing.T) {
	h := newHarness(t, "HOOKLINE_CLIPS_MAX_ATTEMPTS", "2")
	h.worker()
	dir := t.TempDir()
	huge := mediatest.HugePicture(t, dir)
	whole := mediatest.Video(t, dir, mediatest.VideoSpec{Width: 320, Height: 180, Scenes: []mediatest.Scene{{Colour: "testsrc2", Seconds: 30}}})
	short := mediatest.Truncated(t, whole, dir, 0.2)
	lying := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := os.ReadFile(whole) //nolint:gosec // G304: the test's own file
		if err != nil {
			t.Error(err)
			return
		}
		w.Header().Set("Content-Type", "video/mp4")
		if r.Header.Get("Range") != "" {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes 0-0/%d", len(b)+5000))
			w.WriteHeader(http.StatusPartialContent)
			_, _ = w.Write(b[:1])
			return
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(b)+5000))
		_, _ = w.Write(b)
	}))
	t.Cleanup(lying.Close)

	org := uuid.NewString()
	for url, want := range map[string]struct {
		reason   string
		attempts int
	}{
		h.media.put(t, huge, "huge.mov"):       {"the video cannot be decoded: Picture size 16383x16383 is invalid", 1},
		h.media.put(t, short, "short.mp4"):     {"the download ended early: the file holds", 1},
		lying.URL + "/" + filepath.Base(whole): {"the download ended early: the server sent less than it declared", 2},
	} {
		p := h.create(org, url)
		got := h.wait(org, p.ID, 90*time.Second)
		var attempts int
		if err := h.Pool.QueryRow(context.Background(), `SELECT attempts FROM projects WHERE id = $1`, p.ID).Scan(&attempts); err != nil {
			t.Fatal(err)
		}
		if got.DownloadStatus != "failed" || !strings.Contains(deref(got.DownloadError), want.reason) || attempts != want.attempts {
			t.Errorf("%s: %s after %d attempts (%s), want failed after %d saying %q", url, got.DownloadStatus, attempts, deref(got.DownloadError), want.attempts, want.reason)
		}
	}
}
