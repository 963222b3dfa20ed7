// Package postgres stores the gateway's organizations, API keys and
// idempotency records in its own schema, and writes the gateway's events to
// the transactional outbox of pkg/platform/messaging in the same transactions.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/services/gateway/internal/org"
)

// Source is the source field of the gateway's events.
const Source = "gateway"

// Orgs implements org.Store.
type Orgs struct {
	pool *pgxpool.Pool
}

var _ org.Store = (*Orgs)(nil)

// NewOrgs returns a store over pool, whose search_path is the gateway
// schema.
func NewOrgs(pool *pgxpool.Pool) *Orgs { return &Orgs{pool: pool} }

// CreateOrganization implements org.Store.
func (s *Orgs) CreateOrganization(ctx context.Context, o org.Organization) error {
	env, err := events.New(ctx, events.GatewayOrganizationCreated, Source, o.ID.String(), events.OrganizationCreated{
		OrganizationID: o.ID.String(),
		Name:           o.Name,
		Tier:           o.Tier,
	})
	if err != nil {
		return err
	}
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx,
			`INSERT INTO organizations (id, name, tier, created_at) VALUES ($1, $2, $3, $4)`,
			o.ID, o.Name, o.Tier, o.CreatedAt); err != nil {
			return fmt.Errorf("postgres: insert organization: %w", err)
		}
		return messaging.WriteOutbox(ctx, tx, env)
	})
}

// CreateKey implements org.Store.
func (s *Orgs) CreateKey(ctx context.Context, k org.APIKey) error {
	_, err := s.pool.Exec(ctx,
		`INSERT INTO api_keys (id, organization_id, name, prefix, key_hash, created_at, expires_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		k.ID, k.OrganizationID, k.Name, k.Prefix, k.Hash[:], k.CreatedAt, k.ExpiresAt)
	if isForeignKeyViolation(err) {
		return org.ErrOrganizationNotFound
	}
	if err != nil {
		return fmt.Errorf("postgres: insert api key: %w", err)
	}
	return nil
}

const keyColumns = `k.id, k.organization_id, k.name, k.prefix, k.key_hash, k.created_at, k.expires_at, k.revoked_at`

// RevokeKey implements org.Store.
func (s *Orgs) RevokeKey(ctx context.Context, id uuid.UUID, at time.Time) (org.APIKey, error) {
	row := s.pool.QueryRow(ctx,
		`UPDATE api_keys AS k SET revoked_at = COALESCE(k.revoked_at, $2)
		 WHERE k.id = $1 RETURNING `+keyColumns, id, at)
	k, err := scanKey(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return org.APIKey{}, org.ErrKeyNotFound
	}
	if err != nil {
		return org.APIKey{}, fmt.Errorf("postgres: revoke api key: %w", err)
	}
	return k, nil
}

// IdentityByHash implements org.Store.
func (s *Orgs) IdentityByHash(ctx context.Context, h org.KeyHash) (org.Identity, error) {
	var id org.Identity
	var hash []byte
	err := s.pool.QueryRow(ctx,
		`SELECT `+keyColumns+`, o.name, o.tier, o.created_at
		 FROM api_keys k JOIN organizations o ON o.id = k.organization_id
		 WHERE k.key_hash = $1`, h[:]).Scan(
		&id.Key.ID, &id.Key.OrganizationID, &id.Key.Name, &id.Key.Prefix, &hash,
		&id.Key.CreatedAt, &id.Key.ExpiresAt, &id.Key.RevokedAt,
		&id.Organization.Name, &id.Organization.Tier, &id.Organization.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return org.Identity{}, org.ErrKeyNotFound
	}
	if err != nil {
		return org.Identity{}, fmt.Errorf("postgres: look up api key: %w", err)
	}
	copy(id.Key.Hash[:], hash)
	id.Organization.ID = id.Key.OrganizationID
	return id, nil
}

// GrantCredits implements org.Store. Nothing but the outbox row is
// written: billing owns the ledger, and the event (whose id is the grant
// id) is the record of the grant.
func (s *Orgs) GrantCredits(ctx context.Context, g org.Grant) error {
	env, err := events.NewWithID(ctx, g.ID.String(), events.GatewayCreditsGranted, Source, g.OrganizationID.String(),
		events.CreditsGranted{
			GrantID:        g.ID.String(),
			OrganizationID: g.OrganizationID.String(),
			Credits:        g.Credits,
			Kind:           string(g.Kind),
			Reason:         g.Reason,
		})
	if err != nil {
		return err
	}
	return pgkit.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		// The share lock keeps the organization in place until the grant
		// commits, so a grant can never name an organization that is gone.
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM organizations WHERE id = $1 FOR KEY SHARE`, g.OrganizationID).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return org.ErrOrganizationNotFound
		}
		if err != nil {
			return fmt.Errorf("postgres: check organization: %w", err)
		}
		return messaging.WriteOutbox(ctx, tx, env)
	})
}

// Organization implements org.Store.
func (s *Orgs) Organization(ctx context.Context, id uuid.UUID) (org.Organization, error) {
	o := org.Organization{ID: id}
	err := s.pool.QueryRow(ctx, `SELECT name, tier, created_at FROM organizations WHERE id = $1`, id).Scan(&o.Name, &o.Tier, &o.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return org.Organization{}, org.ErrOrganizationNotFound
	}
	if err != nil {
		return org.Organization{}, fmt.Errorf("postgres: read organization: %w", err)
	}
	return o, nil
}

func scanKey(row pgx.Row) (org.APIKey, error) {
	var k org.APIKey
	var hash []byte
	if err := row.Scan(&k.ID, &k.OrganizationID, &k.Name, &k.Prefix, &hash, &k.CreatedAt, &k.ExpiresAt, &k.RevokedAt); err != nil {
		return org.APIKey{}, err
	}
	copy(k.Hash[:], hash)
	return k, nil
}

func isForeignKeyViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23503"
}
