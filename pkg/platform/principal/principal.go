// Package principal carries the authenticated caller from the gateway to
// the services in one signed header. The gateway signs it with a shared
// secret after checking the API key; services accept a request only when
// the signature is valid and unexpired, so a service port reached directly
// cannot act as any organization.
package principal

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/pkg/platform/telemetry"
)

// Header is the request header holding the signed principal.
const Header = "X-Hookline-Principal"

// Principal is who a request acts for.
type Principal struct {
	OrgID     string    `json:"org"`
	KeyID     string    `json:"key"`
	Tier      string    `json:"tier"`
	RequestID string    `json:"rid"`
	Expires   time.Time `json:"exp"`

	// IdempotencyKey is the client's Idempotency-Key on a POST, checked by
	// the gateway; services derive reservation ids from it (pkg/contracts/credits).
	IdempotencyKey string `json:"idem,omitempty"`

	// Admin marks the gateway's admin API (the operator, with the admin
	// token) forwarding to a service; OrgID is then OperatorOrg.
	Admin bool `json:"adm,omitempty"`
}

// OperatorOrg is the organization of an Admin principal: no customer's.
const OperatorOrg = "00000000-0000-0000-0000-000000000000"

// ErrInvalid covers every way a header can fail; callers answer 401 alike.
var ErrInvalid = errors.New("principal: invalid or expired")

// Sign encodes p as `payload.signature`, both base64url.
func Sign(secret []byte, p Principal) (string, error) {
	payload, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding.EncodeToString(payload)
	return enc + "." + base64.RawURLEncoding.EncodeToString(mac(secret, enc)), nil
}

// Verify checks the signature and expiry of a header value.
func Verify(secret []byte, value string, now time.Time) (Principal, error) {
	enc, sig, ok := strings.Cut(value, ".")
	if !ok || len(value) > 4096 {
		return Principal{}, ErrInvalid
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, mac(secret, enc)) {
		return Principal{}, ErrInvalid
	}
	payload, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return Principal{}, ErrInvalid
	}
	var p Principal
	if err := json.Unmarshal(payload, &p); err != nil || p.OrgID == "" || !now.Before(p.Expires) {
		return Principal{}, ErrInvalid
	}
	return p, nil
}

func mac(secret []byte, msg string) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

type ctxKey struct{}

// With stores p in ctx.
func With(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, ctxKey{}, p)
}

// From returns the principal of a request that passed Require.
func From(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(ctxKey{}).(Principal)
	return p, ok
}

// Org is the organization of a request that passed Require ("" for one
// that did not).
func Org(r *http.Request) string {
	p, _ := From(r.Context())
	return p.OrgID
}

// Require is the services' middleware: no valid principal, no entry.
func Require(secret []byte) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p, err := Verify(secret, r.Header.Get(Header), time.Now())
			if err != nil {
				httpx.WriteError(w, r, nil, apierr.New(apierr.Unauthorized, "missing or invalid credentials"))
				return
			}
			ctx := With(r.Context(), p)
			telemetry.SetOrg(ctx, p.OrgID)
			if p.RequestID != "" {
				ctx = httpx.WithRequestID(ctx, p.RequestID)
			}
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}
