package service

import (
	"context"
	"sync"
	"time"

	"hookline.dev/pkg/platform/telemetry"
	"hookline.dev/services/clips/internal/project"
)

const scope = "hookline.dev/services/clips"

// The service's instruments, beside the consumers' own (pkg/platform/messaging:
// deliveries, redeliveries, dead letters and each consumer's backlog).
var (
	jobs = telemetry.NewCounter(scope, "hookline.clips.jobs",
		"Preparation and render attempts by kind (preparation, rendering) and outcome (completed, failed, retry, interrupted).")
	jobDuration = telemetry.NewHistogram(scope, "hookline.clips.job.duration",
		"Duration of one preparation or render attempt, by kind and outcome.", telemetry.JobBuckets)
	stepDuration = telemetry.NewHistogram(scope, "hookline.clips.step.duration",
		"Duration of one step of a preparation (downloading, storing, probing, transcribing, analyzing) or of a render (cutting, reframing, captioning, encoding, uploading), by kind and step.",
		telemetry.JobBuckets)
)

// Outcomes of an attempt.
const (
	outcomeCompleted   = "completed"
	outcomeFailed      = "failed"
	outcomeRetry       = "retry"
	outcomeInterrupted = "interrupted"
)

// countAttempt records one attempt of kind that ended with outcome after
// took.
func countAttempt(kind, outcome string, took time.Duration) {
	jobs.With("kind", kind).With("outcome", outcome).Add(1)
	jobDuration.With("kind", kind).With("outcome", outcome).Record(took)
}

// stepClock times the steps of the attempts running in this process: a
// step lasts from its start until the next step or the attempt's end. The
// zero value is ready to use.
type stepClock struct {
	mu sync.Mutex
	at map[string]stepMark // by project or render id
}

type stepMark struct {
	kind, step string
	since      time.Time
}

// enter starts step of the attempt id of kind, ending the one before.
func (c *stepClock) enter(kind, id, step string) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at == nil {
		c.at = map[string]stepMark{}
	}
	if m, ok := c.at[id]; ok {
		if m.step == step {
			return
		}
		stepDuration.With("kind", m.kind).With("step", m.step).Record(now.Sub(m.since))
	}
	c.at[id] = stepMark{kind: kind, step: step, since: now}
}

// finish ends the attempt id's last step.
func (c *stepClock) finish(id string) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if m, ok := c.at[id]; ok {
		stepDuration.With("kind", m.kind).With("step", m.step).Record(now.Sub(m.since))
		delete(c.at, id)
	}
}

// progress records that the preparation of project id entered step.
func (s *Worker) progress(ctx context.Context, id string, step project.Step) error {
	s.steps.enter(kindPreparation, id, string(step))
	return s.Store.Progress(ctx, id, step, project.Progress(step, 0), s.now())
}

// progressEvery is how often a step's progress within it is written at
// most: a client polling sees it move, the database sees one write a
// second per preparation.
const progressEvery = time.Second

// within returns the function a long step (transcribing, analysing) reports its
// share done to: written when the whole figure grew and progressEvery
// has passed since the last write. A failed write is logged, not
// returned: the step's work goes on.
func (s *Worker) within(ctx context.Context, id string, step project.Step) func(done float64) {
	var last time.Time
	at := project.Progress(step, 0)
	return func(done float64) {
		p := project.Progress(step, done)
		if p <= at || time.Since(last) < progressEvery {
			return
		}
		at, last = p, time.Now()
		if err := s.Store.Progress(ctx, id, step, p, s.now()); err != nil && ctx.Err() == nil {
			s.log().WarnContext(ctx, "recording preparation progress", "project", id, "err", err)
		}
	}
}
