package org

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/platform/apierr"
)

// memStore is an in-memory Store for the service's rules.
type memStore struct {
	mu      sync.Mutex
	orgs    map[uuid.UUID]Organization
	keys    map[uuid.UUID]APIKey
	lookups int
	// gate, when set, holds every lookup until it is closed; entered
	// receives a value as each lookup starts waiting.
	gate, entered chan struct{}
	grants        []Grant
	events        []string
}

func newMemStore() *memStore {
	return &memStore{orgs: map[uuid.UUID]Organization{}, keys: map[uuid.UUID]APIKey{}}
}

func (m *memStore) CreateOrganization(_ context.Context, o Organization) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.orgs[o.ID] = o
	m.events = append(m.events, "organization.created:"+o.ID.String())
	return nil
}

func (m *memStore) CreateKey(_ context.Context, k APIKey) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.orgs[k.OrganizationID]; !ok {
		return ErrOrganizationNotFound
	}
	m.keys[k.ID] = k
	return nil
}

func (m *memStore) RevokeKey(_ context.Context, id uuid.UUID, at time.Time) (APIKey, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.keys[id]
	if !ok {
		return APIKey{}, ErrKeyNotFound
	}
	if k.RevokedAt == nil {
		k.RevokedAt = &at
	}
	m.keys[id] = k
	return k, nil
}

func (m *memStore) IdentityByHash(_ context.Context, h KeyHash) (Identity, error) {
	if m.gate != nil {
		m.entered <- struct{}{}
		<-m.gate
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lookups++
	for _, k := range m.keys {
		if k.Hash == h {
			return Identity{Organization: m.orgs[k.OrganizationID], Key: k}, nil
		}
	}
	return Identity{}, ErrKeyNotFound
}

func (m *memStore) GrantCredits(_ context.Context, g Grant) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.orgs[g.OrganizationID]; !ok {
		return ErrOrganizationNotFound
	}
	m.grants = append(m.grants, g)
	return nil
}

func (m *memStore) Organization(_ context.Context, id uuid.UUID) (Organization, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.orgs[id]
	if !ok {
		return Organization{}, ErrOrganizationNotFound
	}
	return o, nil
}

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func newService(t *testing.T) (*Service, *memStore, *fakeClock) {
	t.Helper()
	st := newMemStore()
	clk := &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	return NewService(st, Options{Tiers: []string{"free", "pro"}, Now: clk.now, CacheTTL: 5 * time.Second}), st, clk
}

func fieldsOf(t *testing.T, err error) map[string]string {
	t.Helper()
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Code != apierr.InvalidRequest {
		t.Fatalf("want an invalid_request error, got %v", err)
	}
	switch f := ae.Details["fields"].(type) {
	case map[string]string:
		return f
	case apierr.Fields:
		return f
	}
	t.Fatalf("error without details.fields: %v", err)
	return nil
}

func TestCreateOrganizationValidates(t *testing.T) {
	s, st, _ := newService(t)
	ctx := context.Background()
	f := fieldsOf(t, must2(s.CreateOrganization(ctx, "   ", "gold")))
	if f["name"] == "" || f["tier"] == "" {
		t.Fatalf("fields = %v, want name and tier", f)
	}
	f = fieldsOf(t, must2(s.CreateOrganization(ctx, strings.Repeat("x", 201), "free")))
	if f["name"] == "" {
		t.Fatalf("201-character name accepted")
	}
	f = fieldsOf(t, must2(s.CreateOrganization(ctx, "a\x00b", "free")))
	if f["name"] == "" {
		t.Fatalf("control character accepted")
	}
	o, err := s.CreateOrganization(ctx, "  Acme  ", "pro")
	if err != nil {
		t.Fatal(err)
	}
	if o.Name != "Acme" || o.Tier != "pro" || o.ID == uuid.Nil {
		t.Fatalf("organization = %+v", o)
	}
	if len(st.events) != 1 {
		t.Fatalf("events = %v, want one creation", st.events)
	}
	if _, err := s.CreateOrganization(ctx, strings.Repeat("ü", 200), "free"); err != nil {
		t.Fatalf("200 multi-byte characters refused: %v", err)
	}
}

func must2[T any](_ T, err error) error { return err }

func TestKeyLifecycle(t *testing.T) {
	s, st, clk := newService(t)
	ctx := context.Background()
	o, _ := s.CreateOrganization(ctx, "Acme", "free")

	if _, err := s.CreateKey(ctx, uuid.New(), "ci", nil); !errors.Is(err, ErrOrganizationNotFound) {
		t.Fatalf("key for unknown org: %v", err)
	}
	past := clk.t.Add(-time.Second)
	if f := fieldsOf(t, must2(s.CreateKey(ctx, o.ID, "ci", &past))); f["expiresAt"] == "" {
		t.Fatal("expiry in the past accepted")
	}
	if f := fieldsOf(t, must2(s.CreateKey(ctx, o.ID, strings.Repeat("k", 101), nil))); f["name"] == "" {
		t.Fatal("101-character key name accepted")
	}

	exp := clk.t.Add(time.Hour)
	k, err := s.CreateKey(ctx, o.ID, "ci", &exp)
	if err != nil {
		t.Fatal(err)
	}
	if k.Prefix != k.Secret[:12] || k.Hash != HashKey(k.Secret) {
		t.Fatalf("key = %+v", k)
	}
	stored := st.keys[k.ID]
	if stored.Hash != HashKey(k.Secret) || strings.Contains(stored.Prefix+stored.Name, k.Secret) {
		t.Fatal("the stored key holds more than the hash and display prefix")
	}

	id, err := s.Authenticate(ctx, k.Secret)
	if err != nil || id.Organization.ID != o.ID || id.Key.ID != k.ID {
		t.Fatalf("Authenticate = %+v, %v", id, err)
	}

	// Expiry applies at once, even to a cached lookup.
	clk.t = exp
	if _, err := s.Authenticate(ctx, k.Secret); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("expired key: %v", err)
	}
}

func TestAuthenticateFailuresAreUniform(t *testing.T) {
	s, _, _ := newService(t)
	ctx := context.Background()
	o, _ := s.CreateOrganization(ctx, "Acme", "free")
	k, _ := s.CreateKey(ctx, o.ID, "ci", nil)
	if err := s.RevokeKey(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	unknown, _ := GenerateKey(nil)
	for name, bearer := range map[string]string{
		"missing":   "",
		"malformed": "hk_live_short",
		"unknown":   unknown,
		"revoked":   k.Secret,
	} {
		if _, err := s.Authenticate(ctx, bearer); err != ErrInvalidKey { //nolint:errorlint // identity is the point: one error for all cases
			t.Errorf("%s: err = %v, want exactly ErrInvalidKey", name, err)
		}
	}
}

func TestRevocationBypassesCache(t *testing.T) {
	s, st, clk := newService(t)
	ctx := context.Background()
	o, _ := s.CreateOrganization(ctx, "Acme", "free")
	k, _ := s.CreateKey(ctx, o.ID, "ci", nil)

	for range 5 {
		if _, err := s.Authenticate(ctx, k.Secret); err != nil {
			t.Fatal(err)
		}
	}
	if st.lookups != 1 {
		t.Fatalf("lookups = %d, want 1 (cached)", st.lookups)
	}
	if err := s.RevokeKey(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, k.Secret); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("revoked key still works through the cache: %v", err)
	}
	if err := s.RevokeKey(ctx, k.ID); err != nil {
		t.Fatalf("second revocation: %v", err)
	}
	if err := s.RevokeKey(ctx, uuid.New()); !errors.Is(err, ErrKeyNotFound) {
		t.Fatalf("unknown key: %v", err)
	}

	// A revocation by another replica (straight in the store) is seen
	// once the cache entry ages out.
	k2, _ := s.CreateKey(ctx, o.ID, "other", nil)
	if _, err := s.Authenticate(ctx, k2.Secret); err != nil {
		t.Fatal(err)
	}
	_, _ = st.RevokeKey(ctx, k2.ID, clk.t)
	if _, err := s.Authenticate(ctx, k2.Secret); err != nil {
		t.Fatalf("within the cache TTL the cached result stands: %v", err)
	}
	clk.t = clk.t.Add(5 * time.Second)
	if _, err := s.Authenticate(ctx, k2.Secret); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("after the cache TTL: %v", err)
	}
}

func TestUnknownKeyIsLookedUpOnce(t *testing.T) {
	st := newMemStore()
	clk := &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	s := NewService(st, Options{Tiers: []string{"free"}, Now: clk.now, CacheTTL: 5 * time.Second, MissingTTL: time.Minute})
	ctx := context.Background()
	unknown, err := GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if _, err := s.Authenticate(ctx, unknown); !errors.Is(err, ErrInvalidKey) {
			t.Fatalf("unknown key: %v", err)
		}
	}
	if st.lookups != 1 {
		t.Fatalf("100 attempts with one unknown key made %d lookups, want 1", st.lookups)
	}
	clk.t = clk.t.Add(time.Minute)
	_, _ = s.Authenticate(ctx, unknown)
	if st.lookups != 2 {
		t.Fatalf("after the missing TTL: %d lookups, want 2", st.lookups)
	}

	// A key whose hash was remembered as unknown (someone guessed it
	// before it existed) works as soon as this process creates it.
	seed := bytes.Repeat([]byte{7}, 64)
	guessed, err := GenerateKey(bytes.NewReader(seed))
	if err != nil {
		t.Fatal(err)
	}
	s.rand = bytes.NewReader(seed)
	_, _ = s.Authenticate(ctx, guessed)
	o, _ := s.CreateOrganization(ctx, "Acme", "free")
	k, err := s.CreateKey(ctx, o.ID, "ci", nil)
	if err != nil || k.Secret != guessed {
		t.Fatalf("created %q (%v), want the guessed key", k.Secret, err)
	}
	if _, err := s.Authenticate(ctx, k.Secret); err != nil {
		t.Fatalf("key created after a miss: %v", err)
	}
}

func TestGrantCreditsValidates(t *testing.T) {
	s, st, _ := newService(t)
	ctx := context.Background()
	o, _ := s.CreateOrganization(ctx, "Acme", "free")

	f := fieldsOf(t, must2(s.GrantCredits(ctx, o.ID, 0, "gift", "")))
	for _, name := range []string{"credits", "kind", "reason"} {
		if f[name] == "" {
			t.Errorf("field %s not reported: %v", name, f)
		}
	}
	if f := fieldsOf(t, must2(s.GrantCredits(ctx, o.ID, MaxGrantCredits+1, Purchased, "x"))); f["credits"] == "" {
		t.Error("over the maximum accepted")
	}
	if _, err := s.GrantCredits(ctx, uuid.New(), 10, Purchased, "x"); !errors.Is(err, ErrOrganizationNotFound) {
		t.Fatalf("unknown org: %v", err)
	}
	g, err := s.GrantCredits(ctx, o.ID, MaxGrantCredits, Subscription, " monthly ")
	if err != nil {
		t.Fatal(err)
	}
	if g.ID == uuid.Nil || g.Reason != "monthly" || len(st.grants) != 1 {
		t.Fatalf("grant = %+v", g)
	}
}

// When a key's cache entry expires under load, the requests in flight for
// it share one database lookup instead of each making its own.
func TestConcurrentMissesShareOneLookup(t *testing.T) {
	s, st, _ := newService(t)
	ctx := context.Background()
	o, _ := s.CreateOrganization(ctx, "Acme", "pro")
	k, _ := s.CreateKey(ctx, o.ID, "ci", nil)
	st.gate, st.entered = make(chan struct{}), make(chan struct{}, 64)

	const callers = 32
	errs := make(chan error, callers)
	for range callers {
		go func() {
			_, err := s.Authenticate(ctx, k.Secret)
			errs <- err
		}()
	}
	<-st.entered // one lookup is in the store; give the others time to pile up
	time.Sleep(50 * time.Millisecond)
	close(st.gate)
	for range callers {
		if err := <-errs; err != nil {
			t.Fatalf("Authenticate: %v", err)
		}
	}
	if st.lookups != 1 {
		t.Fatalf("%d concurrent misses made %d lookups, want 1", callers, st.lookups)
	}
}

// TestCancelledCallerStopsWaitingForSharedLookup: a caller that gives up
// returns at once instead of waiting for the shared query, which goes on
// and serves the callers after it.
func TestCancelledCallerStopsWaitingForSharedLookup(t *testing.T) {
	s, st, _ := newService(t)
	o, _ := s.CreateOrganization(context.Background(), "Acme", "pro")
	k, _ := s.CreateKey(context.Background(), o.ID, "ci", nil)
	st.gate, st.entered = make(chan struct{}), make(chan struct{}, 64)

	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 1)
	go func() {
		_, err := s.Authenticate(ctx, k.Secret)
		errs <- err
	}()
	<-st.entered // the lookup is in the store, held at the gate
	cancel()
	select {
	case err := <-errs:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled caller got %v, want context.Canceled", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("a cancelled caller still waits for the shared lookup")
	}
	close(st.gate)
	if _, err := s.Authenticate(context.Background(), k.Secret); err != nil {
		t.Fatalf("Authenticate after the lookup finished: %v", err)
	}
	if st.lookups != 1 {
		t.Fatalf("%d lookups, want 1: the detached query should have filled the cache", st.lookups)
	}
}

func TestKeyCacheStaysBounded(t *testing.T) {
	c := newKeyCache(time.Minute, 100, time.Minute, 50)
	now := time.Now()
	var known KeyHash
	known[2] = 1
	c.put(known, Identity{Organization: Organization{Name: "kept"}}, true, now)
	for i := range 1000 {
		var h KeyHash
		h[0], h[1] = byte(i), byte(i>>8)
		c.put(h, Identity{}, false, now)
	}
	if n := c.missing.len(); n > 50 {
		t.Fatalf("cache holds %d unknown keys, bound is 50", n)
	}
	// A flood of unknown keys never evicts a found one.
	if id, found, cached := c.get(known, now); !cached || !found || id.Organization.Name != "kept" {
		t.Fatalf("found key evicted by unknown ones: %v %v", found, cached)
	}
}
