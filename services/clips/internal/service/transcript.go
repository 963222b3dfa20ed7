package service

import (
	"context"
	"time"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/services/clips/internal/moments"
	"hookline.dev/services/clips/internal/project"
	"hookline.dev/services/clips/internal/transcript"
)

// Transcripts stores the projects' transcript edits (*postgres.Store).
// Every method may also return a database failure.
type Transcripts interface {
	// TranscriptEdits returns the edits of the organization's project,
	// version 1 and none when it was never edited.
	TranscriptEdits(ctx context.Context, orgID, projectID string) (transcript.Edits, error)
	// SaveTranscript stores e over version e.Version-1 and, when ranked is
	// set, the project's re-ranked analysis and clips, in one
	// transaction. Errors: transcript.ErrStale (the stored version is not
	// e.Version-1).
	SaveTranscript(ctx context.Context, orgID, projectID string, e transcript.Edits, ranked *moments.Result, now time.Time) error
}

// Transcript returns the organization's project's transcript with its
// edits. Free. A project whose source is not prepared yet is 409
// source_not_ready: the words are those of the prepared source.
func (s *API) Transcript(ctx context.Context, orgID, projectID string) (transcript.Transcript, error) {
	t, _, _, err := s.transcript(ctx, orgID, projectID)
	return t, err
}

// EditTranscript applies ops to the transcript at version (0: whatever
// the current one is), all or none (none at all with rerank: a re-rank
// of the same words, at the next version); with rerank, the project's clips
// are rescored on the edited words (same windows and ids; scores,
// titles, hooks and keywords follow the words), steered by prompt when
// set (it replaces the project's; nil keeps it): the matching moments
// the clips miss are added with new ids, and matches come first. Free.
// Errors: transcript.ErrStale when version is not the current one, a
// 400 naming the operation's field or the prompt, 409 source_not_ready.
func (s *API) EditTranscript(ctx context.Context, orgID, projectID string, version int, ops []transcript.OpIn, rerank bool, prompt *string) (transcript.Transcript, error) {
	f := apierr.Fields{}
	steer := project.CheckPrompt(f, "prompt", prompt)
	if err := f.Err(); err != nil {
		return transcript.Transcript{}, err
	}
	t, proj, src, err := s.transcript(ctx, orgID, projectID)
	if err != nil {
		return t, err
	}
	if version != 0 && version != t.Version {
		return t, transcript.ErrStale
	}
	var e transcript.Edits
	if len(ops) == 0 && rerank {
		// A re-rank alone: the same words at the next version.
		e = t.Edits()
		e.Version = t.Version + 1
	} else if e, err = t.Apply(ops); err != nil {
		return t, err
	}
	next := transcript.Build(src.Segments, e)
	var ranked *moments.Result
	if rerank {
		in := rankInput(proj, src, next)
		in.Keep = proj.Windows()
		if prompt != nil {
			in.Prompt = steer
		}
		res, err := s.Moments.Rank(ctx, in)
		if err != nil {
			return t, err
		}
		ranked = &res
	}
	if err := s.Transcripts.SaveTranscript(ctx, orgID, projectID, e, ranked, s.now()); err != nil {
		return t, err
	}
	return next, nil
}

// transcript reads a ready project, its source and its transcript.
func (s *Core) transcript(ctx context.Context, orgID, projectID string) (transcript.Transcript, project.Project, project.Source, error) {
	proj, err := s.Store.Project(ctx, orgID, projectID)
	if err != nil {
		return transcript.Transcript{}, proj, project.Source{}, err
	}
	if proj.Status != project.Ready {
		return transcript.Transcript{}, proj, project.Source{}, apierr.New(apierr.SourceNotReady,
			"the project's source video is not ready; poll the project until downloadStatus is ready").With("downloadStatus", string(proj.Status))
	}
	src, ok, err := s.Store.Source(ctx, orgID, proj.SourceKey)
	switch {
	case err != nil:
		return transcript.Transcript{}, proj, src, err
	case !ok:
		return transcript.Transcript{}, proj, src, project.ErrNotFound
	}
	e, err := s.Transcripts.TranscriptEdits(ctx, orgID, projectID)
	if err != nil {
		return transcript.Transcript{}, proj, src, err
	}
	return transcript.Build(src.Segments, e), proj, src, nil
}

// rankInput is what the moments engine ranks a prepared project on: the
// edited words, the vocabulary as keywords, the measured signals.
func rankInput(p project.Project, src project.Source, t transcript.Transcript) moments.Input {
	return moments.Input{Segments: t.Edited(), Signals: signals(src.Signals), VideoTitle: p.VideoTitle, Terms: t.Vocabulary, Prompt: p.Analysis.Prompt}
}
