package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// CensorWords returns the organization's own words for the profanity
// filter, none when it has not set any.
func (s *Store) CensorWords(ctx context.Context, orgID string) ([]string, error) {
	var words []string
	err := s.pool.QueryRow(ctx, `SELECT words FROM censor_words WHERE org_id = $1`, orgID).Scan(&words)
	if errors.Is(err, pgx.ErrNoRows) {
		return []string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: censor words: %w", err)
	}
	return words, nil
}

// SetCensorWords replaces the organization's own words.
func (s *Store) SetCensorWords(ctx context.Context, orgID string, words []string, now time.Time) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO censor_words (org_id, words, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (org_id) DO UPDATE SET words = excluded.words, updated_at = excluded.updated_at`, orgID, nonNil(words), now); err != nil {
		return fmt.Errorf("postgres: set censor words: %w", err)
	}
	return nil
}
