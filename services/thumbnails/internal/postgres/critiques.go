package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/contracts/credits"
	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/services/thumbnails/internal/analyze/critique"
)

// critiqueRecord is the stored form of a critique (critiques.result). Its
// keys are those of the rows already written, which were the API's names;
// the scores and areas convert to and from their domain types, so a field
// added there fails to compile here until storage decides on it.
type critiqueRecord struct {
	OverallScore   float64      `json:"overallScore"`
	Scores         scoresRecord `json:"scores"`
	Strengths      []string     `json:"strengths"`
	Weaknesses     []string     `json:"weaknesses"`
	Improvements   []string     `json:"improvements"`
	AttentionAreas []areaRecord `json:"attentionAreas"`
	Summary        string       `json:"summary"`
	// Text is absent from the rows written before the critique read
	// text, and from those of pictures where it read none.
	Text *readingRecord `json:"text,omitempty"`
}

type readingRecord struct {
	Words       []string `json:"words"`
	MobileWords []string `json:"mobileWords"`
	Lost        []string `json:"lost"`
	Survived    float64  `json:"survived"`
}

type scoresRecord struct {
	Contrast        float64 `json:"contrast"`
	Composition     float64 `json:"composition"`
	TextReadability float64 `json:"textReadability"`
	FaceVisibility  float64 `json:"faceVisibility"`
	ColorAppeal     float64 `json:"colorAppeal"`
	Clickability    float64 `json:"clickability"`
	EmotionalImpact float64 `json:"emotionalImpact"`
}

type areaRecord struct {
	X         float64 `json:"x"`
	Y         float64 `json:"y"`
	Radius    float64 `json:"radius"`
	Intensity float64 `json:"intensity"`
	Label     string  `json:"label"`
}

// critiqueRec keeps the domain's empty lists empty: they are stored as [].
func critiqueRec(c critique.Critique) critiqueRecord {
	r := critiqueRecord{OverallScore: c.OverallScore, Scores: scoresRecord(c.Scores), Strengths: c.Strengths, Weaknesses: c.Weaknesses,
		Improvements: c.Improvements, AttentionAreas: make([]areaRecord, len(c.AttentionAreas)), Summary: c.Summary}
	for i, a := range c.AttentionAreas {
		r.AttentionAreas[i] = areaRecord(a)
	}
	if len(c.Text.Words) > 0 {
		t := readingRecord{Words: c.Text.Words, MobileWords: c.Text.MobileWords, Lost: c.Text.Lost, Survived: c.Text.Survived}
		r.Text = &t
	}
	return r
}

func (r critiqueRecord) domain() critique.Critique {
	c := critique.Critique{OverallScore: r.OverallScore, Scores: critique.Scores(r.Scores), Strengths: r.Strengths, Weaknesses: r.Weaknesses,
		Improvements: r.Improvements, AttentionAreas: make([]critique.Area, len(r.AttentionAreas)), Summary: r.Summary}
	for i, a := range r.AttentionAreas {
		c.AttentionAreas[i] = critique.Area(a)
	}
	if r.Text != nil {
		c.Text = critique.Reading{Words: r.Text.Words, MobileWords: r.Text.MobileWords, Lost: r.Text.Lost, Survived: r.Text.Survived}
	}
	return c
}

// SaveCritique stores c and completes its reservation r with completed, in
// one transaction. Errors: credits.ErrSettled when r was failed meanwhile
// (nothing is stored), or a database failure.
func (s *Store) SaveCritique(ctx context.Context, c critique.Record, r credits.Reservation, completed events.Envelope) error {
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO critiques (id, org_id, image_url, niche, engine, result, reservation_id, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			c.ID, c.OrgID, c.ImageURL, c.Niche, c.Engine, critiqueRec(c.Critique), r.ID, c.CreatedAt); err != nil {
			return fmt.Errorf("postgres: insert critique: %w", err)
		}
		return s.credits.Complete(ctx, tx, r, completed)
	})
}

// Critique returns the organization's critique, or critique.ErrNotFound.
func (s *Store) Critique(ctx context.Context, orgID, id string) (critique.Record, error) {
	return pgkit.One(s.pool.QueryRow(ctx, `SELECT id::text, org_id::text, image_url, niche, engine, result, created_at
		FROM critiques WHERE org_id = $1 AND id = $2`, orgID, id),
		func(r pgx.Row) (critique.Record, error) {
			var c critique.Record
			var rec critiqueRecord
			err := r.Scan(&c.ID, &c.OrgID, &c.ImageURL, &c.Niche, &c.Engine, &rec, &c.CreatedAt)
			c.Critique = rec.domain()
			return c, err
		}, critique.ErrNotFound)
}
