package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/services/clips/internal/moments"
	"hookline.dev/services/clips/internal/service"
	"hookline.dev/services/clips/internal/transcript"
)

var _ service.Transcripts = (*Store)(nil)

// rangeRecord is a deleted range as stored.
type rangeRecord struct {
	From int `json:"from"`
	To   int `json:"to"`
}

// TranscriptEdits returns the edits of the organization's project:
// version 1 and none when it was never edited (a missing project too: the
// caller has read the project first).
func (s *Store) TranscriptEdits(ctx context.Context, orgID, projectID string) (transcript.Edits, error) {
	var texts, deleted, vocabulary []byte
	e := transcript.Edits{Version: 1}
	err := s.pool.QueryRow(ctx, `SELECT version, texts, deleted, vocabulary FROM transcript_edits WHERE org_id = $1 AND project_id = $2`,
		orgID, projectID).Scan(&e.Version, &texts, &deleted, &vocabulary)
	if errors.Is(err, pgx.ErrNoRows) {
		return e, nil
	}
	if err != nil {
		return e, err
	}
	var ts map[string]string
	var rs []rangeRecord
	if err := json.Unmarshal(texts, &ts); err != nil {
		return e, fmt.Errorf("transcript texts: %w", err)
	}
	if err := json.Unmarshal(deleted, &rs); err != nil {
		return e, fmt.Errorf("transcript deletions: %w", err)
	}
	if err := json.Unmarshal(vocabulary, &e.Vocabulary); err != nil {
		return e, fmt.Errorf("transcript vocabulary: %w", err)
	}
	e.Text = make(map[int]string, len(ts))
	for k, v := range ts {
		id, err := strconv.Atoi(k)
		if err != nil {
			return e, fmt.Errorf("transcript texts: word id %q", k)
		}
		e.Text[id] = v
	}
	for _, r := range rs {
		e.Deleted = append(e.Deleted, transcript.Range{From: r.From, To: r.To})
	}
	return e, nil
}

// SaveTranscript stores e over version e.Version-1 and, when ranked is
// set, the project's re-ranked analysis and clips, in one transaction.
// Errors: transcript.ErrStale (the stored version is not e.Version-1).
func (s *Store) SaveTranscript(ctx context.Context, orgID, projectID string, e transcript.Edits, ranked *moments.Result, now time.Time) error {
	texts := make(map[string]string, len(e.Text))
	for id, t := range e.Text {
		texts[strconv.Itoa(id)] = t
	}
	rs := make([]rangeRecord, len(e.Deleted))
	for i, r := range e.Deleted {
		rs[i] = rangeRecord{From: r.From, To: r.To}
	}
	tj, err := json.Marshal(texts)
	if err != nil {
		return err
	}
	dj, err := json.Marshal(rs)
	if err != nil {
		return err
	}
	vj, err := json.Marshal(nonNil(e.Vocabulary))
	if err != nil {
		return err
	}
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		// The unedited version 1 has no row: the first edit inserts it,
		// unless another got there first.
		tag, err := tx.Exec(ctx, `INSERT INTO transcript_edits (project_id, org_id, version, texts, deleted, vocabulary, updated_at)
			SELECT id, org_id, $3, $4, $5, $6, $7 FROM projects WHERE org_id = $1 AND id = $2 AND $3 = 2
			ON CONFLICT (project_id) DO UPDATE SET version = excluded.version, texts = excluded.texts, deleted = excluded.deleted,
				vocabulary = excluded.vocabulary, updated_at = excluded.updated_at
			WHERE transcript_edits.version = excluded.version - 1`,
			orgID, projectID, e.Version, tj, dj, vj, now)
		if err != nil {
			return fmt.Errorf("postgres: save transcript: %w", err)
		}
		if tag.RowsAffected() == 0 {
			tag, err = tx.Exec(ctx, `UPDATE transcript_edits SET version = $3, texts = $4, deleted = $5, vocabulary = $6, updated_at = $7
				WHERE org_id = $1 AND project_id = $2 AND version = $3 - 1 AND $3 > 2`, orgID, projectID, e.Version, tj, dj, vj, now)
			if err != nil {
				return fmt.Errorf("postgres: save transcript: %w", err)
			}
			if tag.RowsAffected() == 0 {
				return transcript.ErrStale
			}
		}
		if ranked == nil {
			return nil
		}
		analysis, err := json.Marshal(analysisRec(ranked.Analysis))
		if err != nil {
			return err
		}
		clips, err := json.Marshal(mapSlice(nonNil(ranked.Clips), clipRec))
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE projects SET analysis = $3, clips = $4, updated_at = $5 WHERE org_id = $1 AND id = $2`,
			orgID, projectID, analysis, clips, now)
		return err
	})
}
