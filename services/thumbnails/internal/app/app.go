// Package app wires the thumbnails service: configuration, dependencies in
// order (telemetry, Postgres, NATS JetStream, S3), the image memory budget,
// the image engine chosen by configuration, the HTTP server, the outbox
// relay, the assets read-model consumer (and the assets client asked on
// its misses), the credit recovery pass, the template preview renderer and
// the return of the heap after image work, all stopped together.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"runtime/debug"
	"time"

	"hookline.dev/pkg/ai/chatmodel"
	"hookline.dev/pkg/ai/vendorapi"
	"hookline.dev/pkg/contracts/assetrecords"
	"hookline.dev/pkg/contracts/credits"
	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/media/imageinput"
	"hookline.dev/pkg/media/videosite"
	"hookline.dev/pkg/media/vision/dlib"
	"hookline.dev/pkg/platform"
	"hookline.dev/pkg/platform/config"
	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/s3store"
	"hookline.dev/pkg/platform/safefetch"
	"hookline.dev/pkg/platform/telemetry"
	"hookline.dev/services/thumbnails/internal/analyze/critique"
	"hookline.dev/services/thumbnails/internal/edits/matte"
	"hookline.dev/services/thumbnails/internal/generate/compose"
	"hookline.dev/services/thumbnails/internal/generate/engine"
	"hookline.dev/services/thumbnails/internal/generate/fallback"
	"hookline.dev/services/thumbnails/internal/generate/fluentemoji"
	"hookline.dev/services/thumbnails/internal/generate/gemini"
	"hookline.dev/services/thumbnails/internal/generate/openai"
	"hookline.dev/services/thumbnails/internal/httpapi"
	"hookline.dev/services/thumbnails/internal/libvips"
	"hookline.dev/services/thumbnails/internal/natsapi"
	"hookline.dev/services/thumbnails/internal/postgres"
	"hookline.dev/services/thumbnails/internal/service"
	"hookline.dev/services/thumbnails/internal/tesseract"
	"hookline.dev/services/thumbnails/internal/textai"
	"hookline.dev/services/thumbnails/migrations"
)

// Image providers of HOOKLINE_IMAGE_PROVIDER.
const (
	ProviderLocal  = "local"
	ProviderOpenAI = "openai"
	ProviderGemini = "gemini"
)

// Config is the thumbnails service's configuration.
type Config struct {
	config.Common `default:"HOOKLINE_HTTP_ADDR=:8083,HOOKLINE_DB_SCHEMA=thumbnails"`
	config.S3
	config.Fetch
	config.Text
	config.VideoSite

	// ImageMemoryMiB is the process's image memory budget (the pictures
	// in flight and the work on them, service/memory.go): with
	// processOverhead for the rest of the process it must fit the
	// container (HOOKLINE_MEMORY_LIMIT, else the cgroup's limit). The
	// default and the overhead make the 1 GiB container of
	// deploy/k8s/thumbnails.yaml and the Helm chart. ImageMemoryWait is
	// how long a request waits for memory before it is answered 503 with
	// Retry-After.
	ImageMemoryMiB  int64         `env:"HOOKLINE_IMAGE_MEMORY_MIB" default:"640"`
	ImageMemoryWait time.Duration `env:"HOOKLINE_IMAGE_MEMORY_WAIT" default:"10s"`
	// ImageWorkTimeout bounds the drawing of one picture (the local
	// engines' and libvips' work, or a provider's call): past it the work
	// is stopped and refunded, and the request answered 503.
	ImageWorkTimeout time.Duration `env:"HOOKLINE_IMAGE_WORK_TIMEOUT" default:"60s"`

	// ImageProvider picks the engine: local (the compositor, offline),
	// openai or gemini. A provider needs ImageAPIKey.
	ImageProvider string        `env:"HOOKLINE_IMAGE_PROVIDER" default:"local"`
	ImageAPIKey   string        `env:"HOOKLINE_IMAGE_API_KEY"`
	ImageBaseURL  string        `env:"HOOKLINE_IMAGE_BASE_URL"`
	ImageModel    string        `env:"HOOKLINE_IMAGE_MODEL"`
	ImageTimeout  time.Duration `env:"HOOKLINE_IMAGE_TIMEOUT" default:"60s"`
	// ModelCheck is how often the image and text providers are asked
	// whether their models still exist (and once at start-up): a retired
	// model makes the local engine stand in, /readyz say degraded and
	// hookline_provider_model_missing 1, until a check finds it again.
	ModelCheck time.Duration `env:"HOOKLINE_MODEL_CHECK_INTERVAL" default:"10m"`

	// RecoveryInterval is how often unsettled reservations are looked for
	// (the first look is at start-up). Those of a process that died are
	// settled at once; RecoveryGrace is how long one of a live process may
	// stay open before the recovery pass settles it anyway. It must exceed
	// the reserve timeout and the longest generation (a variations request
	// of ten on a slow provider).
	RecoveryInterval time.Duration `env:"HOOKLINE_RECOVERY_INTERVAL" default:"30s"`
	RecoveryGrace    time.Duration `env:"HOOKLINE_RECOVERY_GRACE" default:"10m"`

	// BackgroundModel is a user-supplied ONNX matting model for background
	// removal; empty means the classical segmentation. ONNXRuntimeLib is
	// the onnxruntime shared library that runs it.
	BackgroundModel string `env:"HOOKLINE_BG_MODEL"`
	ONNXRuntimeLib  string `env:"HOOKLINE_ONNXRUNTIME_LIB"`

	// EmojiDir holds the local engine's object art (Fluent Emoji 3D and
	// emojibase's keywords, scripts/deps.sh emoji; the image installs it
	// here). Without it the engine draws no objects and logs so once.
	EmojiDir string `env:"HOOKLINE_EMOJI_DIR" default:"/usr/local/share/hookline/fluent-emoji"`

	// FaceModel is dlib's 68-point landmark model: faces are found with
	// dlib's HOG detector and placed with its 68 points, which seed cut-outs
	// and align face swaps (Debian's libdlib-data installs it here).
	FaceModel string `env:"HOOKLINE_FACE_MODEL" default:"/usr/share/dlib/shape_predictor_68_face_landmarks.dat"`

	// Tessdata is the directory holding Tesseract's English model
	// (eng.traineddata), which the critique reads text with; empty means
	// the library's default (TESSDATA_PREFIX, else its built-in path).
	Tessdata string `env:"HOOKLINE_TESSDATA" default:"/usr/share/tesseract-ocr/5/tessdata"`
}

func (c *Config) fetch() safefetch.Config {
	return safefetch.Config{Timeout: c.FetchTimeout, AllowHosts: c.FetchAllowHosts, DenyHosts: c.FetchDenyHosts}
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	errs := []error{c.Common.Validate(), c.S3.Validate(), c.Fetch.Validate(), c.fetch().Validate(), c.Text.Validate()}
	if _, err := imageinput.NewBudget(c.imageMemory(), c.ImageMemoryWait); err != nil {
		errs = append(errs, fmt.Errorf("HOOKLINE_IMAGE_MEMORY_MIB, HOOKLINE_IMAGE_MEMORY_WAIT: %w", err))
	}
	if limit := platform.ContainerMemory(c.MemoryLimit); limit > 0 && c.imageMemory()+processOverhead > limit {
		errs = append(errs, fmt.Errorf("HOOKLINE_IMAGE_MEMORY_MIB=%d and the %d MiB the rest of the process needs do not fit the container's memory limit (HOOKLINE_MEMORY_LIMIT or its cgroup's, %d MiB)",
			c.ImageMemoryMiB, processOverhead>>20, limit>>20))
	}
	if c.ImageWorkTimeout <= 0 {
		errs = append(errs, errors.New("HOOKLINE_IMAGE_WORK_TIMEOUT must be positive"))
	}
	switch c.ImageProvider {
	case ProviderLocal:
	case ProviderOpenAI, ProviderGemini:
		if c.ImageAPIKey == "" {
			errs = append(errs, fmt.Errorf("HOOKLINE_IMAGE_API_KEY is required with HOOKLINE_IMAGE_PROVIDER=%s", c.ImageProvider))
		}
	default:
		errs = append(errs, fmt.Errorf("HOOKLINE_IMAGE_PROVIDER must be local, openai or gemini, not %q", c.ImageProvider))
	}
	if c.ImageTimeout <= 0 {
		errs = append(errs, errors.New("HOOKLINE_IMAGE_TIMEOUT must be positive"))
	}
	if c.RecoveryInterval <= 0 {
		errs = append(errs, errors.New("HOOKLINE_RECOVERY_INTERVAL must be positive"))
	}
	if c.RecoveryGrace <= messaging.DefaultRequestTimeout {
		errs = append(errs, fmt.Errorf("HOOKLINE_RECOVERY_GRACE must exceed the reserve timeout %s", messaging.DefaultRequestTimeout))
	}
	return errors.Join(errs...)
}

// imageMemory is the image memory budget in bytes.
func (c *Config) imageMemory() int64 { return c.ImageMemoryMiB << 20 }

// processOverhead is what the process holds beyond its image budget
// (bench/RESULTS.md, "thumbnails memory"): nativeMemory, the Go runtime
// at rest (together about 210 MiB of RSS), what requests keep between
// two acquisitions (a generation's 2048 px input pictures), and room for
// the garbage of the image work, which watchMemory keeps from growing
// into the room of the native side and of the work the budget has
// granted. The container's limit is budget plus overhead. Under the
// hostile probe a 768 MiB budget with 256 MiB of overhead peaked at
// 1,062 MiB (the whole budget's decodes, 68 MB of reduced copies and
// the process at rest), hence 640 + 384: 904 and 933 MiB.
const processOverhead = 384 << 20

// nativeMemory is what the process holds outside the Go runtime at rest,
// measured with the RSS of an idle process (176 to 219 MiB) less its Go
// runtime: the binary, dlib's landmark model, Tesseract's, and libvips.
// libvips' memory during the work is in the budget, and what it frees is
// returned (its malloc arenas are capped and trimmed, services/thumbnails/internal/libvips).
const nativeMemory = 160 << 20

// memoryLimit is what the process is held to: the container's limit
// (HOOKLINE_MEMORY_LIMIT, else its cgroup's), or, when none is known (a
// process started by hand, a container without a limit), the budget plus
// processOverhead: without a limit the Go heap would grow to twice what
// the image work leaves live before collecting, far past the budget.
func (c *Config) memoryLimit() int64 {
	if limit := platform.ContainerMemory(c.MemoryLimit); limit > 0 {
		return limit
	}
	return c.imageMemory() + processOverhead
}

// maxDecodedSide bounds the bitmaps of input pictures: the largest output
// side is 1280 px, so nothing is lost, while ten 40 MP references no
// longer cost gigabytes.
const maxDecodedSide = 2048

// Once the image work has stopped after a spike of at least reclaimAfter
// bytes, the heap it grew is given back to the system (looking every
// reclaimEvery): the runtime would keep it until its next collection,
// minutes away in a process gone quiet, and the container would go on
// paying for the spike. A quiet moment is when the forced collection
// costs nobody.
const (
	reclaimEvery = time.Second
	reclaimAfter = 64 << 20
)

// assetsTimeout bounds the wait for the assets service's answer about ids
// the read model has not seen: a primary-key read there, so past it assets
// is as good as down and the request answers 503.
const assetsTimeout = 2 * time.Second

// cutoutCacheSize is how many saved faces' cut-outs the process keeps
// (64 KB each for the assets service's 256 px crops).
const cutoutCacheSize = 256

// previewRetry is how long the preview renderer waits after a failure.
const previewRetry = 10 * time.Second

// newEngine builds the engine cfg selects; the compositor draws template
// previews and serves generations when the provider is local, and stands
// in for a provider whose model is missing (fallback). The provider's
// model watch is nil for the local engine.
func newEngine(cfg *Config, local *compose.Engine, log *slog.Logger) (engine.Engine, *vendorapi.ModelWatch, error) {
	pc := openai.Config{APIKey: cfg.ImageAPIKey, BaseURL: cfg.ImageBaseURL, Model: cfg.ImageModel, Timeout: cfg.ImageTimeout}
	var (
		p   fallback.Provider
		err error
	)
	switch cfg.ImageProvider {
	case ProviderOpenAI:
		p, err = openai.New(pc)
	case ProviderGemini:
		p, err = gemini.New(gemini.Config(pc))
	default:
		return local, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	fb := fallback.New(p, local, log)
	return fb, fb.ModelWatch, nil
}

// Run starts the thumbnails service and blocks until ctx is cancelled or a
// part fails.
func Run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	var cfg Config
	if err := config.Load(getenv, &cfg); err != nil {
		return err
	}
	cfg.MemoryLimit = cfg.memoryLimit()
	p, err := platform.Open(ctx, getenv, stdout, platform.Options{
		Name: "thumbnails", Common: cfg.Common, Migrations: migrations.FS, SharedMigrations: []fs.FS{credits.Migrations},
		NativeMemory: nativeMemory,
	})
	if err != nil {
		return err
	}
	defer p.Close()

	blobs, err := s3store.Open(ctx, cfg.S3)
	if err != nil {
		return err
	}
	// Before anything decodes or encodes a picture: the one libvips
	// configuration of the service.
	libvips.Start()
	art, err := fluentemoji.Open(cfg.EmojiDir)
	if errors.Is(err, fluentemoji.ErrMissing) {
		p.Log.Warn("thumbnails: no object art: local generation draws no objects", "error", err)
	} else if err != nil {
		return err
	}
	local, err := compose.New(compose.Options{Art: art})
	if err != nil {
		return err
	}
	eng, watched, err := newEngine(&cfg, local, p.Log)
	if err != nil {
		return err
	}
	budget, err := imageinput.NewBudget(cfg.imageMemory(), cfg.ImageMemoryWait)
	if err != nil {
		return err
	}
	text, err := textai.New(cfg.Text)
	if err != nil {
		return err
	}
	cc, err := credits.New(credits.Config{
		Billing: p.Bus, Pool: p.Pool, Source: service.Source, FailedSubject: events.ThumbnailsOperationFailed, Log: p.Log,
	})
	if err != nil {
		return err
	}
	store := postgres.New(p.Pool, cc)
	faces, err := dlib.Open(cfg.FaceModel)
	if err != nil {
		return err
	}
	defer faces.Close()
	ocr, err := tesseract.New(cfg.Tessdata, 0)
	if err != nil {
		return fmt.Errorf("HOOKLINE_TESSDATA: %w", err)
	}
	defer func() { _ = ocr.Close() }() // Close frees the engine's memory; it cannot fail
	remover, err := newRemover(&cfg)
	if err != nil {
		return err
	}
	chat, err := chatmodel.FromConfig(cfg.Text)
	if err != nil {
		return err
	}
	var critic service.Critic // nil, not a nil *critique.Chat: the service keeps the local wording
	if chat != nil {
		critic = &critique.Chat{Model: chat}
	}
	fetcher := safefetch.New(cfg.fetch())
	// Shrunk pictures acquire their decodes from the budget as they load;
	// the edits' and the critique's full-size ones are acquired by the
	// service with their work, before loading.
	svc := &service.Service{
		Faces:      faces,
		OCR:        ocr,
		Cutouts:    service.NewCutouts(cutoutCacheSize),
		Store:      store,
		Blobs:      blobs,
		Images:     &imageinput.Source{Store: blobs, Fetcher: fetcher, MaxSide: maxDecodedSide, Budget: budget},
		EditImages: &imageinput.Source{Store: blobs, Fetcher: fetcher},
		Matte:      remover,
		Critic:     critic,
		Credits:    cc,
		AssetOwner: &assetrecords.Client{Bus: p.Bus, Timeout: assetsTimeout},
		Engine:     eng,
		Previews:   local,
		Text:       text,
		Videos: videosite.New(videosite.Config{
			SiteBase: cfg.VideoSiteBase, TimedTextBase: cfg.VideoSiteTimedTextBase, ImageBase: cfg.VideoSiteImageBase, YTDLP: cfg.YTDLP, Fetch: cfg.fetch(),
		}),
		Log:         p.Log,
		Memory:      budget,
		WorkTimeout: cfg.ImageWorkTimeout,
	}
	// This process owns the reservations it makes: when it dies, its
	// restart (or another replica) settles them at once from what was
	// stored, instead of after the recovery grace, and so does a retry of
	// one of its requests (credits.Client.Start).
	if err := cc.Start(ctx, svc.ResolveReservation); err != nil {
		return err
	}
	defer cc.Close()

	ready := func(ctx context.Context) error { return errors.Join(p.Ready(ctx), blobs.Ping(ctx)) }
	var (
		parts   []httpx.Component
		workers []platform.Worker
	)
	for _, w := range []*vendorapi.ModelWatch{watched, chatmodel.Watch(chat, p.Log)} {
		if w != nil {
			parts = append(parts, w)
			workers = append(workers, func(ctx context.Context) error { return w.Watch(ctx, cfg.ModelCheck) })
		}
	}
	handler := telemetry.HTTPMiddleware("thumbnails", p.Log)(httpapi.Handler(svc, []byte(cfg.PrincipalSecret), ready, p.Log, parts...))
	return p.Serve(ctx, stdout, platform.Server{Addr: cfg.Addr, Handler: handler}, append(workers,
		func(ctx context.Context) error {
			return p.Bus.Consume(ctx, messaging.ConsumerConfig{
				Durable: natsapi.AssetsConsumer, Stream: events.StreamAssets, Subjects: natsapi.AssetsSubjects,
			}, (&natsapi.Server{Records: svc}).Assets)
		},
		cc.RecoveryWorker(cfg.RecoveryInterval, cfg.RecoveryGrace),
		svc.PreviewWorker(previewRetry),
		watchMemory(cfg.MemoryLimit, getenv, budget, statmRSS),
		func(ctx context.Context) error {
			return budget.Idle(ctx, reclaimEvery, reclaimAfter, func() {
				debug.FreeOSMemory()
				libvips.Trim()
			})
		},
	)...)
}

// newRemover is the background remover cfg selects: the user's ONNX
// matting model, or the classical segmentation.
func newRemover(cfg *Config) (matte.Remover, error) {
	if cfg.BackgroundModel == "" {
		return matte.Classical{}, nil
	}
	return matte.NewONNX(cfg.BackgroundModel, cfg.ONNXRuntimeLib)
}
