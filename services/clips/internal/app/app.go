// Package app wires the clips service in its two roles: the API (project
// endpoints, answering creation at once; the brands read model and the
// assets client asked on its misses) and the worker (the CLIPS_JOBS work
// queue: source preparation). Both open the same dependencies in order
// (telemetry, Postgres, NATS JetStream, S3) and stop together.
package app

import (
	"context"
	"errors"
	"io"
	"io/fs"

	"hookline.dev/pkg/contracts/assetrecords"
	"hookline.dev/pkg/contracts/credits"
	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/media/videosite"
	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/media/vision/dlib"
	"hookline.dev/pkg/platform"
	"hookline.dev/pkg/platform/config"
	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/s3store"
	"hookline.dev/pkg/platform/safefetch"
	"hookline.dev/pkg/platform/telemetry"
	"hookline.dev/services/clips/internal/facetrack"
	"hookline.dev/services/clips/internal/fairshare"
	"hookline.dev/services/clips/internal/ffrender"
	"hookline.dev/services/clips/internal/httpapi"
	"hookline.dev/services/clips/internal/media"
	"hookline.dev/services/clips/internal/postgres"
	"hookline.dev/services/clips/internal/service"
	"hookline.dev/services/clips/internal/transcribe"
	"hookline.dev/services/clips/migrations"
)

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
	stt, err := cfg.transcriber(p.Log)
	if err != nil {
		return err
	}
	ranker, err := cfg.moments()
	if err != nil {
		return err
	}
	translators, err := cfg.translators(ctx, p.Log)
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
	ff := media.FFmpeg{Bin: cfg.FFmpeg, ProbeBin: cfg.FFprobe}
	cpus := platform.ContainerCPUs()
	jobs, threads := cfg.concurrency(cpus)
	rnd := &ffrender.Renderer{FFmpeg: ff, Preset: cfg.RenderPreset, CRF: cfg.RenderCRF, X264Params: cfg.RenderX264Params, Threads: threads, Faces: faces}
	// Preparation samples the faces renders follow, in the decode it
	// makes for the scene cuts.
	sampler := &facetrack.Sampler{Faces: faces}
	if worker {
		// Only the worker renders: the API does not hold the model.
		landmarks, err := dlib.Open(cfg.FaceModel)
		if err != nil {
			return err
		}
		defer landmarks.Close()
		rnd.Landmarks = landmarks
		sampler.Landmarks = landmarks
	}
	store := postgres.New(p.Pool, cc)
	videos := videosite.New(videosite.Config{
		SiteBase: cfg.VideoSiteBase, TimedTextBase: cfg.VideoSiteTimedTextBase, YTDLP: cfg.YTDLP, Fetch: cfg.fetch(),
		MaxDownloadBytes: cfg.MaxDownloadMB << 20, DownloadTimeout: cfg.DownloadTimeout,
	})
	core := service.Core{
		Store:       store,
		Renders:     store,
		Transcripts: store,
		Brands:      store,
		AssetOwner:  &assetrecords.Client{Bus: p.Bus, Timeout: assetsTimeout},
		Music:       store,
		Broll:       store,
		Censor:      store,
		Translators: translators,
		Media:       media.Tools{FFmpeg: ff, Faces: sampler},
		Blobs:       blobs,
		PublicURL:   blobs.PublicURL,
		WorkDir:     cfg.WorkDir,
		Log:         p.Log,
	}

	ready := func(ctx context.Context) error { return errors.Join(p.Ready(ctx), blobs.Ping(ctx)) }
	if !worker {
		svc := &service.API{
			Core: core, Videos: videos, Moments: ranker, Fetch: safefetch.New(cfg.fetch()), Credits: cc, CreateDeadline: cfg.CreateDeadline,
		}
		// The API makes the reservations, so its process owns them: once
		// it is gone, its restart (or another replica) settles those whose
		// renders were never queued, at once, and so does a retry of one
		// of its requests (credits.Client.Start).
		if err := cc.Start(ctx, svc.ResolveReservation); err != nil {
			return err
		}
		defer cc.Close()
		handler := telemetry.HTTPMiddleware(name, p.Log)(httpapi.Handler(svc, []byte(cfg.PrincipalSecret), ready, p.Log))
		return p.Serve(ctx, stdout, platform.Server{Addr: cfg.Addr, Handler: handler},
			cc.RecoveryWorker(cfg.RecoveryInterval, cfg.RecoveryGrace),
			func(ctx context.Context) error {
				return p.Bus.Consume(ctx, messaging.ConsumerConfig{
					Durable: events.DurableClipsAssets, Stream: events.StreamAssets, Subjects: service.AssetsSubjects,
				}, svc.HandleAssetEvent)
			})
	}
	// The worker transcribes: it watches the transcription model (at
	// start-up, then every HOOKLINE_MODEL_CHECK_INTERVAL) and reports a
	// missing one on /readyz while pocketsphinx stands in.
	var parts []httpx.Component
	workers := []platform.Worker{}
	if fb, ok := stt.(*transcribe.Fallback); ok {
		parts = append(parts, fb)
		workers = append(workers, func(ctx context.Context) error { return fb.Watch(ctx, cfg.ModelCheck) })
	}
	svc := &service.Worker{
		Core: core, Videos: videos, Transcriber: stt, Moments: ranker, Tiers: table,
		Renderer:       rnd,
		RenderSettings: service.RenderSettings{Height: cfg.RenderHeight, HookSeconds: 2.5, EndCardSeconds: 2.5},
		MaxAttempts:    cfg.MaxAttempts,
		Slots:          service.Slots{Jobs: fairshare.New(cfg.Preparations, cfg.OrgPreparations), CPU: fairshare.New(jobs, 0)},
	}
	p.Log.InfoContext(ctx, "worker concurrency", "cpus", cpus, "jobs", jobs, "renderThreads", threads)
	handler := telemetry.HTTPMiddleware(name, p.Log)(httpapi.Handler(nil, []byte(cfg.PrincipalSecret), ready, p.Log, parts...))
	return p.Serve(ctx, stdout, platform.Server{Addr: cfg.Addr, Handler: handler}, append(workers,
		func(ctx context.Context) error {
			return p.Bus.Consume(ctx, jobConsumer(&cfg, events.DurableClipsPrepare, events.ClipsJobPrepareSource, cfg.Preparations, svc.PrepareMaxDeliveries()), svc.HandlePrepare)
		},
		func(ctx context.Context) error {
			return p.Bus.Consume(ctx, jobConsumer(&cfg, events.DurableClipsRender, events.ClipsJobRender, jobs, svc.RenderMaxDeliveries()), svc.HandleRender)
		},
	)...)
}

// jobConsumer is the durable consumer of one kind of CLIPS_JOBS job:
// workers run at once in this process, a job is delivered at most
// maxDeliver times, and a crashed worker's job waits cfg.JobAckWait
// before another takes it.
func jobConsumer(cfg *Config, durable, subject string, workers, maxDeliver int) messaging.ConsumerConfig {
	return messaging.ConsumerConfig{
		Durable: durable, Stream: events.StreamClipsJobs, Subjects: []string{subject},
		MaxDeliver: maxDeliver, AckWait: cfg.JobAckWait, Workers: workers, MaxAckPending: 64,
	}
}
