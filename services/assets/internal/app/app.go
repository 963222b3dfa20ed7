// Package app wires the assets service: configuration, dependencies in
// order (telemetry, Postgres, NATS JetStream, S3), the HTTP server, the
// outbox relay and the thumbnails projection consumer, all stopped
// together.
package app

import (
	"context"
	"errors"
	"io"
	"time"

	"hookline.dev/pkg/config"
	"hookline.dev/pkg/events"
	"hookline.dev/pkg/imageinput"
	"hookline.dev/pkg/messaging"
	"hookline.dev/pkg/platform"
	"hookline.dev/pkg/s3store"
	"hookline.dev/pkg/safefetch"
	"hookline.dev/pkg/telemetry"
	"hookline.dev/services/assets/internal/facedetect"
	"hookline.dev/services/assets/internal/httpapi"
	"hookline.dev/services/assets/internal/postgres"
	"hookline.dev/services/assets/internal/service"
	"hookline.dev/services/assets/migrations"
)

// Config is the assets service's configuration.
type Config struct {
	config.Common
	Addr          string `env:"HOOKLINE_HTTP_ADDR" default:":8082"`
	Schema        string `env:"HOOKLINE_DB_SCHEMA" default:"assets"`
	DBMaxConns    int32  `env:"HOOKLINE_DB_MAX_CONNS" default:"32"`
	NATSNamespace string `env:"HOOKLINE_NATS_NAMESPACE"`

	S3Endpoint  string `env:"HOOKLINE_S3_ENDPOINT" default:"127.0.0.1:9000"`
	S3AccessKey string `env:"HOOKLINE_S3_ACCESS_KEY"`
	S3SecretKey string `env:"HOOKLINE_S3_SECRET_KEY"`
	S3Bucket    string `env:"HOOKLINE_S3_BUCKET" default:"hookline"`
	S3Region    string `env:"HOOKLINE_S3_REGION" default:"us-east-1"`
	// S3PublicURL is the public base of the bucket; empty means
	// http://<endpoint>/<bucket>.
	S3PublicURL string `env:"HOOKLINE_S3_PUBLIC_URL"`

	// FetchAllowHosts lets the safe fetcher reach otherwise refused hosts
	// (tests and local fakes only); FetchDenyHosts names our own internal
	// hosts that must never be fetched for a user.
	FetchAllowHosts []string      `env:"HOOKLINE_FETCH_ALLOW_HOSTS"`
	FetchDenyHosts  []string      `env:"HOOKLINE_FETCH_DENY_HOSTS"`
	FetchTimeout    time.Duration `env:"HOOKLINE_FETCH_TIMEOUT" default:"10s"`

	// UploadURLTTL is how long a presigned upload URL is valid.
	UploadURLTTL time.Duration `env:"HOOKLINE_UPLOAD_URL_TTL" default:"5m"`
}

func (c *Config) fetch() safefetch.Config {
	return safefetch.Config{Timeout: c.FetchTimeout, AllowHosts: c.FetchAllowHosts, DenyHosts: c.FetchDenyHosts}
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	errs := []error{c.Common.Validate(), c.fetch().Validate()}
	if c.S3Endpoint == "" || c.S3Bucket == "" {
		errs = append(errs, errors.New("HOOKLINE_S3_ENDPOINT and HOOKLINE_S3_BUCKET are required"))
	}
	// S3 signatures cannot outlive 7 days.
	if c.UploadURLTTL <= 0 || c.UploadURLTTL > 7*24*time.Hour {
		errs = append(errs, errors.New("HOOKLINE_UPLOAD_URL_TTL must be positive and at most 168h"))
	}
	if c.FetchTimeout <= 0 {
		errs = append(errs, errors.New("HOOKLINE_FETCH_TIMEOUT must be positive"))
	}
	return errors.Join(errs...)
}

// maxDecodedSide bounds the bitmaps a request holds: face detection works
// at 720 px and style analysis samples 20,000 pixels, so 2048 px loses
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
		Name: "assets", Common: cfg.Common, Schema: cfg.Schema, MaxConns: cfg.DBMaxConns,
		Namespace: cfg.NATSNamespace, Migrations: migrations.FS,
	})
	if err != nil {
		return err
	}
	defer p.Close()

	blobs, err := s3store.New(s3store.Config{
		Endpoint: cfg.S3Endpoint, AccessKey: cfg.S3AccessKey, SecretKey: cfg.S3SecretKey,
		Bucket: cfg.S3Bucket, Region: cfg.S3Region, PublicURL: cfg.S3PublicURL,
	})
	if err != nil {
		return err
	}
	if err := blobs.EnsureBucket(ctx); err != nil {
		return err
	}

	detector, err := facedetect.New()
	if err != nil {
		return err
	}
	fetcher := safefetch.New(cfg.fetch())
	svc := &service.Service{
		Store:     postgres.New(p.Pool),
		Blobs:     blobs,
		Images:    &imageinput.Source{Store: blobs, Fetcher: fetcher, MaxSide: maxDecodedSide},
		Fetcher:   fetcher,
		Detector:  detector,
		UploadTTL: cfg.UploadURLTTL,
		Log:       p.Log,
	}

	ready := func(ctx context.Context) error { return errors.Join(p.Ready(ctx), blobs.Ping(ctx)) }
	handler := telemetry.HTTPMiddleware("assets")(httpapi.Handler(svc, []byte(cfg.PrincipalSecret), ready, p.Log))
	return p.Serve(ctx, stdout, platform.Server{Addr: cfg.Addr, Handler: handler},
		func(ctx context.Context) error {
			return p.Bus.Consume(ctx, messaging.ConsumerConfig{
				Durable: service.ThumbnailsConsumer, Stream: "THUMBNAILS",
				Subjects: []string{events.ThumbnailsThumbnailCreated, events.ThumbnailsThumbnailDeleted},
			}, svc.HandleThumbnailEvent)
		})
}
