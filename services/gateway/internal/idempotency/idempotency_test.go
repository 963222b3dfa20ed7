package idempotency

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestValidateKey(t *testing.T) {
	good := []string{"a", "order-123", strings.Repeat("x", MaxKeyLen), " spaced key ", "~!@#$%^&*()"}
	for _, k := range good {
		if err := ValidateKey(k); err != nil {
			t.Errorf("ValidateKey(%q) = %v", k, err)
		}
	}
	bad := []string{"", strings.Repeat("x", MaxKeyLen+1), "tab\there", "new\nline", "del\x7f", "ünï", "\x00"}
	for _, k := range bad {
		if err := ValidateKey(k); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("ValidateKey(%q) = %v, want ErrInvalidKey", k, err)
		}
	}
}

func FuzzValidateKey(f *testing.F) {
	for _, s := range []string{"", "a", "key-1", "\x00", "é", strings.Repeat("z", 256)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := ValidateKey(s)
		printable := len(s) >= 1 && len(s) <= MaxKeyLen
		for i := 0; i < len(s); i++ {
			if s[i] < ' ' || s[i] > '~' {
				printable = false
			}
		}
		if printable != (err == nil) {
			t.Fatalf("ValidateKey(%q) = %v, printable ASCII 1..255 = %v", s, err, printable)
		}
	})
}

func TestFingerprint(t *testing.T) {
	base := FingerprintOf("POST", "/api/v1/thumbnails", "a=1", []byte(`{"prompt":"x"}`))
	if base != FingerprintOf("POST", "/api/v1/thumbnails", "a=1", []byte(`{"prompt":"x"}`)) {
		t.Fatal("fingerprint is not deterministic")
	}
	for name, fp := range map[string]Fingerprint{
		"method":   FingerprintOf("PUT", "/api/v1/thumbnails", "a=1", []byte(`{"prompt":"x"}`)),
		"path":     FingerprintOf("POST", "/api/v1/thumbnails/edit", "a=1", []byte(`{"prompt":"x"}`)),
		"query":    FingerprintOf("POST", "/api/v1/thumbnails", "a=2", []byte(`{"prompt":"x"}`)),
		"body":     FingerprintOf("POST", "/api/v1/thumbnails", "a=1", []byte(`{"prompt":"y"}`)),
		"boundary": FingerprintOf("POST", "/api/v1/thumbnails", "a=1{", []byte(`"prompt":"x"}`)),
	} {
		if fp == base {
			t.Errorf("changing the %s kept the fingerprint", name)
		}
	}
}

// memStore is a Store in memory, faithful to the claim rules.
type memStore struct {
	mu   sync.Mutex
	recs map[string]Record
}

func newMemStore() *memStore { return &memStore{recs: map[string]Record{}} }

func (m *memStore) Claim(_ context.Context, c Claim) (bool, Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := c.Scope + "\x00" + c.Key
	if r, ok := m.recs[k]; ok && r.ExpiresAt.After(c.CreatedAt) && (r.State == Done || r.LockedUntil.After(c.CreatedAt)) {
		return false, r, nil
	}
	m.recs[k] = Record{Fingerprint: c.Fingerprint, State: InFlight, LockedUntil: c.LockedUntil, ExpiresAt: c.ExpiresAt}
	return true, Record{}, nil
}

func (m *memStore) Complete(_ context.Context, scope, key string, fp Fingerprint, resp Response) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := scope + "\x00" + key
	if r, ok := m.recs[k]; ok && r.State == InFlight && r.Fingerprint == fp {
		r.State, r.Response = Done, resp
		m.recs[k] = r
	}
	return nil
}

func (m *memStore) Release(_ context.Context, scope, key string, fp Fingerprint) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := scope + "\x00" + key
	if r, ok := m.recs[k]; ok && r.State == InFlight && r.Fingerprint == fp {
		delete(m.recs, k)
	}
	return nil
}

func (m *memStore) Purge(_ context.Context, before time.Time) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int64
	for k, r := range m.recs {
		if r.ExpiresAt.Before(before) {
			delete(m.recs, k)
			n++
		}
	}
	return n, nil
}

func TestGuardLifecycle(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	g := NewGuard(newMemStore(), clock, 24*time.Hour, time.Minute)
	ctx := context.Background()
	fp := FingerprintOf("POST", "/x", "", []byte("a"))
	other := FingerprintOf("POST", "/x", "", []byte("b"))

	if r, err := g.Begin(ctx, "org", "k", fp); err != nil || r != nil {
		t.Fatalf("first Begin = %v, %v; want to run", r, err)
	}
	if _, err := g.Begin(ctx, "org", "k", fp); !errors.Is(err, ErrInFlight) {
		t.Fatalf("repeat in flight: %v", err)
	}
	if _, err := g.Begin(ctx, "org", "k", other); !errors.Is(err, ErrMismatch) {
		t.Fatalf("other parameters in flight: %v", err)
	}
	if r, err := g.Begin(ctx, "other-org", "k", fp); err != nil || r != nil {
		t.Fatalf("same key in another scope: %v, %v; want to run", r, err)
	}
	want := Response{Status: 201, ContentType: "application/json", Body: []byte(`{"data":1}`)}
	if err := g.Finish(ctx, "org", "k", fp, want, true); err != nil {
		t.Fatal(err)
	}
	r, err := g.Begin(ctx, "org", "k", fp)
	if err != nil || r == nil || r.Status != 201 || string(r.Body) != `{"data":1}` {
		t.Fatalf("replay = %+v, %v", r, err)
	}
	if _, err := g.Begin(ctx, "org", "k", other); !errors.Is(err, ErrMismatch) {
		t.Fatalf("other parameters after completion: %v", err)
	}

	// After the TTL the key is free again.
	now = now.Add(24 * time.Hour)
	if r, err := g.Begin(ctx, "org", "k", other); err != nil || r != nil {
		t.Fatalf("after expiry: %v, %v; want to run", r, err)
	}
}

func TestGuardReleasesServerErrors(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	g := NewGuard(newMemStore(), func() time.Time { return now }, 0, time.Minute)
	ctx := context.Background()
	fp := FingerprintOf("POST", "/x", "", nil)
	for _, tc := range []struct {
		resp Response
		ok   bool
	}{
		{Response{Status: 503}, true},
		{Response{Status: 500}, true},
		{Response{Status: 200}, false}, // not captured completely
		{Response{}, false},            // proxy gave no answer
	} {
		if _, err := g.Begin(ctx, "org", "k", fp); err != nil {
			t.Fatalf("%+v: Begin: %v", tc, err)
		}
		if err := g.Finish(ctx, "org", "k", fp, tc.resp, tc.ok); err != nil {
			t.Fatal(err)
		}
		if r, err := g.Begin(ctx, "org", "k", fp); err != nil || r != nil {
			t.Fatalf("%+v was kept: %v %v", tc, r, err)
		}
		_ = g.Finish(ctx, "org", "k", fp, Response{}, false)
	}
	// 4xx answers are the request's outcome and are kept.
	_, _ = g.Begin(ctx, "org", "k4", fp)
	_ = g.Finish(ctx, "org", "k4", fp, Response{Status: 402, Body: []byte("{}")}, true)
	if r, _ := g.Begin(ctx, "org", "k4", fp); r == nil || r.Status != 402 {
		t.Fatalf("402 not replayed: %+v", r)
	}
}

func TestGuardTakesOverAbandonedClaims(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	g := NewGuard(newMemStore(), func() time.Time { return now }, 0, time.Minute)
	ctx := context.Background()
	fp := FingerprintOf("POST", "/x", "", nil)
	_, _ = g.Begin(ctx, "org", "k", fp) // the process dies here
	now = now.Add(time.Minute)
	if r, err := g.Begin(ctx, "org", "k", fp); err != nil || r != nil {
		t.Fatalf("abandoned claim not taken over: %v, %v", r, err)
	}
}

func TestGuardPurge(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := newMemStore()
	g := NewGuard(st, func() time.Time { return now }, time.Hour, time.Minute)
	ctx := context.Background()
	fp := FingerprintOf("POST", "/x", "", nil)
	_, _ = g.Begin(ctx, "org", "a", fp)
	_ = g.Finish(ctx, "org", "a", fp, Response{Status: 200}, true)
	now = now.Add(2 * time.Hour)
	if n, err := g.Purge(ctx); err != nil || n != 1 {
		t.Fatalf("Purge = %d, %v; want 1", n, err)
	}
}
