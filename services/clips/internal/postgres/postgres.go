// Package postgres is the clips service's storage: projects and the
// sources prepared for them, renders, the brands read model and the music
// and b-roll libraries. A project is inserted with its preparation job in
// the outbox, in one transaction, so no project is left without the job
// that readies it. Preparation ends a project once: the final update only
// applies to a project still `downloading`. A render ends in the
// transaction that settles its credit reservation (credits.Complete or
// Fail): the store side of the saga as pkg/contracts/credits describes it. Every
// project query is scoped by organization; another organization's project
// is indistinguishable from a missing one.
package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"hookline.dev/pkg/contracts/credits"
	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/media/videosite"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/services/clips/internal/moments"
	"hookline.dev/services/clips/internal/project"
	"hookline.dev/services/clips/internal/service"
)

// Store is the clips database. It is safe for concurrent use.
type Store struct {
	pool    *pgxpool.Pool
	credits *credits.Client
}

var (
	_ service.Store       = (*Store)(nil)
	_ service.Renders     = (*Store)(nil)
	_ service.Brands      = (*Store)(nil)
	_ service.Music       = (*Store)(nil)
	_ service.Broll       = (*Store)(nil)
	_ service.CensorWords = (*Store)(nil)
)

// New returns a store over pool (whose search_path is the clips schema);
// c settles render reservations inside the store's transactions.
func New(pool *pgxpool.Pool, c *credits.Client) *Store { return &Store{pool: pool, credits: c} }

const projectCols = `id::text, org_id::text, source_url, source_key, video_title, format, download_status, step, progress,
	coalesce(download_error, ''), duration, transcript, analysis, clips, attempts, created_at, updated_at, ready_at`

func scanProject(r pgx.Row) (project.Project, error) {
	var p project.Project
	var format, status, step string
	var analysis, clips []byte
	var a analysisRecord
	var cs []clipRecord
	err := r.Scan(&p.ID, &p.OrgID, &p.SourceURL, &p.SourceKey, &p.VideoTitle, &format, &status, &step, &p.Progress,
		&p.DownloadError, &p.Duration, &p.Transcript, &analysis, &clips, &p.Attempts, &p.CreatedAt, &p.UpdatedAt, &p.ReadyAt)
	if err != nil {
		return p, err
	}
	p.Format, p.Status, p.Step = project.Format(format), project.Status(status), project.Step(step)
	if err := json.Unmarshal(analysis, &a); err != nil {
		return p, fmt.Errorf("analysis: %w", err)
	}
	if err := json.Unmarshal(clips, &cs); err != nil {
		return p, fmt.Errorf("clips: %w", err)
	}
	if a.TranscriptQuality == "" {
		a.TranscriptQuality = moments.QualityHigh
	}
	p.Analysis, p.Clips = a.domain(), mapSlice(cs, clipRecord.domain)
	return p, nil
}

func oneProject(row pgx.Row) (project.Project, error) {
	return pgkit.One(row, scanProject, project.ErrNotFound)
}

// Create stores a new project, the captions fetched for it and its
// preparation job, in one transaction.
func (s *Store) Create(ctx context.Context, p project.Project, captions []videosite.Segment, job events.Envelope) error {
	analysis, err := json.Marshal(analysisRec(p.Analysis))
	if err != nil {
		return err
	}
	clips, err := json.Marshal(mapSlice(p.Clips, clipRec))
	if err != nil {
		return err
	}
	caps, err := json.Marshal(mapSlice(nonNil(captions), segmentRec))
	if err != nil {
		return err
	}
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO projects (id, org_id, source_url, source_key, video_title, format, download_status, step,
			duration, transcript, analysis, clips, captions, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14)`,
			p.ID, p.OrgID, p.SourceURL, p.SourceKey, p.VideoTitle, string(p.Format), string(p.Status), string(p.Step),
			p.Duration, p.Transcript, analysis, clips, caps, p.CreatedAt); err != nil {
			return fmt.Errorf("postgres: insert project: %w", err)
		}
		if len(p.Vocabulary) > 0 {
			vocabulary, err := json.Marshal(p.Vocabulary)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO transcript_edits (project_id, org_id, version, vocabulary, updated_at) VALUES ($1, $2, 1, $3, $4)`,
				p.ID, p.OrgID, vocabulary, p.CreatedAt); err != nil {
				return fmt.Errorf("postgres: insert vocabulary: %w", err)
			}
		}
		if err := messaging.WriteOutbox(ctx, tx, job); err != nil {
			return fmt.Errorf("postgres: %w", err)
		}
		return nil
	})
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Project returns the organization's project, or project.ErrNotFound.
func (s *Store) Project(ctx context.Context, orgID, id string) (project.Project, error) {
	return oneProject(s.pool.QueryRow(ctx, `SELECT `+projectCols+` FROM projects WHERE org_id = $1 AND id = $2`, orgID, id))
}

// Projects returns a page of the organization's projects, newest first,
// and how many there are.
func (s *Store) Projects(ctx context.Context, orgID string, offset, limit int) ([]project.Project, int, error) {
	return pgkit.Page(ctx, s.pool, `SELECT count(*) FROM projects WHERE org_id = $1`,
		`SELECT `+projectCols+` FROM projects WHERE org_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT $3`,
		[]any{orgID}, offset, limit, scanProject)
}

// Attempt starts a preparation attempt: it counts it and returns the
// project with the captions fetched at creation. A project that is no
// longer downloading comes back as it is, uncounted.
func (s *Store) Attempt(ctx context.Context, orgID, id string, now time.Time) (project.Project, []videosite.Segment, error) {
	var caps []byte
	var p project.Project
	err := pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE projects SET attempts = attempts + 1, updated_at = $3
			WHERE org_id = $1 AND id = $2 AND download_status = 'downloading'`, orgID, id, now); err != nil {
			return err
		}
		var err error
		p, err = oneProject(tx.QueryRow(ctx, `SELECT `+projectCols+` FROM projects WHERE org_id = $1 AND id = $2`, orgID, id))
		if err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT captions FROM projects WHERE id = $1`, id).Scan(&caps)
	})
	if err != nil {
		return p, nil, err
	}
	var segs []segmentRecord
	if err := json.Unmarshal(caps, &segs); err != nil {
		return p, nil, fmt.Errorf("postgres: captions: %w", err)
	}
	return p, mapSlice(segs, segmentRecord.domain), nil
}

// Progress records the step in progress of a downloading project and how
// far it is; the figure never goes back (a step entered again, an attempt
// retried).
func (s *Store) Progress(ctx context.Context, id string, step project.Step, progress int, now time.Time) error {
	_, err := s.pool.Exec(ctx, `UPDATE projects SET step = $2, progress = greatest(progress, $3), updated_at = $4
		WHERE id = $1 AND download_status = 'downloading'`, id, string(step), min(99, progress), now)
	if err != nil {
		return fmt.Errorf("postgres: progress: %w", err)
	}
	return nil
}

// RecordError keeps the reason of a failed attempt (internal; logged,
// never shown) for the attempt that gives up.
func (s *Store) RecordError(ctx context.Context, id, reason string, now time.Time) error {
	_, err := s.pool.Exec(ctx, `UPDATE projects SET last_error = $2, updated_at = $3 WHERE id = $1`, id, reason, now)
	return err
}

// Fail ends a downloading project as failed with reason (shown to the
// client as downloadError) and writes failed to the outbox with it. It
// reports whether this call ended it.
func (s *Store) Fail(ctx context.Context, id, reason string, failed events.Envelope, now time.Time) (bool, error) {
	var done bool
	err := pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE projects SET download_status = 'failed', download_error = $2, step = 'done', updated_at = $3
			WHERE id = $1 AND download_status = 'downloading'`, id, reason, now)
		if err != nil {
			return fmt.Errorf("postgres: fail project: %w", err)
		}
		done = tag.RowsAffected() == 1
		return ended(ctx, tx, done, failed)
	})
	return done, err
}

// ended writes a project's terminal event when this transaction ended it.
func ended(ctx context.Context, tx pgx.Tx, done bool, env events.Envelope) error {
	if !done {
		return nil
	}
	if err := messaging.WriteOutbox(ctx, tx, env); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	return nil
}

// Source returns the organization's prepared source key, ok false when
// there is none.
func (s *Store) Source(ctx context.Context, orgID, key string) (project.Source, bool, error) {
	src := project.Source{OrgID: orgID, Key: key}
	var segs, sig []byte
	var segRecs []segmentRecord
	var sigRec signalsRecord
	err := s.pool.QueryRow(ctx, `SELECT media_key, duration, width, height, transcript_origin, segments, signals, prepared_at
		FROM sources WHERE org_id = $1 AND source_key = $2`, orgID, key).
		Scan(&src.MediaKey, &src.Duration, &src.Width, &src.Height, &src.TranscriptOrigin, &segs, &sig, &src.PreparedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return src, false, nil
	}
	if err != nil {
		return src, false, fmt.Errorf("postgres: source: %w", err)
	}
	if err := errors.Join(json.Unmarshal(segs, &segRecs), json.Unmarshal(sig, &sigRec)); err != nil {
		return src, false, fmt.Errorf("postgres: source: %w", err)
	}
	src.Segments = mapSlice(segRecs, segmentRecord.domain)
	src.Signals, src.Faces = sigRec.domain()
	return src, true, nil
}

// Ready stores src (unless the organization has it already) and ends the
// downloading project p as ready with its final fields, in one
// transaction with ready in the outbox. It reports whether this call ended
// the project.
func (s *Store) Ready(ctx context.Context, src project.Source, p project.Project, ready events.Envelope, now time.Time) (bool, error) {
	segs, err := json.Marshal(mapSlice(nonNil(src.Segments), segmentRec))
	if err != nil {
		return false, err
	}
	sig, err := json.Marshal(signalsRec(src.Signals, src.Faces))
	if err != nil {
		return false, err
	}
	analysis, err := json.Marshal(analysisRec(p.Analysis))
	if err != nil {
		return false, err
	}
	clips, err := json.Marshal(mapSlice(nonNil(p.Clips), clipRec))
	if err != nil {
		return false, err
	}
	var done bool
	err = pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO sources (org_id, source_key, media_key, duration, width, height, transcript_origin, segments, signals, prepared_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING`,
			src.OrgID, src.Key, src.MediaKey, src.Duration, src.Width, src.Height, src.TranscriptOrigin, segs, sig, now); err != nil {
			return fmt.Errorf("postgres: insert source: %w", err)
		}
		tag, err := tx.Exec(ctx, `UPDATE projects SET download_status = 'ready', step = 'done', progress = 100, duration = $2, transcript = $3,
			analysis = $4, clips = $5, video_title = $6, updated_at = $7, ready_at = $7
			WHERE id = $1 AND download_status = 'downloading'`,
			p.ID, p.Duration, p.Transcript, analysis, clips, p.VideoTitle, now)
		if err != nil {
			return fmt.Errorf("postgres: ready project: %w", err)
		}
		done = tag.RowsAffected() == 1
		return ended(ctx, tx, done, ready)
	})
	return done, err
}
