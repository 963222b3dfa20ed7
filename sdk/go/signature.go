package hookline

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Webhook deliveries are signed per the Standard Webhooks specification
// (https://www.standardwebhooks.com): the headers webhook-id,
// webhook-timestamp (Unix seconds) and webhook-signature, a space-separated
// list of "v1,<base64 HMAC-SHA256>" of "{id}.{timestamp}.{body}", keyed by
// the base64-decoded part of the endpoint's secret after "whsec_".

// Errors of WebhookVerifier.Verify.
var (
	ErrWebhookHeaders   = errors.New("hookline: webhook: missing webhook-id, webhook-timestamp or webhook-signature")
	ErrWebhookTimestamp = errors.New("hookline: webhook: timestamp outside the tolerance")
	ErrWebhookSignature = errors.New("hookline: webhook: no signature matches")
)

// WebhookTolerance is how far a delivery's timestamp may be from now,
// either way, before it is refused as a replay.
const WebhookTolerance = 5 * time.Minute

// WebhookVerifier checks that a delivery was signed with one of an
// endpoint's secrets (two while a rotated-out secret is still valid).
type WebhookVerifier struct {
	keys      [][]byte
	tolerance time.Duration
	now       func() time.Time
}

// NewWebhookVerifier accepts secrets as the API shows them (whsec_ and
// base64); the prefix is optional.
func NewWebhookVerifier(secrets ...string) (*WebhookVerifier, error) {
	if len(secrets) == 0 {
		return nil, errors.New("hookline: webhook: no secret")
	}
	v := &WebhookVerifier{tolerance: WebhookTolerance, now: time.Now}
	for _, s := range secrets {
		key, err := webhookKey(s)
		if err != nil {
			return nil, err
		}
		v.keys = append(v.keys, key)
	}
	return v, nil
}

func webhookKey(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(strings.TrimSpace(secret), "whsec_"))
	if err != nil || len(key) == 0 {
		return nil, errors.New("hookline: webhook: a secret is whsec_ followed by base64")
	}
	return key, nil
}

// Verify checks the signature headers of a delivery against its raw body
// (the bytes as received: a re-encoded body does not match).
func (v *WebhookVerifier) Verify(h http.Header, body []byte) error {
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return ErrWebhookHeaders
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: %q is not Unix seconds", ErrWebhookTimestamp, ts)
	}
	if d := v.now().Sub(time.Unix(sec, 0)); d > v.tolerance || d < -v.tolerance {
		return fmt.Errorf("%w: %s off", ErrWebhookTimestamp, d.Round(time.Second))
	}
	for _, key := range v.keys {
		want := []byte(sign(key, id, ts, body))
		for _, sig := range strings.Fields(sigs) {
			version, value, ok := strings.Cut(sig, ",")
			if ok && version == "v1" && hmac.Equal([]byte(value), want) {
				return nil
			}
		}
	}
	return ErrWebhookSignature
}

// WebhookEvent is a verified delivery's payload.
type WebhookEvent struct {
	// ID is the webhook-id: the same on every attempt of a delivery, so a
	// receiver that saw it already can skip it.
	ID        string          `json:"-"`
	Type      string          `json:"type"`
	Timestamp time.Time       `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

// VerifyEvent verifies a delivery and decodes its payload.
func (v *WebhookVerifier) VerifyEvent(h http.Header, body []byte) (*WebhookEvent, error) {
	if err := v.Verify(h, body); err != nil {
		return nil, err
	}
	var e WebhookEvent
	if err := json.Unmarshal(body, &e); err != nil {
		return nil, fmt.Errorf("hookline: webhook: payload: %w", err)
	}
	e.ID = h.Get("webhook-id")
	return &e, nil
}

// SignWebhook returns the webhook-signature value of a delivery: what a
// test of a receiver sends.
func SignWebhook(secret, id string, timestamp time.Time, body []byte) (string, error) {
	key, err := webhookKey(secret)
	if err != nil {
		return "", err
	}
	return "v1," + sign(key, id, strconv.FormatInt(timestamp.Unix(), 10), body), nil
}

func sign(key []byte, id, ts string, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}
