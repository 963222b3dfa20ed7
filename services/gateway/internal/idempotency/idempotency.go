// Package idempotency holds the rules of the Idempotency-Key header
// (ARCHITECTURE.md §2): a POST carrying a key runs once per organization;
// repeating it after it finished replays the stored response, repeating it
// with other parameters or while it still runs is a conflict, and keys are
// forgotten after 24 hours.
//
// A request is identified by a fingerprint of its method, path, query and
// body. The first request claims the key (an in-flight record), runs, and
// then either stores its response or, when it failed on the server side,
// releases the key so the client can retry. A claim also carries a lock
// deadline: if the gateway dies mid-request the in-flight record would
// otherwise block the key for a whole day.
package idempotency

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// Header is the request header carrying the key.
const Header = "Idempotency-Key"

// ReplayedHeader marks a replayed response.
const ReplayedHeader = "Idempotent-Replayed"

// MaxKeyLen is the longest accepted key.
const MaxKeyLen = 255

// DefaultTTL is how long a finished request is remembered.
const DefaultTTL = 24 * time.Hour

// Errors returned by ValidateKey and Guard.
var (
	// ErrInvalidKey: the header value is empty, too long or not printable
	// ASCII.
	ErrInvalidKey = errors.New("idempotency: invalid Idempotency-Key")
	// ErrInFlight: a request with the same key has not finished yet.
	ErrInFlight = errors.New("idempotency: a request with this key is still in progress")
	// ErrMismatch: the key was used for a request with other parameters.
	ErrMismatch = errors.New("idempotency: key reused with different request parameters")
)

// ValidateKey accepts 1..255 characters of printable ASCII (space through
// tilde). Anything else would not survive logs, headers and database text
// unchanged, so the same key could compare unequal to itself.
func ValidateKey(k string) error {
	if len(k) == 0 || len(k) > MaxKeyLen {
		return ErrInvalidKey
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return ErrInvalidKey
		}
	}
	return nil
}

// Fingerprint identifies the parameters of a request.
type Fingerprint [sha256.Size]byte

// FingerprintOf hashes method, path, raw query and body. Each part is
// length-prefixed so that moving bytes between parts (a query that ends
// where a body begins) cannot produce the same input to the hash.
func FingerprintOf(method, path, rawQuery string, body []byte) Fingerprint {
	h := sha256.New()
	var n [8]byte
	for _, part := range [][]byte{[]byte(method), []byte(path), []byte(rawQuery), body} {
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write(part)
	}
	var fp Fingerprint
	h.Sum(fp[:0])
	return fp
}

// State is the lifecycle state of a record.
type State string

// The states of a record.
const (
	InFlight State = "in_flight"
	Done     State = "done"
)

// Response is what is stored for a finished request and replayed later.
type Response struct {
	Status      int
	ContentType string
	Body        []byte
}

// Record is a stored key.
type Record struct {
	Fingerprint Fingerprint
	State       State
	Response    Response
	LockedUntil time.Time
	ExpiresAt   time.Time
}

// Claim is a new in-flight record.
type Claim struct {
	Scope       string
	Key         string
	Fingerprint Fingerprint
	CreatedAt   time.Time
	LockedUntil time.Time
	ExpiresAt   time.Time
}

// Store keeps records. Implementations must make Claim atomic across
// concurrent callers and gateway replicas.
type Store interface {
	// Claim inserts c unless a live record holds (c.Scope, c.Key). A record
	// is live while it has not expired and, if still in flight, while its
	// lock has not run out; a dead record is replaced. It returns
	// claimed=true when c was stored, else the live record. It returns
	// only infrastructure errors.
	Claim(ctx context.Context, c Claim) (claimed bool, existing Record, err error)
	// Complete stores resp for the in-flight record of (scope, key) with
	// fingerprint fp and marks it done. A record that is gone or was taken
	// over is left alone and is not an error.
	Complete(ctx context.Context, scope, key string, fp Fingerprint, resp Response) error
	// Release deletes the in-flight record of (scope, key) with
	// fingerprint fp, so the request can be retried. A missing record is
	// not an error.
	Release(ctx context.Context, scope, key string, fp Fingerprint) error
	// Purge deletes records that expired before t and returns how many.
	Purge(ctx context.Context, before time.Time) (int64, error)
}

// Guard applies the rules over a Store.
type Guard struct {
	store Store
	now   func() time.Time
	ttl   time.Duration
	lock  time.Duration
}

// NewGuard returns a Guard. ttl is how long finished requests are
// remembered (DefaultTTL when zero); lock is how long a claim blocks the
// key before it counts as abandoned. lock must exceed the longest a
// proxied request can take, or a slow request could run twice.
func NewGuard(store Store, now func() time.Time, ttl, lock time.Duration) *Guard {
	if now == nil {
		now = time.Now
	}
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	if lock <= 0 || lock > ttl {
		lock = ttl
	}
	return &Guard{store: store, now: now, ttl: ttl, lock: lock}
}

// maxClaimAttempts bounds the loop in Begin. A second attempt is needed
// only when the live record vanished between the insert and the read; a
// third would mean constant churn on one key, which is itself a conflict.
const maxClaimAttempts = 3

// Begin claims (scope, key) for a request with fingerprint fp. It returns
// (nil, nil) when the caller should run the request and then call Finish;
// a stored response to replay when the same request already finished; or
// ErrInFlight or ErrMismatch. Other errors come from the store.
func (g *Guard) Begin(ctx context.Context, scope, key string, fp Fingerprint) (*Response, error) {
	for range maxClaimAttempts {
		now := g.now().UTC()
		claimed, rec, err := g.store.Claim(ctx, Claim{
			Scope:       scope,
			Key:         key,
			Fingerprint: fp,
			CreatedAt:   now,
			LockedUntil: now.Add(g.lock),
			ExpiresAt:   now.Add(g.ttl),
		})
		if err != nil {
			return nil, fmt.Errorf("idempotency: claim: %w", err)
		}
		if claimed {
			return nil, nil
		}
		if rec.State == "" {
			continue // released between insert and read: try again
		}
		if rec.Fingerprint != fp {
			return nil, ErrMismatch
		}
		if rec.State == InFlight {
			return nil, ErrInFlight
		}
		resp := rec.Response
		return &resp, nil
	}
	return nil, ErrInFlight
}

// Storable reports whether a response is kept for replay. Server-side
// failures are not: the client should be able to retry them.
func Storable(status int) bool { return status > 0 && status < 500 }

// Finish ends a request started by Begin: a storable response is kept for
// replay, anything else releases the key. ok=false means the response was
// not captured completely (the proxy failed, or it was too large to keep)
// and also releases the key.
func (g *Guard) Finish(ctx context.Context, scope, key string, fp Fingerprint, resp Response, ok bool) error {
	if ok && Storable(resp.Status) {
		return g.store.Complete(ctx, scope, key, fp, resp)
	}
	return g.store.Release(ctx, scope, key, fp)
}

// Purge deletes expired records.
func (g *Guard) Purge(ctx context.Context) (int64, error) {
	return g.store.Purge(ctx, g.now().UTC())
}
