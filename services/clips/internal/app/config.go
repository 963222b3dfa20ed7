package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"hookline.dev/pkg/ai/chatmodel"
	"hookline.dev/pkg/contracts/tiers"
	"hookline.dev/pkg/platform/config"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/safefetch"
	"hookline.dev/services/clips/internal/apertium"
	"hookline.dev/services/clips/internal/moments"
	"hookline.dev/services/clips/internal/transcribe"
	"hookline.dev/services/clips/internal/translate"
	"hookline.dev/services/clips/internal/wordnet"
)

// Config is the clips service's configuration, for both roles.
type Config struct {
	config.Common `default:"HOOKLINE_HTTP_ADDR=:8084,HOOKLINE_DB_SCHEMA=clips"`
	config.S3
	config.Fetch
	config.VideoSite
	// Text: a chat model for the clips' titles and hooks (local: none).
	config.Text
	Tiers tiers.Source

	// CreateDeadline bounds the fetches of POST /clips/projects.
	CreateDeadline time.Duration `env:"HOOKLINE_CLIPS_CREATE_DEADLINE" default:"20s"`
	// MaxDownloadMB and DownloadTimeout bound one source download.
	MaxDownloadMB   int64         `env:"HOOKLINE_CLIPS_MAX_DOWNLOAD_MB" default:"4096"`
	DownloadTimeout time.Duration `env:"HOOKLINE_CLIPS_DOWNLOAD_TIMEOUT" default:"30m"`

	// Workers is how many jobs that use the cores a worker process runs
	// at once (renders; a preparation from probing to measuring), and
	// RenderThreads how many threads each render's encode gets; 0 (the
	// default) derives them from the CPUs the process has (see
	// concurrency). JobAckWait is how long a job of a crashed worker
	// waits before another takes it (a running job keeps its message
	// with in-progress acks); MaxAttempts bounds a project's preparation
	// attempts.
	Workers       int           `env:"HOOKLINE_CLIPS_WORKERS" default:"0"`
	RenderThreads int           `env:"HOOKLINE_CLIPS_RENDER_THREADS" default:"0"`
	JobAckWait    time.Duration `env:"HOOKLINE_CLIPS_JOB_ACK_WAIT" default:"60s"`
	MaxAttempts   int           `env:"HOOKLINE_CLIPS_MAX_ATTEMPTS" default:"3"`
	WorkDir       string        `env:"HOOKLINE_CLIPS_WORK_DIR"`

	// Preparations is how many preparation jobs a worker process runs at
	// once: downloading, then waiting for one of the Workers slots to
	// measure. OrgPreparations is how many of them one organization may
	// hold: fewer than all, so another organization's job always finds a
	// slot; an organization's further jobs wait in the queue.
	Preparations    int `env:"HOOKLINE_CLIPS_PREPARATIONS" default:"4"`
	OrgPreparations int `env:"HOOKLINE_CLIPS_ORG_PREPARATIONS" default:"2"`
	// A download (direct media) that receives no byte for
	// DownloadIdleTimeout, or less than DownloadMinRateKiB KiB a second
	// over a DownloadRateWindow, fails with the reason. The default rate
	// is about what a source must keep to arrive within the download
	// timeout at all; yt-dlp is given the idle timeout only.
	DownloadIdleTimeout time.Duration `env:"HOOKLINE_CLIPS_DOWNLOAD_IDLE_TIMEOUT" default:"30s"`
	DownloadMinRateKiB  int64         `env:"HOOKLINE_CLIPS_DOWNLOAD_MIN_RATE_KIB" default:"32"`
	DownloadRateWindow  time.Duration `env:"HOOKLINE_CLIPS_DOWNLOAD_RATE_WINDOW" default:"60s"`

	// RenderHeight is the long side of renders: 1920 (1080×1920 and
	// 1920×1080) or 1280 (720p); RenderPreset, RenderCRF and
	// RenderX264Params (key=value:key=value, empty for none) are x264's.
	RenderHeight     int    `env:"HOOKLINE_CLIPS_RENDER_HEIGHT" default:"1920"`
	RenderPreset     string `env:"HOOKLINE_CLIPS_RENDER_PRESET" default:"veryfast"`
	RenderCRF        int    `env:"HOOKLINE_CLIPS_RENDER_CRF" default:"21"`
	RenderX264Params string `env:"HOOKLINE_CLIPS_RENDER_X264_PARAMS"`
	// RecoveryInterval is how often unsettled reservations are looked for;
	// RecoveryGrace how long one may stay open before the pass decides
	// (a render still pending or running is left to its worker).
	RecoveryInterval time.Duration `env:"HOOKLINE_RECOVERY_INTERVAL" default:"30s"`
	RecoveryGrace    time.Duration `env:"HOOKLINE_RECOVERY_GRACE" default:"2m"`

	FFmpeg  string `env:"HOOKLINE_FFMPEG"`
	FFprobe string `env:"HOOKLINE_FFPROBE"`

	// FaceModel is dlib's 68-point landmark model: the reframing reads
	// each face's mouth from it to tell who is speaking (Debian's
	// libdlib-data installs it here).
	FaceModel string `env:"HOOKLINE_FACE_MODEL" default:"/usr/share/dlib/shape_predictor_68_face_landmarks.dat"`

	// Speech recognition for sources without captions: local (Moonshine
	// tiny on ONNX Runtime, offline, words timed by pocketsphinx),
	// pocketsphinx (alone: lighter, about half the words) or openai (any
	// OpenAI-compatible /v1/audio/transcriptions, whisper.cpp servers
	// included).
	TranscribeProvider string        `env:"HOOKLINE_TRANSCRIBE_PROVIDER" default:"local"`
	TranscribeAPIKey   string        `env:"HOOKLINE_TRANSCRIBE_API_KEY"`
	TranscribeBaseURL  string        `env:"HOOKLINE_TRANSCRIBE_BASE_URL"`
	TranscribeModel    string        `env:"HOOKLINE_TRANSCRIBE_MODEL"`
	TranscribeTimeout  time.Duration `env:"HOOKLINE_TRANSCRIBE_TIMEOUT" default:"10m"`
	// ModelCheck is how often the worker asks the transcription server
	// whether the model still exists (and once at start-up).
	ModelCheck   time.Duration `env:"HOOKLINE_MODEL_CHECK_INTERVAL" default:"10m"`
	Pocketsphinx string        `env:"HOOKLINE_POCKETSPHINX"`
	// MoonshineDir holds Moonshine tiny's encoder_model.onnx,
	// decoder_model_merged.onnx and tokens.txt, ONNXRuntimeLib the
	// library that runs them (scripts/deps.sh speech; the image's paths
	// are the defaults).
	MoonshineDir   string `env:"HOOKLINE_MOONSHINE_DIR" default:"/usr/local/share/moonshine/tiny"`
	ONNXRuntimeLib string `env:"HOOKLINE_ONNXRUNTIME_LIB" default:"/usr/local/lib/libonnxruntime.so.1"`
	// Apertium is the offline caption translator's command; its language
	// pairs are the ones installed (scripts/deps.sh translation).
	Apertium string `env:"HOOKLINE_APERTIUM" default:"apertium"`
	// WordNetDir holds WordNet's database (Debian's wordnet-base), which
	// widens a prompt's words with their synonyms and relations.
	WordNetDir string `env:"HOOKLINE_WORDNET_DIR" default:"/usr/share/wordnet"`
}

func (c *Config) fetch() safefetch.Config {
	return safefetch.Config{Timeout: c.FetchTimeout, AllowHosts: c.FetchAllowHosts, DenyHosts: c.FetchDenyHosts,
		Stall: safefetch.Stall{Idle: c.DownloadIdleTimeout, MinRate: c.DownloadMinRateKiB << 10, Window: c.DownloadRateWindow}}
}

// x264Presets are x264's presets, fastest first.
var x264Presets = []string{"ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"}

// x264Params is the form of ffmpeg's -x264-params: key=value pairs joined
// by colons, nothing a command line or a filtergraph could take apart.
var x264Params = regexp.MustCompile(`^[a-z0-9_-]+=[A-Za-z0-9.,+-]+(:[a-z0-9_-]+=[A-Za-z0-9.,+-]+)*$`)

// Validate checks the configuration.
func (c *Config) Validate() error {
	errs := []error{c.Common.Validate(), c.S3.Validate(), c.Fetch.Validate(), c.fetch().Validate(), c.Text.Validate()}
	if _, err := c.Tiers.Load(); err != nil {
		errs = append(errs, err)
	}
	for name, d := range map[string]time.Duration{
		"HOOKLINE_CLIPS_CREATE_DEADLINE": c.CreateDeadline, "HOOKLINE_CLIPS_DOWNLOAD_TIMEOUT": c.DownloadTimeout,
		"HOOKLINE_CLIPS_JOB_ACK_WAIT": c.JobAckWait, "HOOKLINE_TRANSCRIBE_TIMEOUT": c.TranscribeTimeout,
	} {
		if d <= 0 {
			errs = append(errs, fmt.Errorf("%s must be positive", name))
		}
	}
	if c.RenderHeight != 1920 && c.RenderHeight != 1280 {
		errs = append(errs, errors.New("HOOKLINE_CLIPS_RENDER_HEIGHT must be 1920 or 1280"))
	}
	if c.RenderCRF < 1 || c.RenderCRF > 51 {
		errs = append(errs, errors.New("HOOKLINE_CLIPS_RENDER_CRF must be 1 to 51"))
	}
	if !slices.Contains(x264Presets, c.RenderPreset) {
		errs = append(errs, fmt.Errorf("HOOKLINE_CLIPS_RENDER_PRESET must be one of x264's presets: %s", strings.Join(x264Presets, ", ")))
	}
	if c.RenderX264Params != "" && !x264Params.MatchString(c.RenderX264Params) {
		errs = append(errs, errors.New("HOOKLINE_CLIPS_RENDER_X264_PARAMS must be key=value pairs joined by colons (ffmpeg's -x264-params), e.g. aq-mode=2:ref=2"))
	}
	if c.RecoveryInterval <= 0 || c.RecoveryGrace <= messaging.DefaultRequestTimeout {
		errs = append(errs, fmt.Errorf("HOOKLINE_RECOVERY_INTERVAL must be positive and HOOKLINE_RECOVERY_GRACE over %s", messaging.DefaultRequestTimeout))
	}
	if c.MaxDownloadMB <= 0 || c.MaxAttempts <= 0 {
		errs = append(errs, errors.New("HOOKLINE_CLIPS_MAX_DOWNLOAD_MB and _MAX_ATTEMPTS must be positive"))
	}
	if c.Workers < 0 || c.RenderThreads < 0 {
		errs = append(errs, errors.New("HOOKLINE_CLIPS_WORKERS and _RENDER_THREADS must not be negative (0: from the CPUs)"))
	}
	if c.OrgPreparations <= 0 || c.OrgPreparations >= c.Preparations {
		errs = append(errs, errors.New("HOOKLINE_CLIPS_ORG_PREPARATIONS must be at least 1 and under HOOKLINE_CLIPS_PREPARATIONS: one organization must never hold every slot"))
	}
	if c.DownloadIdleTimeout <= 0 || c.DownloadMinRateKiB < 0 || c.DownloadRateWindow <= 0 {
		errs = append(errs, errors.New("HOOKLINE_CLIPS_DOWNLOAD_IDLE_TIMEOUT and _RATE_WINDOW must be positive, _MIN_RATE_KIB not negative"))
	}
	if _, err := c.transcriber(nil); err != nil {
		errs = append(errs, err)
	}
	if _, err := os.Stat(filepath.Join(c.WordNetDir, "index.noun")); err != nil {
		errs = append(errs, fmt.Errorf("HOOKLINE_WORDNET_DIR: no WordNet database (scripts/deps.sh unit-tools installs wordnet-base): %w", err))
	}
	return errors.Join(errs...)
}

// concurrency is how many jobs that use the cores the worker runs at once
// and how many threads each render's encode gets, on cpus CPUs (the
// cgroup's quota, platform.ContainerCPUs): HOOKLINE_CLIPS_WORKERS and
// _RENDER_THREADS when set, else one job per whole CPU, each encode with
// one thread: x264's frame threads wait on each other's rows and much of
// a render runs on one thread anyway, so one-thread encodes side by side
// keep the cores busy, and two worker processes sharing the cores run
// one-thread encodes instead of multi-threaded ones fighting for them
// (bench/RESULTS.md, `bench/run.sh clips-batch`).
func (c *Config) concurrency(cpus float64) (jobs, threads int) {
	jobs = c.Workers
	if jobs == 0 {
		jobs = max(1, int(cpus))
	}
	threads = c.RenderThreads
	if threads == 0 {
		threads = max(1, int(cpus)/jobs)
	}
	return jobs, threads
}

// moments is the local engine, or a chat model's wording over it, with
// WordNet for prompts.
func (c *Config) moments() (moments.Engine, error) {
	m, err := chatmodel.FromConfig(c.Text)
	if err != nil {
		return nil, err
	}
	lx, err := openWordNet(c.WordNetDir)
	if err != nil {
		return nil, fmt.Errorf("HOOKLINE_WORDNET_DIR: %w (scripts/deps.sh unit-tools installs wordnet-base)", err)
	}
	return moments.NewEngine(m, lx), nil
}

// wordNets are the databases opened, by directory: read-only, so shared
// by every app of a process (the tests start many).
var wordNets = struct {
	sync.Mutex
	m map[string]*wordnet.DB
}{m: map[string]*wordnet.DB{}}

func openWordNet(dir string) (*wordnet.DB, error) {
	wordNets.Lock()
	defer wordNets.Unlock()
	if db, ok := wordNets.m[dir]; ok {
		return db, nil
	}
	db, err := wordnet.Open(dir)
	if err != nil {
		return nil, err
	}
	wordNets.m[dir] = db
	return db, nil
}

// translators are the caption translators, preferred first: the text
// provider's model when one is configured (fluent), then Apertium's
// installed pairs (draft). An Apertium that is missing leaves the
// provider alone (or the spoken language only), and the log says so.
func (c *Config) translators(ctx context.Context, log *slog.Logger) (translate.Translators, error) {
	var ts translate.Translators
	m, err := chatmodel.FromConfig(c.Text)
	if err != nil {
		return nil, err
	}
	if m != nil {
		ts = append(ts, &translate.Provider{Model: m})
	}
	a, err := apertium.New(ctx, c.Apertium)
	if err != nil {
		log.WarnContext(ctx, "no offline caption translation", "err", err)
		return ts, nil
	}
	return append(ts, a), nil
}

func (c *Config) transcriber(log *slog.Logger) (transcribe.Engine, error) {
	return transcribe.New(c.TranscribeProvider, c.TranscribeBaseURL, c.TranscribeAPIKey, c.TranscribeModel, c.TranscribeTimeout,
		transcribe.Local{MoonshineDir: c.MoonshineDir, ONNXRuntimeLib: c.ONNXRuntimeLib, Pocketsphinx: c.Pocketsphinx}, log)
}

// assetsTimeout bounds the wait for the assets service's answer about a
// brand the read model has not seen: a primary-key read there, so past it
// assets is as good as down and the render request answers 503.
const assetsTimeout = 2 * time.Second
