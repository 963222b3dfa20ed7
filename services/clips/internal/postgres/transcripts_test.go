package postgres_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/contracts/credits"
	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/testkit/apptest"
	"hookline.dev/services/clips/internal/moments"
	"hookline.dev/services/clips/internal/postgres"
	"hookline.dev/services/clips/internal/project"
	"hookline.dev/services/clips/internal/transcript"
	"hookline.dev/services/clips/migrations"
)

// Two editors of version 1 at once: one edit is stored, the other is
// stale; the next edit builds on the stored one; the edits are the
// project's organization's alone, and the vocabulary given at creation is
// version 1's.
func TestTranscriptEditsAreVersioned(t *testing.T) {
	ctx := t.Context()
	pool := apptest.Database(t, "clipstranscripts", messaging.Migrations, credits.Migrations, migrations.FS)
	store := postgres.New(pool, nil)
	org, other := uuid.NewString(), uuid.NewString()
	now := time.Now().UTC()
	p := project.Project{ID: uuid.NewString(), OrgID: org, SourceURL: "https://example.com/v.mp4", SourceKey: "url:https://example.com/v.mp4",
		VideoTitle: "v", Format: project.Portrait, Status: project.Downloading, Step: project.StepQueued, CreatedAt: now, Vocabulary: []string{"Brixley"}}
	job, err := events.New(ctx, events.ClipsJobPrepareSource, "clips", org, events.ClipsPrepareJob{ProjectID: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Create(ctx, p, nil, job); err != nil {
		t.Fatal(err)
	}
	e, err := store.TranscriptEdits(ctx, org, p.ID)
	if err != nil || e.Version != 1 || len(e.Vocabulary) != 1 {
		t.Fatalf("created: %+v %v", e, err)
	}

	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() {
			errs[i] = store.SaveTranscript(ctx, org, p.ID, transcript.Edits{Version: 2, Text: map[int]string{i: "fixed"},
				Deleted: []transcript.Range{{From: 4, To: 6}}, Vocabulary: []string{"Brixley"}}, nil, now)
		})
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, transcript.ErrStale):
			t.Fatalf("save: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d of two edits of version 1 stored: %v", won, errs)
	}
	ranked := &moments.Result{Clips: []moments.Clip{{ID: "c1", Title: "t", Start: 1, End: 20}}}
	if err := store.SaveTranscript(ctx, org, p.ID, transcript.Edits{Version: 3, Text: map[int]string{9: "x"}}, ranked, now); err != nil {
		t.Fatal(err)
	}
	if err := store.SaveTranscript(ctx, org, p.ID, transcript.Edits{Version: 3}, nil, now); !errors.Is(err, transcript.ErrStale) {
		t.Fatalf("version 3 twice: %v", err)
	}
	e, err = store.TranscriptEdits(ctx, org, p.ID)
	if err != nil || e.Version != 3 || e.Text[9] != "x" || len(e.Deleted) != 0 || len(e.Vocabulary) != 0 {
		t.Fatalf("stored: %+v %v", e, err)
	}
	if got, err := store.Project(ctx, org, p.ID); err != nil || len(got.Clips) != 1 || got.Clips[0].ID != "c1" {
		t.Fatalf("re-ranked clips: %+v %v", got.Clips, err)
	}
	if e, err := store.TranscriptEdits(ctx, other, p.ID); err != nil || e.Version != 1 || len(e.Text) != 0 {
		t.Fatalf("another organization sees %+v %v", e, err)
	}
	if err := store.SaveTranscript(ctx, other, p.ID, transcript.Edits{Version: 2}, nil, now); !errors.Is(err, transcript.ErrStale) {
		t.Fatalf("another organization's save: %v", err)
	}
}
