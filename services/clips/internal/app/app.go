// Package app wires the clips service in its two roles: the API (project
// endpoints, answering creation at once; the brands read model and the
// assets client asked on its misses) and the worker (the CLIPS_JOBS work
// queue: source preparation). Both open the same dependencies in order
// (telemetry, Postgres, NATS JetStream, S3) and stop together.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"hookline.dev/pkg/config"
	"hookline.dev/pkg/credits"
	"hookline.dev/pkg/events"
	"hookline.dev/pkg/messaging"
	"hookline.dev/pkg/platform"
	"hookline.dev/pkg/s3store"
	"hookline.dev/pkg/safefetch"
	"hookline.dev/pkg/telemetry"
	"hookline.dev/pkg/textai"
	"hookline.dev/pkg/tiers"
	"hookline.dev/pkg/videosite"
	"hookline.dev/pkg/vision"
	"hookline.dev/services/clips/internal/httpapi"
	"hookline.dev/services/clips/internal/media"
	"hookline.dev/services/clips/internal/moments"
	"hookline.dev/services/clips/internal/natsrpc"
	"hookline.dev/services/clips/internal/postgres"
	"hookline.dev/services/clips/internal/renderer"
	"hookline.dev/services/clips/internal/service"
	"hookline.dev/services/clips/internal/transcribe"
	"hookline.dev/services/clips/migrations"
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

	// Workers is how many jobs a worker process runs at once; JobAckWait
	// is how long a job of a crashed worker waits before another takes it
	// (a running job keeps its message with in-progress acks); MaxAttempts
	// bounds a project's preparation attempts.
	Workers     int           `env:"HOOKLINE_CLIPS_WORKERS" default:"1"`
	JobAckWait  time.Duration `env:"HOOKLINE_CLIPS_JOB_ACK_WAIT" default:"60s"`
	MaxAttempts int           `env:"HOOKLINE_CLIPS_MAX_ATTEMPTS" default:"3"`
	WorkDir     string        `env:"HOOKLINE_CLIPS_WORK_DIR"`

	// RenderHeight is the long side of renders: 1920 (1080×1920 and
	// 1920×1080) or 1280 (720p); RenderPreset is x264's.
	RenderHeight int    `env:"HOOKLINE_CLIPS_RENDER_HEIGHT" default:"1920"`
	RenderPreset string `env:"HOOKLINE_CLIPS_RENDER_PRESET" default:"veryfast"`
	// RecoveryInterval is how often unsettled reservations are looked for;
	// RecoveryGrace how long one may stay open before the pass decides
	// (a render still pending or running is left to its worker).
	RecoveryInterval time.Duration `env:"HOOKLINE_RECOVERY_INTERVAL" default:"30s"`
	RecoveryGrace    time.Duration `env:"HOOKLINE_RECOVERY_GRACE" default:"2m"`

	FFmpeg  string `env:"HOOKLINE_FFMPEG"`
	FFprobe string `env:"HOOKLINE_FFPROBE"`

	// Speech recognition for sources without captions: local
	// (pocketsphinx, offline) or openai (any OpenAI-compatible
	// /v1/audio/transcriptions, whisper.cpp servers included).
	TranscribeProvider string        `env:"HOOKLINE_TRANSCRIBE_PROVIDER" default:"local"`
	TranscribeAPIKey   string        `env:"HOOKLINE_TRANSCRIBE_API_KEY"`
	TranscribeBaseURL  string        `env:"HOOKLINE_TRANSCRIBE_BASE_URL"`
	TranscribeModel    string        `env:"HOOKLINE_TRANSCRIBE_MODEL"`
	TranscribeTimeout  time.Duration `env:"HOOKLINE_TRANSCRIBE_TIMEOUT" default:"10m"`
	Pocketsphinx       string        `env:"HOOKLINE_POCKETSPHINX"`
}

func (c *Config) fetch() safefetch.Config {
	return safefetch.Config{Timeout: c.FetchTimeout, AllowHosts: c.FetchAllowHosts, DenyHosts: c.FetchDenyHosts}
}

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
	if c.RecoveryInterval <= 0 || c.RecoveryGrace <= messaging.DefaultRequestTimeout {
		errs = append(errs, fmt.Errorf("HOOKLINE_RECOVERY_INTERVAL must be positive and HOOKLINE_RECOVERY_GRACE over %s", messaging.DefaultRequestTimeout))
	}
	if c.MaxDownloadMB <= 0 || c.Workers <= 0 || c.MaxAttempts <= 0 {
		errs = append(errs, errors.New("HOOKLINE_CLIPS_MAX_DOWNLOAD_MB, _WORKERS and _MAX_ATTEMPTS must be positive"))
	}
	if _, err := c.transcriber(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// moments is the local engine, or a chat model's wording over it.
func (c *Config) moments() (moments.Engine, error) {
	m, err := textai.Model(c.Text)
	if err != nil {
		return nil, err
	}
	return moments.NewEngine(m), nil
}

func (c *Config) transcriber() (transcribe.Engine, error) {
	return transcribe.New(c.TranscribeProvider, c.TranscribeBaseURL, c.TranscribeAPIKey, c.TranscribeModel, c.TranscribeTimeout, c.Pocketsphinx)
}

// assetsTimeout bounds the wait for the assets service's answer about a
// brand the read model has not seen: a primary-key read there, so past it
// assets is as good as down and the render request answers 503.
const assetsTimeout = 2 * time.Second

// Run starts the API and blocks until ctx is cancelled or a part fails.
func Run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	return run(ctx, getenv, stdout, false)
}

// RunWorker starts a worker: it takes preparation and render jobs from the
// CLIPS_JOBS work queue and serves only the health probes.
func RunWorker(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	return run(ctx, getenv, stdout, true)
}

func run(ctx context.Context, getenv func(string) string, stdout io.Writer, worker bool) error {
	var cfg Config
	if err := config.Load(getenv, &cfg); err != nil {
		return err
	}
	name := "clips"
	if worker {
		name = "clips-worker"
	}
	p, err := platform.Open(ctx, getenv, stdout, platform.Options{
		Name: name, Common: cfg.Common, Migrations: migrations.FS, SharedMigrations: []fs.FS{credits.Migrations},
	})
	if err != nil {
		return err
	}
	defer p.Close()

	blobs, err := s3store.Open(ctx, cfg.S3)
	if err != nil {
		return err
	}
	table, err := cfg.Tiers.Load()
	if err != nil {
		return err
	}
	stt, err := cfg.transcriber()
	if err != nil {
		return err
	}
	ranker, err := cfg.moments()
	if err != nil {
		return err
	}
	cc, err := credits.New(credits.Config{
		Billing: p.Bus, Pool: p.Pool, Source: service.Source, FailedSubject: events.ClipsRenderFailed,
		FailedPayload: service.FailedPayload, Log: p.Log,
	})
	if err != nil {
		return err
	}
	faces, err := vision.New()
	if err != nil {
		return err
	}
	store := postgres.New(p.Pool, cc)
	svc := &service.Service{
		Store:          store,
		Renders:        store,
		Brands:         store,
		BrandOwner:     &natsrpc.Assets{Bus: p.Bus, Timeout: assetsTimeout},
		Music:          store,
		Broll:          store,
		Fetch:          safefetch.New(cfg.fetch()),
		Credits:        cc,
		Renderer:       &renderer.Renderer{FFmpeg: cfg.FFmpeg, Preset: cfg.RenderPreset, Faces: faces},
		RenderSettings: service.RenderSettings{Height: cfg.RenderHeight, HookSeconds: 2.5, EndCardSeconds: 2.5},
		PublicURL:      blobs.PublicURL,
		Videos: videosite.New(videosite.Config{
			SiteBase: cfg.VideoSiteBase, TimedTextBase: cfg.VideoSiteTimedTextBase, YTDLP: cfg.YTDLP, Fetch: cfg.fetch(),
			MaxDownloadBytes: cfg.MaxDownloadMB << 20, DownloadTimeout: cfg.DownloadTimeout,
		}),
		Media:          media.Tools{FFmpeg: cfg.FFmpeg, FFprobe: cfg.FFprobe},
		Transcriber:    stt,
		Blobs:          blobs,
		Moments:        ranker,
		Tiers:          table,
		Log:            p.Log,
		CreateDeadline: cfg.CreateDeadline,
		MaxAttempts:    cfg.MaxAttempts,
		WorkDir:        cfg.WorkDir,
	}

	ready := func(ctx context.Context) error { return errors.Join(p.Ready(ctx), blobs.Ping(ctx)) }
	if !worker {
		handler := telemetry.HTTPMiddleware(name)(httpapi.Handler(svc, []byte(cfg.PrincipalSecret), ready, p.Log))
		return p.Serve(ctx, stdout, platform.Server{Addr: cfg.Addr, Handler: handler},
			cc.RecoveryWorker(cfg.RecoveryInterval, cfg.RecoveryGrace, svc.ResolveReservation),
			func(ctx context.Context) error {
				return p.Bus.Consume(ctx, messaging.ConsumerConfig{
					Durable: events.DurableClipsAssets, Stream: events.StreamAssets, Subjects: service.AssetsSubjects,
				}, svc.HandleAssetEvent)
			})
	}
	handler := telemetry.HTTPMiddleware(name)(httpapi.Handler(nil, []byte(cfg.PrincipalSecret), ready, p.Log))
	return p.Serve(ctx, stdout, platform.Server{Addr: cfg.Addr, Handler: handler},
		func(ctx context.Context) error {
			return p.Bus.Consume(ctx, jobConsumer(&cfg, svc, events.DurableClipsPrepare, events.ClipsJobPrepareSource), svc.HandlePrepare)
		},
		func(ctx context.Context) error {
			return p.Bus.Consume(ctx, jobConsumer(&cfg, svc, events.DurableClipsRender, events.ClipsJobRender), svc.HandleRender)
		},
	)
}

// jobConsumer is the durable consumer of one kind of CLIPS_JOBS job:
// cfg.Workers run at once in this process, and a crashed worker's job
// waits cfg.JobAckWait before another takes it.
func jobConsumer(cfg *Config, svc *service.Service, durable, subject string) messaging.ConsumerConfig {
	return messaging.ConsumerConfig{
		Durable: durable, Stream: events.StreamClipsJobs, Subjects: []string{subject},
		MaxDeliver: svc.MaxDeliveries(), AckWait: cfg.JobAckWait, Workers: cfg.Workers, MaxAckPending: 64,
	}
}
