package app_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hookline.dev/pkg/media/videosite"
	"hookline.dev/pkg/media/videosite/videositefake"
	"hookline.dev/pkg/testkit"
	"hookline.dev/pkg/testkit/apptest"
	"hookline.dev/services/clips/internal/app"
	"hookline.dev/services/clips/internal/mediatest"
)

// harness runs the clips API in-process on a fresh schema, bucket and NATS
// namespace, with a fake video site, a media server for direct addresses
// and a stand-in yt-dlp that copies the site's videos from the media
// server's directory. Workers are started by the tests that want them.
type harness struct {
	*apptest.Service
	site  *videositefake.Server
	media *mediaServer
}

func newHarness(t testing.TB, overrides ...string) *harness {
	t.Helper()
	mediatest.Require(t)
	h := &harness{site: videositefake.New(t), media: newMediaServer(t)}
	h.Service = apptest.Start(t, apptest.Config{Name: "clips", Run: app.Run, Bucket: true, Env: append([]string{
		"HOOKLINE_VIDEOSITE_BASE", h.site.URL,
		"HOOKLINE_VIDEOSITE_TIMEDTEXT_BASE", h.site.URL,
		"HOOKLINE_YTDLP", ytdlp(t, h.media.dir),
		"HOOKLINE_FETCH_ALLOW_HOSTS", "127.0.0.1",
		"HOOKLINE_CLIPS_JOB_ACK_WAIT", "3s",
		"HOOKLINE_DEBUG_ADDR", "",
		"HOOKLINE_TIERS", `{"tiers": [{"name": "pro", "monthlyCredits": 10, "billingCycle": "monthly", "rateLimit": {"perSecond": 100, "burst": 100}, "quotas": {"sourceMinutes": 2}}]}`,
		// The speech model scripts/deps.sh installs (its env command
		// exports where).
		"HOOKLINE_MOONSHINE_DIR", os.Getenv("HOOKLINE_MOONSHINE_DIR"),
		"HOOKLINE_ONNXRUNTIME_LIB", os.Getenv("HOOKLINE_ONNXRUNTIME_LIB"),
	}, overrides...)})
	return h
}

// sharedMedia is media several tests read and none changes (each copies
// it into its own media server): made once a test binary, on its first
// use, in a directory of its own under sharedMediaDir, which TestMain
// removes.
type sharedMedia[T any] struct {
	once sync.Once
	made T
	ok   bool
}

// sharedMediaDir holds the shared media; TestMain makes and removes it.
var sharedMediaDir string

// get returns the media, made by build in a new directory on the first
// call; a later call waits for the first.
func (s *sharedMedia[T]) get(t testing.TB, build func(dir string) T) T {
	t.Helper()
	s.once.Do(func() {
		dir, err := os.MkdirTemp(sharedMediaDir, "")
		if err != nil {
			t.Fatal(err)
		}
		s.made, s.ok = build(dir), true
	})
	if !s.ok {
		t.Fatal("the shared media could not be made (see the first test that asked for it)")
	}
	return s.made
}

func TestMain(m *testing.M) {
	var err error
	if sharedMediaDir, err = os.MkdirTemp("", "clips-app-media"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(sharedMediaDir)
	os.Exit(code)
}

// worker runs a worker in-process until the test ends.
func (h *harness) worker() {
	h.T.Helper()
	port := testkit.ReservePort(h.T)
	testkit.StartService(h.T, "clips-worker", app.RunWorker, h.EnvWith("HOOKLINE_HTTP_ADDR", port.InProcess(h.T)), port.URL+"/readyz")
}

// workerProcess runs `clips worker` as a process (one a test can kill).
func (h *harness) workerProcess(name string) *exec.Cmd {
	h.T.Helper()
	bin := testkit.Build(h.T, "hookline.dev/services/clips/cmd/clips")
	port := testkit.ReservePort(h.T)
	// exec keeps the pid: killing the wrapper kills the worker.
	wrapper := filepath.Join(h.T.TempDir(), "clips-worker")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\nexec "+bin+" worker\n"), 0o700); err != nil { //nolint:gosec // G306: an executable test script
		h.T.Fatal(err)
	}
	cmd := testkit.StartProcessOn(h.T, name, wrapper, map[string]*testkit.Port{"HOOKLINE_HTTP_ADDR": port}, testkit.EnvList(h.Env)...)
	testkit.WaitHTTP(h.T, port.URL+"/readyz", 60*time.Second)
	return cmd
}

// ytdlp writes a stand-in yt-dlp: it copies <dir>/<video id>.mp4 to the
// file named by -o, as the real one downloads the watch URL after "--".
func ytdlp(t testing.TB, dir string) string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "yt-dlp")
	body := `#!/bin/sh
out=""; url=""
while [ $# -gt 0 ]; do
  case "$1" in -o) out="$2"; shift;; --) url="$2"; shift;; esac; shift
done
id="${url##*v=}"
echo "$id" >> "` + dir + `/ytdlp.log"
exec cp "` + dir + `/$id.mp4" "$out"
`
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil { //nolint:gosec // G306: an executable test script
		t.Fatal(err)
	}
	return script
}

// mediaServer serves files of a directory as direct media; a file can be
// served slowly, and requests are counted.
type mediaServer struct {
	*httptest.Server
	dir      string
	mu       sync.Mutex
	slow     map[string]time.Duration
	requests atomic.Int64
	started  chan string
}

func newMediaServer(t testing.TB) *mediaServer {
	m := &mediaServer{dir: t.TempDir(), slow: map[string]time.Duration{}, started: make(chan string, 16)}
	files := http.FileServer(http.Dir(m.dir))
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.requests.Add(1)
		m.mu.Lock()
		delay := m.slow[r.URL.Path]
		m.mu.Unlock()
		if strings.HasSuffix(r.URL.Path, ".bin") {
			w.Header().Set("Content-Type", "video/mp4") // a lie: corrupt media
		}
		if delay > 0 && r.Header.Get("Range") == "" {
			select {
			case m.started <- r.URL.Path:
			default:
			}
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(m.Close)
	return m
}

// put copies file into the server as name and returns its URL.
func (m *mediaServer) put(t testing.TB, file, name string) string {
	t.Helper()
	b, err := os.ReadFile(file) //nolint:gosec // G304: a test's own file
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(m.dir, name), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return m.URL + "/" + name
}

func (m *mediaServer) putText(t testing.TB, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(m.dir, name), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (m *mediaServer) ytdlpCalls() int {
	b, _ := os.ReadFile(filepath.Join(m.dir, "ytdlp.log"))
	return strings.Count(string(b), "\n")
}

// project is a project as the API returns it; pointers tell null.
type project struct {
	ID              string   `json:"id"`
	VideoTitle      string   `json:"videoTitle"`
	DownloadStatus  string   `json:"downloadStatus"`
	DownloadError   *string  `json:"downloadError"`
	PreparationStep string   `json:"preparationStep"`
	Progress        int      `json:"preparationProgress"`
	Format          string   `json:"format"`
	Duration        *float64 `json:"duration"`
	Transcript      *string  `json:"transcriptSource"`
	Analysis        struct {
		ContentType     string `json:"contentType"`
		SuggestedFormat string `json:"suggestedFormat"`
		SuggestedStyle  string `json:"suggestedStyle"`
		// TranscriptQuality is high or low.
		TranscriptQuality string `json:"transcriptQuality"`
	} `json:"analysis"`
	Clips   []clip     `json:"clips"`
	ReadyAt *time.Time `json:"readyAt"`
}

type clip struct {
	ID           string   `json:"id"`
	Title        string   `json:"title"`
	StartTime    float64  `json:"startTime"`
	EndTime      float64  `json:"endTime"`
	Hook         string   `json:"hook"`
	Category     string   `json:"category"`
	ViralScore   int      `json:"viralScore"`
	HookStrength string   `json:"hookStrength"`
	PlatformFit  []string `json:"platformFit"`
	Mood         string   `json:"mood"`
	Keywords     []string `json:"keywords"`
}

func (h *harness) create(org, url string) project {
	h.T.Helper()
	var p project
	h.Must(http.StatusCreated, http.MethodPost, "/clips/projects", org, map[string]string{"video_site_url": url}).Into(h.T, &p)
	return p
}

// wait polls the project until it leaves downloading.
func (h *harness) wait(org, id string, within time.Duration) project {
	h.T.Helper()
	var p project
	testkit.Eventually(h.T, within, "project "+id+" prepared", func() bool {
		h.Must(http.StatusOK, http.MethodGet, "/clips/projects/"+id, org, nil).Into(h.T, &p)
		return p.DownloadStatus != "downloading"
	})
	return p
}

// mark is a step and progress a client polling a project saw.
type mark struct {
	step     string
	progress int
}

// watch polls the project every 200 ms until it leaves downloading and
// returns it with every different step and progress seen on the way.
func (h *harness) watch(org, id string, within time.Duration) (project, []mark) {
	h.T.Helper()
	var p project
	var seen []mark
	deadline := time.Now().Add(within)
	for {
		h.Must(http.StatusOK, http.MethodGet, "/clips/projects/"+id, org, nil).Into(h.T, &p)
		if m := (mark{p.PreparationStep, p.Progress}); len(seen) == 0 || seen[len(seen)-1] != m {
			seen = append(seen, m)
		}
		if p.DownloadStatus != "downloading" {
			return p, seen
		}
		if time.Now().After(deadline) {
			h.T.Fatalf("project %s not prepared within %s (seen %v)", id, within, seen)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// recordedTalkVideo makes a talk of real speech (Asterisk's recorded
// prompts of five words or more, 1.5 s apart, over and over) lasting
// seconds over a still photo of a face at width×height, 25 frames a
// second, as H.264/AAC in dir.
func recordedTalkVideo(t testing.TB, dir string, seconds float64, width, height int) string {
	t.Helper()
	eval := mediatest.SpeechEvalDir(t)
	wav, _ := mediatest.RecordedTalk(t, eval, dir, mediatest.Prompts(t, eval, 5), 1.5)
	photo := filepath.Join(dir, "face.jpg")
	if err := os.WriteFile(photo, testkit.FacePhoto(t), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, fmt.Sprintf("talk-%.0fs-%dp.mp4", seconds, height))
	cmd := exec.CommandContext(t.Context(), "ffmpeg", "-v", "error", "-y", "-loop", "1", "-framerate", "25", "-i", photo, //nolint:gosec // G204: a test's own files
		"-stream_loop", "-1", "-i", wav, "-t", fmt.Sprint(seconds),
		"-vf", fmt.Sprintf("scale=%d:%d:force_original_aspect_ratio=decrease,pad=%d:%d:(ow-iw)/2:(oh-ih)/2,format=yuv420p", width, height, width, height),
		"-c:v", "libx264", "-preset", "ultrafast", "-tune", "stillimage", "-c:a", "aac", "-b:a", "96k", "-shortest", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v\n%s", err, b)
	}
	return out
}

// captions are segments of the spoken spans, as a caption track.
func captions(spans []mediatest.Span) []videosite.Segment {
	segs := make([]videosite.Segment, len(spans))
	for i, s := range spans {
		segs[i] = videosite.Segment{Start: s.Start, End: s.End, Text: s.Text}
	}
	return segs
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
