package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/contracts/credits"
	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/services/clips/internal/captions"
	"hookline.dev/services/clips/internal/censor"
	"hookline.dev/services/clips/internal/project"
	"hookline.dev/services/clips/internal/render"
	"hookline.dev/services/clips/internal/translate"
)

const renderCols = `id::text, org_id::text, project_id::text, clip_id, format, subtitle_style, coalesce(brand_id::text, ''), options,
	status, progress, current_step, coalesce(error, ''), notes, credits, reservation_id::text,
	coalesce(output_key, ''), coalesce(captions_key, ''), coalesce(crop_key, ''), attempts, created_at, updated_at, completed_at,
	seconds_removed, exports, caption_translation`

func scanRender(row pgx.Row) (render.Render, error) {
	var r render.Render
	var format, style, status string
	var options, notes, exports, translation []byte
	var opts optionsRecord
	var exps []exportRecord
	err := row.Scan(&r.ID, &r.OrgID, &r.ProjectID, &r.ClipID, &format, &style, &r.BrandID, &options, &status, &r.Progress, &r.Step,
		&r.Error, &notes, &r.Credits, &r.ReservationID, &r.OutputKey, &r.CaptionsKey, &r.CropKey, &r.Attempts, &r.CreatedAt, &r.UpdatedAt, &r.CompletedAt,
		&r.SecondsRemoved, &exports, &translation)
	if err != nil {
		return r, err
	}
	r.Format, r.Style, r.Status = project.Format(format), captions.Style(style), render.Status(status)
	err = errors.Join(json.Unmarshal(options, &opts), json.Unmarshal(notes, &r.Notes), json.Unmarshal(exports, &exps))
	r.Exports = mapSlice(exps, func(e exportRecord) render.Export { return render.Export(e) })
	r.Options = render.Options(opts)
	if translation != nil {
		var t translationRecord
		err = errors.Join(err, json.Unmarshal(translation, &t))
		r.CaptionTranslation = &translate.Translation{Engine: t.Engine, Quality: t.Quality, Language: t.Language}
	}
	if r.Options.Layout == "" {
		r.Options.Layout = render.LayoutAuto // stored before layouts existed
	}
	if r.Options.Censor == "" {
		r.Options.Censor = censor.None // stored before the profanity filter
	}
	return r, err
}

func oneRender(row pgx.Row) (render.Render, error) {
	return pgkit.One(row, scanRender, render.ErrNotFound)
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// CreateRenders stores renders and their jobs in one transaction.
func (s *Store) CreateRenders(ctx context.Context, rs []render.Render, jobs []events.Envelope) error {
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		for _, r := range rs {
			opts, err := json.Marshal(optionsRecord(r.Options))
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO renders (id, org_id, project_id, clip_id, format, subtitle_style, brand_id, options,
				status, current_step, credits, reservation_id, created_at, updated_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)`,
				r.ID, r.OrgID, r.ProjectID, r.ClipID, string(r.Format), string(r.Style), nullable(r.BrandID), opts,
				string(r.Status), r.Step, r.Credits, r.ReservationID, r.CreatedAt); err != nil {
				return fmt.Errorf("postgres: insert render: %w", err)
			}
		}
		if err := messaging.WriteOutbox(ctx, tx, jobs...); err != nil {
			return fmt.Errorf("postgres: %w", err)
		}
		return nil
	})
}

// Render returns the organization's render, or render.ErrNotFound.
func (s *Store) Render(ctx context.Context, orgID, id string) (render.Render, error) {
	return oneRender(s.pool.QueryRow(ctx, `SELECT `+renderCols+` FROM renders WHERE org_id = $1 AND id = $2`, orgID, id))
}

// Renders returns a page of a project's renders, newest first.
func (s *Store) Renders(ctx context.Context, orgID, projectID string, offset, limit int) ([]render.Render, int, error) {
	where := `org_id = $1 AND project_id = $2`
	return pgkit.Page(ctx, s.pool, `SELECT count(*) FROM renders WHERE `+where,
		`SELECT `+renderCols+` FROM renders WHERE `+where+` ORDER BY created_at DESC, id DESC OFFSET $3 LIMIT $4`,
		[]any{orgID, projectID}, offset, limit, scanRender)
}

// RenderByReservation finds the render a reservation pays for, or
// render.ErrNotFound.
func (s *Store) RenderByReservation(ctx context.Context, reservationID string) (render.Render, error) {
	return oneRender(s.pool.QueryRow(ctx, `SELECT `+renderCols+` FROM renders WHERE reservation_id = $1`, reservationID))
}

// AttemptRender starts a render attempt: counted, rendering. A render
// that is no longer pending or rendering comes back as it is.
func (s *Store) AttemptRender(ctx context.Context, orgID, id string, now time.Time) (render.Render, error) {
	r, err := oneRender(s.pool.QueryRow(ctx, `UPDATE renders SET attempts = attempts + 1, status = 'rendering', updated_at = $3
		WHERE org_id = $1 AND id = $2 AND status IN ('pending', 'rendering') RETURNING `+renderCols, orgID, id, now))
	if errors.Is(err, render.ErrNotFound) {
		return s.Render(ctx, orgID, id)
	}
	return r, err
}

// RenderProgress records the step and progress of a running render.
func (s *Store) RenderProgress(ctx context.Context, id, step string, progress int, now time.Time) error {
	_, err := s.pool.Exec(ctx, `UPDATE renders SET current_step = $2, progress = greatest(progress, $3), updated_at = $4
		WHERE id = $1 AND status = 'rendering'`, id, step, min(99, progress), now)
	return err
}

// CompleteRender ends r as completed with its objects and settles its
// reservation with completed, in one transaction. credits.ErrSettled
// means the reservation was failed meanwhile: nothing is stored.
func (s *Store) CompleteRender(ctx context.Context, r render.Render, res credits.Reservation, completed events.Envelope, now time.Time) error {
	notes, err := json.Marshal(nonNil(r.Notes))
	if err != nil {
		return err
	}
	exports, err := json.Marshal(nonNil(mapSlice(r.Exports, func(e render.Export) exportRecord { return exportRecord(e) })))
	if err != nil {
		return err
	}
	var translation []byte // NULL: captions in the spoken language
	if t := r.CaptionTranslation; t != nil {
		if translation, err = json.Marshal(translationRecord{Engine: t.Engine, Quality: t.Quality, Language: t.Language}); err != nil {
			return err
		}
	}
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE renders SET status = 'completed', progress = 100, current_step = 'done', output_key = $2,
			captions_key = $3, crop_key = $4, notes = $5, updated_at = $6, completed_at = $6,
			seconds_removed = $7, exports = $8, caption_translation = $9
			WHERE id = $1 AND status = 'rendering'`, r.ID, r.OutputKey, r.CaptionsKey, nullable(r.CropKey), notes, now,
			r.SecondsRemoved, exports, translation)
		if err != nil {
			return fmt.Errorf("postgres: complete render: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return nil // ended by another delivery
		}
		return s.credits.Complete(ctx, tx, res, completed)
	})
}

// FailRender ends r as failed with reason and refunds its reservation, in
// one transaction. A render already ended is left alone.
func (s *Store) FailRender(ctx context.Context, r render.Render, res credits.Reservation, reason string, now time.Time) error {
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE renders SET status = 'failed', error = $2, current_step = 'done', updated_at = $3
			WHERE id = $1 AND status IN ('pending', 'rendering')`, r.ID, reason, now)
		if err != nil {
			return fmt.Errorf("postgres: fail render: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return nil
		}
		return s.credits.Fail(ctx, tx, res, reason)
	})
}

// Uncount takes back the attempt a shutdown interrupted (the job goes back
// to the queue through no fault of its own): table is "projects" or
// "renders".
func (s *Store) Uncount(ctx context.Context, table, id string) error {
	if table != "projects" && table != "renders" {
		return fmt.Errorf("postgres: uncount: unknown table %q", table)
	}
	_, err := s.pool.Exec(ctx, `UPDATE `+table+` SET attempts = greatest(0, attempts - 1) WHERE id = $1`, id)
	return err
}
