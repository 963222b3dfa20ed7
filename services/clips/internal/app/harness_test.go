package app_test

import (
	"context"
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

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"hookline.dev/pkg/pgkit"
	"hookline.dev/pkg/principal"
	"hookline.dev/pkg/testkit"
	"hookline.dev/pkg/videosite"
	"hookline.dev/pkg/videosite/videositefake"
	"hookline.dev/services/clips/internal/app"
	"hookline.dev/services/clips/internal/mediatest"
)

const secret = "test-principal-secret-0123456789abcdef"

// harness runs the clips API in-process on a fresh schema, bucket and NATS
// namespace, with a fake video site, a media server for direct addresses
// and a stand-in yt-dlp that copies the site's videos from the media
// server's directory. Workers are started by the tests that want them.
type harness struct {
	t      testing.TB
	url    string
	env    map[string]string
	pool   *pgxpool.Pool
	site   *videositefake.Server
	media  *mediaServer
	client *http.Client
}

func newHarness(t testing.TB, overrides ...string) *harness {
	t.Helper()
	mediatest.Require(t)
	schema := testkit.Schema(t, "clips")
	ns := testkit.Namespace(t)
	addr := testkit.FreeAddr(t)
	s3 := testkit.Bucket(t)
	s3.Client(t) // the bucket goes after the service stops
	h := &harness{t: t, url: "http://" + addr, site: videositefake.New(t), media: newMediaServer(t), client: &http.Client{Timeout: 60 * time.Second}}
	env := append(s3.Env(),
		"HOOKLINE_VIDEOSITE_BASE", h.site.URL,
		"HOOKLINE_VIDEOSITE_TIMEDTEXT_BASE", h.site.URL,
		"HOOKLINE_YTDLP", ytdlp(t, h.media.dir),
		"HOOKLINE_FETCH_ALLOW_HOSTS", "127.0.0.1",
		"HOOKLINE_CLIPS_JOB_ACK_WAIT", "3s",
		"HOOKLINE_DEBUG_ADDR", "",
		"HOOKLINE_TIERS", `{"tiers": [{"name": "pro", "monthlyCredits": 10, "billingCycle": "monthly", "rateLimit": {"perSecond": 100, "burst": 100}, "quotas": {"sourceMinutes": 2}}]}`,
	)
	h.env = testkit.ServiceEnv(t, schema, ns, addr, secret, append(env, overrides...)...)
	testkit.StartService(t, "clips", app.Run, h.env, h.url+"/readyz")
	var err error
	if h.pool, err = pgkit.Connect(context.Background(), testkit.DatabaseURL(t), schema, pgkit.Options{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.pool.Close)
	return h
}

// worker runs a worker in-process until the test ends.
func (h *harness) worker() {
	h.t.Helper()
	env := map[string]string{}
	for k, v := range h.env {
		env[k] = v
	}
	addr := testkit.FreeAddr(h.t)
	env["HOOKLINE_HTTP_ADDR"] = addr
	testkit.StartService(h.t, "clips-worker", app.RunWorker, env, "http://"+addr+"/readyz")
}

var clipsBin = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "clips-bin")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "clips")
	out, err := exec.Command("go", "build", "-o", bin, "hookline.dev/services/clips/cmd/clips").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build clips: %w: %s", err, out)
	}
	return bin, nil
})

// workerProcess runs `clips worker` as a process (one a test can kill).
func (h *harness) workerProcess(name string) *exec.Cmd {
	h.t.Helper()
	bin, err := clipsBin()
	if err != nil {
		h.t.Fatal(err)
	}
	env := map[string]string{}
	for k, v := range h.env {
		env[k] = v
	}
	addr := testkit.FreeAddr(h.t)
	env["HOOKLINE_HTTP_ADDR"] = addr
	// exec keeps the pid: killing the wrapper kills the worker.
	wrapper := filepath.Join(h.t.TempDir(), "clips-worker")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\nexec "+bin+" worker\n"), 0o700); err != nil { //nolint:gosec // G306: an executable test script
		h.t.Fatal(err)
	}
	cmd := testkit.StartProcess(h.t, name, wrapper, testkit.EnvList(env)...)
	testkit.WaitHTTP(h.t, "http://"+addr+"/readyz", 60*time.Second)
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

func sign(t testing.TB, org string) string {
	t.Helper()
	v, err := principal.Sign([]byte(secret), principal.Principal{OrgID: org, KeyID: "k", Tier: "pro", RequestID: uuid.NewString(),
		Expires: time.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func (h *harness) do(method, path, org string, body any) testkit.Response {
	h.t.Helper()
	var headers []string
	if org != "" {
		headers = []string{principal.Header, sign(h.t, org)}
	}
	return testkit.Call(h.t, h.client, method, h.url+path, body, headers...)
}

func (h *harness) must(want int, method, path, org string, body any) testkit.Response {
	h.t.Helper()
	r := h.do(method, path, org, body)
	if r.Status != want {
		h.t.Fatalf("%s %s: status %d, want %d: %s", method, path, r.Status, want, r.Raw)
	}
	return r
}

// project is a project as the API returns it; pointers tell null.
type project struct {
	ID              string   `json:"id"`
	VideoTitle      string   `json:"videoTitle"`
	DownloadStatus  string   `json:"downloadStatus"`
	DownloadError   *string  `json:"downloadError"`
	PreparationStep string   `json:"preparationStep"`
	Format          string   `json:"format"`
	Duration        *float64 `json:"duration"`
	Transcript      *string  `json:"transcriptSource"`
	Analysis        struct {
		ContentType     string `json:"contentType"`
		SuggestedFormat string `json:"suggestedFormat"`
		SuggestedStyle  string `json:"suggestedStyle"`
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
	h.t.Helper()
	var p project
	h.must(http.StatusCreated, http.MethodPost, "/clips/projects", org, map[string]string{"video_site_url": url}).Into(h.t, &p)
	return p
}

// wait polls the project until it leaves downloading.
func (h *harness) wait(org, id string, within time.Duration) project {
	h.t.Helper()
	var p project
	testkit.Eventually(h.t, within, "project "+id+" prepared", func() bool {
		h.must(http.StatusOK, http.MethodGet, "/clips/projects/"+id, org, nil).Into(h.t, &p)
		return p.DownloadStatus != "downloading"
	})
	return p
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
