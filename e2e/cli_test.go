package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"image/jpeg"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"hookline.dev/pkg/testkit"
)

// cli builds the hookline command and returns a runner of it against the
// stack with a key, as a user with HOOKLINE_API_KEY and HOOKLINE_BASE_URL
// set (the base URL as make up prints it, with /api/v1).
func (s *stack) cli() func(key string, args ...string) (stdout, stderr string, err error) {
	s.t.Helper()
	command := s.cliCommand()
	return func(key string, args ...string) (string, string, error) {
		cmd := command(key, args...)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		return o.String(), e.String(), err
	}
}

// cliCommand builds the hookline command and returns a maker of its
// commands against the stack with a key.
func (s *stack) cliCommand() func(key string, args ...string) *exec.Cmd {
	s.t.Helper()
	bin := filepath.Join(s.t.TempDir(), "hookline")
	build := exec.Command("go", "build", "-o", bin, "hookline.dev/sdk/go/cmd/hookline")
	if out, err := build.CombinedOutput(); err != nil {
		s.t.Fatalf("build hookline: %v %s", err, out)
	}
	return func(key string, args ...string) *exec.Cmd {
		cmd := exec.Command(bin, args...) //nolint:gosec // G204: the test's own binary
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.t.TempDir(), "HOOKLINE_API_KEY=" + key, "HOOKLINE_BASE_URL=" + s.base + "/api/v1"}
		cmd.Dir = s.t.TempDir() // no .hookline/dev.env above it
		return cmd
	}
}

// The hookline CLI through the gateway and the real services: a face
// from a local photo, a thumbnail with it saved as a decodable JPEG, a
// clip project waited for, a render waited for and downloaded as a
// playable MP4, the credits it all cost, and a 402 that exits non-zero
// with its code.
func TestCLIThroughTheGateway(t *testing.T) {
	s := startStack(t)
	var slow atomic.Int64
	media := faceTalk(t, &slow)
	s.startClips("HOOKLINE_FETCH_ALLOW_HOSTS=127.0.0.1", "HOOKLINE_CLIPS_RENDER_HEIGHT=1280", "HOOKLINE_CLIPS_RENDER_PRESET=ultrafast")
	_, key := s.newOrg("pro")
	_, broke := s.newOrg("payg") // no credits at all
	s.waitTotal(key, 500)
	run := s.cli()
	hookline := func(args ...string) (string, string, error) { return run(key, args...) }
	dir := t.TempDir()

	photo := filepath.Join(dir, "me.jpg")
	if err := os.WriteFile(photo, testkit.FacePhoto(t), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, errOut, err := hookline("faces", "create", "--name", "Ada", "--photo", photo); err != nil {
		t.Fatalf("faces create: %v\n%s%s", err, out, errOut)
	}
	thumb := filepath.Join(dir, "thumb.jpg")
	out, errOut, err := hookline("thumbnails", "generate", "--prompt", "My honest review", "--face", "Ada", "--out", thumb)
	if err != nil {
		t.Fatalf("thumbnails generate: %v\n%s%s", err, out, errOut)
	}
	f, err := os.Open(thumb) //nolint:gosec // G304: the test's own file
	if err != nil {
		t.Fatal(err)
	}
	img, err := jpeg.Decode(f)
	_ = f.Close()
	if err != nil {
		t.Fatalf("%s is not a JPEG: %v", thumb, err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 720 {
		t.Errorf("thumbnail %v, want 1280x720", b)
	}

	out, errOut, err = hookline("--json", "clips", "create", media.URL+"/talk.mp4", "--wait")
	if err != nil {
		t.Fatalf("clips create: %v\n%s", err, errOut)
	}
	var project struct {
		ID             string `json:"id"`
		DownloadStatus string `json:"downloadStatus"`
		Clips          []struct {
			ID                 string
			StartTime, EndTime float64
		} `json:"clips"`
	}
	if err := json.Unmarshal([]byte(out), &project); err != nil || project.DownloadStatus != "ready" || len(project.Clips) == 0 {
		t.Fatalf("project %q (%v), stderr %s", out, err, errOut)
	}
	if !strings.Contains(errOut, "ready (done)") {
		t.Errorf("no progress of the preparation on stderr: %s", errOut)
	}

	clip := project.Clips[0]
	mp4s := filepath.Join(dir, "renders")
	out, errOut, err = hookline("clips", "render", project.ID, clip.ID, "--style", "bold", "--wait", "--download", mp4s)
	if err != nil {
		t.Fatalf("clips render: %v\n%s%s", err, out, errOut)
	}
	if !strings.Contains(errOut, "100% done") || !strings.Contains(out, "completed") {
		t.Errorf("render output %q, progress %q", out, errOut)
	}
	files, _ := filepath.Glob(filepath.Join(mp4s, "*.mp4"))
	if len(files) != 1 {
		t.Fatalf("downloaded %v", files)
	}
	w, h, vc, ac, dur := probe(t, files[0])
	if want := clip.EndTime - clip.StartTime; w != 720 || h != 1280 || vc != "h264" || ac != "aac" || math.Abs(dur-want) > 0.3 {
		t.Errorf("%s: %dx%d %s/%s %.2f s, want 720x1280 h264/aac %.2f s", files[0], w, h, vc, ac, dur, want)
	}
	// Every frame decodes: ffmpeg reads the whole file without an error.
	if out, err := exec.Command("ffmpeg", "-v", "error", "-i", files[0], "-f", "null", "-").CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("decoding %s: %v %s", files[0], err, out)
	}

	// 1 credit for the thumbnail, 2 for the render.
	s.waitTotal(key, 497)
	out, _, err = hookline("--json", "credits")
	var cr struct {
		Credits struct{ Total int } `json:"credits"`
	}
	if err != nil || json.Unmarshal([]byte(out), &cr) != nil || cr.Credits.Total != 497 {
		t.Errorf("credits --json: %v %q", err, out)
	}

	// An organization without credits: 402, printed with its code.
	testkit.Eventually(t, 15*time.Second, "the payg account opened", func() bool {
		_, body := s.do("GET", "/api/v1/account/credits", broke, nil)
		return body["data"].(map[string]any)["tier"] == "payg"
	})
	out, errOut, err = run(broke, "thumbnails", "generate", "--prompt", "My honest review", "--out", filepath.Join(dir, "never.jpg"))
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || out != "" || !strings.Contains(errOut, "insufficient_credits") || !strings.Contains(errOut, "HTTP 402") {
		t.Errorf("without credits: %v, stdout %q, stderr %q", err, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "never.jpg")); err == nil {
		t.Error("a refused generation wrote a file")
	}
}
