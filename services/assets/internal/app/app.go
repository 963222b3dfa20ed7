// Package app wires the assets service: configuration, dependencies in
// order (telemetry, Postgres, NATS JetStream, S3), the HTTP server, the
// records responder other services' read models ask on a miss, the outbox
// relay and the thumbnails projection consumer, all stopped together.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/media/imageinput"
	"hookline.dev/pkg/media/vision/dlib"
	"hookline.dev/pkg/platform"
	"hookline.dev/pkg/platform/config"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/s3store"
	"hookline.dev/pkg/platform/safefetch"
	"hookline.dev/pkg/platform/telemetry"
	"hookline.dev/services/assets/internal/httpapi"
	"hookline.dev/services/assets/internal/natsapi"
	"hookline.dev/services/assets/internal/postgres"
	"hookline.dev/services/assets/internal/service"
	"hookline.dev/services/assets/migrations"
)

// Config is the assets service's configuration.
type Config struct {
	config.Common `default:"HOOKLINE_HTTP_ADDR=:8082,HOOKLINE_DB_SCHEMA=assets"`
	config.S3
	config.Fetch

	// ImageDecodeMB bounds the memory of the image decodes in progress in
	// the process (imageinput.Source.Budget; the pictures are shrunk as
	// they are decoded); at least one image's limit. A decode waits at
	// most ImageMemoryWait for its turn, then the request is answered 503
	// with Retry-After.
	ImageDecodeMB   int64         `env:"HOOKLINE_IMAGE_DECODE_MB" default:"320"`
	ImageMemoryWait time.Duration `env:"HOOKLINE_IMAGE_MEMORY_WAIT" default:"10s"`

	// UploadURLTTL is how long a presigned upload URL is valid.
	UploadURLTTL time.Duration `env:"HOOKLINE_UPLOAD_URL_TTL" default:"5m"`

	// FaceModel is dlib's 68-point landmark model: a face photo is accepted
	// when dlib's HOG detector finds a face on it, and the face's
	// thumbnail is framed by its landmarks (Debian's libdlib-data installs
	// it here).
	FaceModel string `env:"HOOKLINE_FACE_MODEL" default:"/usr/share/dlib/shape_predictor_68_face_landmarks.dat"`
}

func (c *Config) fetch() safefetch.Config {
	return safefetch.Config{Timeout: c.FetchTimeout, AllowHosts: c.FetchAllowHosts, DenyHosts: c.FetchDenyHosts}
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	errs := []error{c.Common.Validate(), c.S3.Validate(), c.Fetch.Validate(), c.fetch().Validate()}
	// S3 signatures cannot outlive 7 days.
	if c.UploadURLTTL <= 0 || c.UploadURLTTL > 7*24*time.Hour {
		errs = append(errs, errors.New("HOOKLINE_UPLOAD_URL_TTL must be positive and at most 168h"))
	}
	if _, err := imageinput.NewBudget(c.ImageDecodeMB*1_000_000, c.ImageMemoryWait); err != nil {
		errs = append(errs, fmt.Errorf("HOOKLINE_IMAGE_DECODE_MB, HOOKLINE_IMAGE_MEMORY_WAIT: %w", err))
	}
	return errors.Join(errs...)
}

// maxDecodedSide bounds the bitmaps a request holds: face detection works
// at 640 px and style analysis samples 20,000 pixels, so 2048 px loses
// nothing while ten 40 MP uploads no longer cost gigabytes.
const maxDecodedSide = 2048

// Run starts the assets service and blocks until ctx is cancelled or a
// part fails.
func Run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	var cfg Config
	if err := config.Load(getenv, &cfg); err != nil {
		return err
	}
	p, err := platform.Open(ctx, getenv, stdout, platform.Options{
		Name: "assets", Common: cfg.Common, Migrations: migrations.FS,
	})
	if err != nil {
		return err
	}
	defer p.Close()

	blobs, err := s3store.Open(ctx, cfg.S3)
	if err != nil {
		return err
	}

	faces, err := dlib.Open(cfg.FaceModel)
	if err != nil {
		return fmt.Errorf("HOOKLINE_FACE_MODEL: %w", err)
	}
	defer faces.Close()
	budget, err := imageinput.NewBudget(cfg.ImageDecodeMB*1_000_000, cfg.ImageMemoryWait)
	if err != nil {
		return err
	}
	fetcher := safefetch.New(cfg.fetch())
	svc := &service.Service{
		Store:     postgres.New(p.Pool),
		Blobs:     blobs,
		Images:    &imageinput.Source{Store: blobs, Fetcher: fetcher, MaxSide: maxDecodedSide, Budget: budget},
		Fetcher:   fetcher,
		Detector:  faces,
		UploadTTL: cfg.UploadURLTTL,
		Log:       p.Log,
	}

	// Served before the HTTP server reports ready: a record created through
	// it may be asked for at once.
	nsrv := &natsapi.Server{Svc: svc, Log: p.Log}
	stopRecords, err := p.Bus.Serve(ctx, events.AssetsRecordsRPC, natsapi.Queue, nsrv.Records)
	if err != nil {
		return err
	}

	ready := func(ctx context.Context) error { return errors.Join(p.Ready(ctx), blobs.Ping(ctx)) }
	handler := telemetry.HTTPMiddleware("assets", p.Log)(httpapi.Handler(svc, []byte(cfg.PrincipalSecret), ready, p.Log))
	return p.Serve(ctx, stdout, platform.Server{Addr: cfg.Addr, Handler: handler},
		func(ctx context.Context) error { <-ctx.Done(); return stopRecords() },
		func(ctx context.Context) error {
			return p.Bus.Consume(ctx, messaging.ConsumerConfig{
				Durable: natsapi.ThumbnailsConsumer, Stream: events.StreamThumbnails, Subjects: natsapi.ThumbnailsSubjects,
			}, nsrv.Thumbnails)
		})
}
