// Package org is the gateway's domain: organizations, their API keys and
// the credit grants administrators make. It holds the rules (names, tiers,
// key format and lifetime, grant bounds) and the authentication of a bearer
// key, and names the storage it needs as an interface. It imports no
// transport or database package.
package org

import (
	"context"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"golang.org/x/sync/singleflight"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/textcheck"
)

// Organization is a customer account; every API key belongs to one.
type Organization struct {
	ID        uuid.UUID
	Name      string
	Tier      string
	CreatedAt time.Time
}

// APIKey is a stored key. The secret itself is never kept, only its hash
// and a short display prefix.
type APIKey struct {
	ID             uuid.UUID
	OrganizationID uuid.UUID
	Name           string
	Prefix         string
	Hash           KeyHash
	CreatedAt      time.Time
	ExpiresAt      *time.Time
	RevokedAt      *time.Time
}

// Usable reports whether the key may authenticate a request at now.
func (k APIKey) Usable(now time.Time) bool {
	if k.RevokedAt != nil {
		return false
	}
	return k.ExpiresAt == nil || now.Before(*k.ExpiresAt)
}

// Identity is who a valid key acts for.
type Identity struct {
	Organization Organization
	Key          APIKey
}

// CreditKind is the bucket granted credits go to.
type CreditKind string

// The credit kinds of the admin API: grants to a bucket, and adjustments.
const (
	Subscription CreditKind = "subscription"
	Purchased    CreditKind = "purchased"
	Adjustment   CreditKind = "adjustment"
)

// Grant is an administrator's request to add credits to an organization.
// Its ID is also the id of the event that carries it, which is what makes
// the grant idempotent in billing.
type Grant struct {
	ID             uuid.UUID
	OrganizationID uuid.UUID
	Credits        int64
	Kind           CreditKind
	Reason         string
	CreatedAt      time.Time
}

// CreditAdjustment is an administrator's signed correction of an
// organization's credits (a mistake put right, a chargeback). Unlike a
// grant it is applied synchronously: a debit that would take available
// credits below zero is refused.
type CreditAdjustment struct {
	ID             uuid.UUID
	OrganizationID uuid.UUID
	Credits        int64
	Reason         string
	// Available is the organization's available credits after it.
	Available int64
}

// Ledger is billing's credit ledger as the admin API needs it.
type Ledger interface {
	// Adjust applies a, once per a.ID, and returns the available credits
	// after it. It returns *InsufficientCreditsError when a debit would go
	// below zero, ErrAccountNotOpen when billing has not opened the
	// organization's account yet, and an error wrapping
	// messaging.ErrUnavailable when billing does not answer.
	Adjust(ctx context.Context, a CreditAdjustment) (available int64, err error)
}

// InsufficientCreditsError refuses a debit larger than the available credits.
type InsufficientCreditsError struct{ Available int64 }

func (e *InsufficientCreditsError) Error() string {
	return "org: adjustment would take available credits below zero (" + strconv.FormatInt(e.Available, 10) + " available)"
}

// Limits of the admin inputs.
const (
	MaxOrgNameLen     = 200
	MaxKeyNameLen     = 100
	MaxGrantCredits   = 1_000_000
	MaxGrantReasonLen = 500
)

// Errors returned by Service and Store.
var (
	// ErrInvalidKey covers every way a bearer key can fail: missing,
	// malformed, unknown, revoked, expired. The transport answers all of
	// them with one identical 401 so callers cannot tell them apart.
	ErrInvalidKey = errors.New("org: invalid API key")
	// ErrOrganizationNotFound: no organization with that id.
	ErrOrganizationNotFound = errors.New("org: organization not found")
	// ErrKeyNotFound: no key with that id or hash.
	ErrKeyNotFound = errors.New("org: API key not found")
	// ErrAccountNotOpen: billing has not yet opened the organization's
	// credit account (it does so on gateway.organization.created.v1).
	ErrAccountNotOpen = errors.New("org: the organization's credit account is not open yet")
)

// Store persists organizations and keys. Implementations must be safe for
// concurrent use.
type Store interface {
	// CreateOrganization inserts o and, in the same transaction, records
	// the event gateway.organization.created.v1 for publication, so the
	// organization exists exactly when the rest of the system hears of it.
	CreateOrganization(ctx context.Context, o Organization) error
	// CreateKey inserts k. It returns ErrOrganizationNotFound when
	// k.OrganizationID names no organization.
	CreateKey(ctx context.Context, k APIKey) error
	// RevokeKey marks the key revoked at at, keeping an earlier revocation
	// time if there is one, and returns the key as stored. It returns
	// ErrKeyNotFound when no key has that id.
	RevokeKey(ctx context.Context, id uuid.UUID, at time.Time) (APIKey, error)
	// IdentityByHash returns the key with that hash and its organization,
	// whatever the key's state. It returns ErrKeyNotFound when none matches.
	IdentityByHash(ctx context.Context, h KeyHash) (Identity, error)
	// GrantCredits records the event gateway.credits.granted.v1 for g. It
	// returns ErrOrganizationNotFound when the organization does not exist.
	GrantCredits(ctx context.Context, g Grant) error
	// Organization returns the organization with that id, or
	// ErrOrganizationNotFound.
	Organization(ctx context.Context, id uuid.UUID) (Organization, error)
}

// Service runs the use cases of organizations and keys.
type Service struct {
	store  Store
	ledger Ledger
	tiers  []string
	now    func() time.Time
	rand   io.Reader
	cache  *keyCache
	// lookups merges concurrent cache misses for one key: when an entry
	// expires under load, every request in flight for that key misses at
	// once, and without this each would query the database.
	lookups singleflight.Group
}

// Options configure a Service; zero values pick production defaults.
type Options struct {
	// Tiers are the valid organization tiers.
	Tiers []string
	// Ledger applies credit adjustments; without one they are refused.
	Ledger Ledger
	// Now is the clock (time.Now by default).
	Now func() time.Time
	// Rand is the entropy source of new keys (crypto/rand by default).
	Rand io.Reader
	// CacheTTL bounds how long a found key is reused; see Authenticate.
	// Zero disables caching.
	CacheTTL time.Duration
	// CacheSize bounds the number of cached found keys (default 100k).
	CacheSize int
	// MissingTTL bounds how long an unknown key is remembered as unknown.
	// Keys carry 128 random bits, so a key created later was never looked
	// up before unless someone guessed it; the TTL bounds even that case.
	// Zero disables it.
	MissingTTL time.Duration
	// MissingSize bounds the number of remembered unknown keys (default
	// 100k), apart from the found ones so a flood cannot evict those.
	MissingSize int
}

// NewService returns a Service over store.
func NewService(store Store, opt Options) *Service {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.CacheSize <= 0 {
		opt.CacheSize = 100_000
	}
	if opt.MissingSize <= 0 {
		opt.MissingSize = 100_000
	}
	return &Service{
		store:  store,
		ledger: opt.Ledger,
		tiers:  slices.Clone(opt.Tiers),
		now:    opt.Now,
		rand:   opt.Rand,
		cache:  newKeyCache(opt.CacheTTL, opt.CacheSize, opt.MissingTTL, opt.MissingSize),
	}
}

// Tiers returns the valid tiers.
func (s *Service) Tiers() []string { return slices.Clone(s.tiers) }

// CreateOrganization validates and stores a new organization. Validation
// failures are *apierr.Error values naming the fields.
func (s *Service) CreateOrganization(ctx context.Context, name, tier string) (Organization, error) {
	name = strings.TrimSpace(name)
	f := apierr.Fields{}
	checkText(f, "name", name, MaxOrgNameLen)
	if tier == "" {
		f.Add("tier", "is required")
	} else if !slices.Contains(s.tiers, tier) {
		f.Add("tier", "must be one of "+strings.Join(s.tiers, ", "))
	}
	if err := f.Err(); err != nil {
		return Organization{}, err
	}
	o := Organization{ID: uuid.New(), Name: name, Tier: tier, CreatedAt: s.now().UTC().Truncate(time.Microsecond)}
	if err := s.store.CreateOrganization(ctx, o); err != nil {
		return Organization{}, err
	}
	return o, nil
}

// NewKey is a freshly created key with its secret, which exists only in
// this value: it is shown to the administrator once and never stored.
type NewKey struct {
	APIKey
	Secret string
}

// CreateKey issues a key for an organization. expiresAt, when set, must be
// in the future. It returns ErrOrganizationNotFound for an unknown
// organization and *apierr.Error values for invalid input.
func (s *Service) CreateKey(ctx context.Context, orgID uuid.UUID, name string, expiresAt *time.Time) (NewKey, error) {
	name = strings.TrimSpace(name)
	now := s.now().UTC().Truncate(time.Microsecond)
	f := apierr.Fields{}
	checkText(f, "name", name, MaxKeyNameLen)
	if expiresAt != nil && !expiresAt.After(now) {
		f.Add("expiresAt", "must be in the future")
	}
	if err := f.Err(); err != nil {
		return NewKey{}, err
	}
	secret, err := GenerateKey(s.rand)
	if err != nil {
		return NewKey{}, err
	}
	k := APIKey{
		ID:             uuid.New(),
		OrganizationID: orgID,
		Name:           name,
		Prefix:         DisplayPrefix(secret),
		Hash:           HashKey(secret),
		CreatedAt:      now,
	}
	if expiresAt != nil {
		// Postgres keeps microseconds; truncating here makes the value
		// returned now equal to the one read back later.
		e := expiresAt.UTC().Truncate(time.Microsecond)
		k.ExpiresAt = &e
	}
	if err := s.store.CreateKey(ctx, k); err != nil {
		return NewKey{}, err
	}
	s.cache.forget(k.Hash)
	return NewKey{APIKey: k, Secret: secret}, nil
}

// RevokeKey revokes a key. Revoking twice is not an error. The revoking
// process forgets its cached authentication at once; other gateway
// replicas may accept the key for up to the cache TTL (≤ 5 s). It returns
// ErrKeyNotFound for an unknown key.
func (s *Service) RevokeKey(ctx context.Context, id uuid.UUID) error {
	k, err := s.store.RevokeKey(ctx, id, s.now().UTC())
	if err != nil {
		return err
	}
	s.cache.forget(k.Hash)
	return nil
}

// GrantCredits validates a grant and hands it to billing through the
// store's outbox. It returns ErrOrganizationNotFound for an unknown
// organization and *apierr.Error values for invalid input.
func (s *Service) GrantCredits(ctx context.Context, orgID uuid.UUID, credits int64, kind CreditKind, reason string) (Grant, error) {
	reason = strings.TrimSpace(reason)
	f := apierr.Fields{}
	f.Check(credits >= 1 && credits <= MaxGrantCredits, "credits", "must be an integer from 1 to 1000000")
	if kind == "" {
		f.Add("kind", "is required")
	} else {
		f.Check(kind == Subscription || kind == Purchased, "kind", "must be subscription, purchased or adjustment")
	}
	checkText(f, "reason", reason, MaxGrantReasonLen)
	if err := f.Err(); err != nil {
		return Grant{}, err
	}
	g := Grant{ID: uuid.New(), OrganizationID: orgID, Credits: credits, Kind: kind, Reason: reason, CreatedAt: s.now().UTC()}
	if err := s.store.GrantCredits(ctx, g); err != nil {
		return Grant{}, err
	}
	return g, nil
}

// adjustmentNamespace derives adjustment ids from idempotency keys.
var adjustmentNamespace = uuid.MustParse("0f5b3c52-1d1e-4f5e-8a53-5b8f2f0c7a41")

// AdjustCredits applies a signed, non-zero correction through billing and
// returns it with the available credits after it. idempotencyKey, when
// set, derives the adjustment id, so a retry after a lost answer applies
// the adjustment once. It returns ErrOrganizationNotFound, ErrAccountNotOpen,
// *apierr.Error values for invalid input (a debit below zero included), and
// billing's unavailability.
func (s *Service) AdjustCredits(ctx context.Context, orgID uuid.UUID, credits int64, reason, idempotencyKey string) (CreditAdjustment, error) {
	reason = strings.TrimSpace(reason)
	f := apierr.Fields{}
	f.Check(credits != 0 && credits >= -MaxGrantCredits && credits <= MaxGrantCredits, "credits",
		"must be a non-zero integer from -1000000 to 1000000 for an adjustment")
	checkText(f, "reason", reason, MaxGrantReasonLen)
	if err := f.Err(); err != nil {
		return CreditAdjustment{}, err
	}
	if s.ledger == nil {
		return CreditAdjustment{}, errors.New("org: no ledger configured for adjustments")
	}
	if _, err := s.store.Organization(ctx, orgID); err != nil {
		return CreditAdjustment{}, err
	}
	id := uuid.New()
	if idempotencyKey != "" {
		id = uuid.NewSHA1(adjustmentNamespace, []byte(orgID.String()+"\n"+idempotencyKey))
	}
	a := CreditAdjustment{ID: id, OrganizationID: orgID, Credits: credits, Reason: reason}
	available, err := s.ledger.Adjust(ctx, a)
	if ie, ok := errors.AsType[*InsufficientCreditsError](err); ok {
		return CreditAdjustment{}, apierr.Field("credits", "would take available credits below zero ("+strconv.FormatInt(ie.Available, 10)+" available)")
	}
	if err != nil {
		return CreditAdjustment{}, err
	}
	a.Available = available
	return a, nil
}

// Authenticate resolves a bearer key to its identity. Every failure of the
// key itself is ErrInvalidKey; other errors are infrastructure failures.
//
// Lookups are cached by key hash, found keys for the cache TTL (at most
// 5 s) and unknown keys for the missing TTL, because every API request
// authenticates and the database should not carry that load. Expiry is still checked against
// the clock on every call, so a cached key stops working the moment it
// expires; only a revocation made by another replica can take up to the TTL
// to be seen here.
func (s *Service) Authenticate(ctx context.Context, bearer string) (Identity, error) {
	key, err := ParseKey(bearer)
	if err != nil {
		return Identity{}, ErrInvalidKey
	}
	h := HashKey(key)
	now := s.now()
	id, found, cached := s.cache.get(h, now)
	if !cached {
		if id, found, err = s.lookup(ctx, h, now); err != nil {
			return Identity{}, err
		}
	}
	if !found || !id.Key.Usable(now) {
		return Identity{}, ErrInvalidKey
	}
	return id, nil
}

// lookup reads a key from the store and caches the result; concurrent
// lookups of one key share a single query. The query is detached from
// the caller that happens to run it, so its cancellation cannot fail the
// others waiting on it, and a caller whose ctx ends stops waiting at once
// (the query goes on for the rest, bounded by lookupTimeout).
func (s *Service) lookup(ctx context.Context, h KeyHash, now time.Time) (Identity, bool, error) {
	type result struct {
		id    Identity
		found bool
	}
	ch := s.lookups.DoChan(string(h[:]), func() (any, error) {
		qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lookupTimeout)
		defer cancel()
		id, err := s.store.IdentityByHash(qctx, h)
		if err != nil && !errors.Is(err, ErrKeyNotFound) {
			return nil, err
		}
		r := result{id: id, found: err == nil}
		s.cache.put(h, r.id, r.found, now)
		return r, nil
	})
	select {
	case <-ctx.Done():
		return Identity{}, false, ctx.Err()
	case res := <-ch:
		if res.Err != nil {
			return Identity{}, false, res.Err
		}
		r := res.Val.(result)
		return r.id, r.found, nil
	}
}

// lookupTimeout bounds a shared key lookup.
const lookupTimeout = 5 * time.Second

// checkText requires a trimmed, non-empty, single-line string of at most
// max characters that follows the shared text rule (package textcheck).
func checkText(f apierr.Fields, field, v string, max int) {
	switch {
	case v == "":
		f.Add(field, "is required")
	case !textcheck.Check(f, field, v, false):
	case utf8.RuneCountInString(v) > max:
		f.Add(field, "must be at most "+strconv.Itoa(max)+" characters")
	}
}
