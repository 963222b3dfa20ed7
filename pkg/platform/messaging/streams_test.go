package messaging

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/testkit"
)

func TestParseStreamConfig(t *testing.T) {
	cfg, err := ParseStreamConfig(" *.replicas=3, DLQ.max_age=720h,CLIPS_JOBS.storage=memory,CLIPS_JOBS.replicas=1,THUMBNAILS.retention=limits,")
	if err != nil {
		t.Fatal(err)
	}
	dlq := cfg.For(events.StreamDLQ)
	if *dlq.Replicas != 3 || *dlq.MaxAge != 720*time.Hour || dlq.Storage != nil || dlq.Retention != nil {
		t.Errorf("DLQ = %+v", dlq)
	}
	jobs := cfg.For(events.StreamClipsJobs)
	if *jobs.Replicas != 1 || *jobs.Storage != events.StorageMemory || jobs.MaxAge != nil {
		t.Errorf("CLIPS_JOBS = %+v (its own replicas must win over *)", jobs)
	}
	if r := cfg.For(events.StreamThumbnails).Retention; r == nil || *r != events.RetentionLimits {
		t.Errorf("THUMBNAILS retention = %v", r)
	}
	if none, _ := ParseStreamConfig(""); len(none) != 0 {
		t.Errorf("empty config declares %v", none)
	}
	for _, bad := range []string{
		"replicas=3", "DLQ.replicas", "NOPE.replicas=1", "DLQ.replicas=0", "DLQ.replicas=6",
		"DLQ.max_age=-1s", "DLQ.max_age=week", "DLQ.retention=interest", "DLQ.storage=disk", "DLQ.max_msgs=5",
	} {
		if _, err := ParseStreamConfig(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func (e *env) streamConfig(t testing.TB, name string) jetstream.StreamConfig {
	t.Helper()
	s, err := e.bus.JS.Stream(e.ctx, e.bus.StreamName(name))
	if err != nil {
		t.Fatalf("stream %s: %v", name, err)
	}
	return s.CachedInfo().Config
}

// TestEnsureStreamsKeepsOperatorChanges: a start-up never undoes what an
// operator changed out of band unless configuration declares that field,
// while subjects (code) and declared settings are applied.
func TestEnsureStreamsKeepsOperatorChanges(t *testing.T) {
	e := setup(t)
	cfg := e.streamConfig(t, events.StreamThumbnails)
	if cfg.MaxAge != events.EventMaxAge || cfg.Replicas != 1 || cfg.Storage != jetstream.FileStorage || cfg.Duplicates != duplicateWindow {
		t.Fatalf("new stream defaults: %+v", cfg)
	}
	// The operator's edit, with the jetstream API: limits, and a subject
	// the code does not declare.
	cfg.MaxAge, cfg.MaxMsgs = time.Hour, 1000
	cfg.Subjects = append(cfg.Subjects, e.bus.Subject("stray.>"))
	if _, err := e.bus.JS.UpdateStream(e.ctx, cfg); err != nil {
		t.Fatal(err)
	}

	if err := e.bus.EnsureStreams(e.ctx); err != nil {
		t.Fatal(err)
	}
	got := e.streamConfig(t, events.StreamThumbnails)
	if got.MaxAge != time.Hour || got.MaxMsgs != 1000 {
		t.Errorf("undeclared settings reset: max age %v, max msgs %d; want the operator's 1h and 1000", got.MaxAge, got.MaxMsgs)
	}
	if want := []string{e.bus.Subject("thumbnails.>")}; strings.Join(got.Subjects, ",") != strings.Join(want, ",") {
		t.Errorf("subjects %v, want the code's %v", got.Subjects, want)
	}

	// A declared value is applied; the rest stays the operator's.
	day := 24 * time.Hour
	e.bus.Streams = StreamConfig{events.StreamThumbnails: {MaxAge: &day}}
	if err := e.bus.EnsureStreams(e.ctx); err != nil {
		t.Fatal(err)
	}
	got = e.streamConfig(t, events.StreamThumbnails)
	if got.MaxAge != day || got.MaxMsgs != 1000 {
		t.Errorf("after declaring max_age=24h: max age %v, max msgs %d; want 24h and the operator's 1000", got.MaxAge, got.MaxMsgs)
	}
	if other := e.streamConfig(t, events.StreamAssets); other.MaxAge != events.EventMaxAge {
		t.Errorf("a declaration for THUMBNAILS changed ASSETS: max age %v", other.MaxAge)
	}

	// A missing stream is created with what is declared for it.
	if err := e.bus.JS.DeleteStream(e.ctx, e.bus.StreamName(events.StreamDLQ)); err != nil {
		t.Fatal(err)
	}
	e.bus.Streams, _ = ParseStreamConfig("*.max_age=2h")
	if err := e.bus.EnsureStreams(e.ctx); err != nil {
		t.Fatal(err)
	}
	if dlq := e.streamConfig(t, events.StreamDLQ); dlq.MaxAge != 2*time.Hour {
		t.Errorf("recreated DLQ max age %v, want the declared 2h", dlq.MaxAge)
	}

	// What a live stream cannot change is refused with the stream's name.
	e.bus.Streams, _ = ParseStreamConfig("GATEWAY.retention=workqueue")
	if err := e.bus.EnsureStreams(e.ctx); err == nil || !strings.Contains(err.Error(), e.bus.StreamName(events.StreamGateway)) {
		t.Errorf("retention change on a live stream: err %v, want a refusal naming the stream", err)
	}
}

// TestClipsJobsIsAWorkQueue: CLIPS_JOBS exists beside CLIPS (their subjects
// do not overlap) and drops a job once it is acked.
func TestClipsJobsIsAWorkQueue(t *testing.T) {
	e := setup(t)
	if cfg := e.streamConfig(t, events.StreamClipsJobs); cfg.Retention != jetstream.WorkQueuePolicy {
		t.Fatalf("CLIPS_JOBS retention %v, want work queue", cfg.Retention)
	}
	col := newCollector()
	e.consume(t, ConsumerConfig{Durable: events.DurableClipsRender, Stream: events.StreamClipsJobs, Subjects: []string{events.ClipsJobRender}}, col.handler)
	e.publishDirect(t, envelope(t, e.ctx, events.ClipsJobRender, testData{}))
	testkit.Eventually(t, 10*time.Second, "job handled and removed", func() bool {
		return col.count() == 1 && e.streamMsgs(t, events.StreamClipsJobs) == 0
	})
	// An event of the clips service lands in CLIPS, not in the work queue.
	e.publishDirect(t, envelope(t, e.ctx, events.ClipsRenderCompleted, testData{}))
	if n := e.streamMsgs(t, events.StreamClips); n != 1 {
		t.Errorf("CLIPS holds %d messages, want 1", n)
	}
}

// TestEnsureStreamsConcurrentFirstStart: replicas starting together all
// find the streams missing; every one of them succeeds.
func TestEnsureStreamsConcurrentFirstStart(t *testing.T) {
	e := setup(t)
	for _, s := range events.Streams {
		if err := e.bus.JS.DeleteStream(e.ctx, e.bus.StreamName(s.Name)); err != nil {
			t.Fatal(err)
		}
	}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
			defer cancel()
			errs <- e.bus.EnsureStreams(ctx)
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Errorf("concurrent EnsureStreams: %v", err)
		}
	}
}
