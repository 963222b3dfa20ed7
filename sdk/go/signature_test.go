package hookline

import (
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// The test vector of the Standard Webhooks specification (and of its
// reference libraries): this secret, id, timestamp and body sign to this
// value. A round trip through our own signer would pass with the
// delimiter, the key decoding or the base64 alphabet wrong; this does not.
const (
	vectorSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vectorID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vectorTimestamp = 1614265330
	vectorBody      = `{"test": 2432232314}`
	vectorSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func vectorHeaders(sig string) http.Header {
	h := http.Header{}
	h.Set("webhook-id", vectorID)
	h.Set("webhook-timestamp", strconv.Itoa(vectorTimestamp))
	h.Set("webhook-signature", sig)
	return h
}

func verifierAt(t *testing.T, now time.Time, secrets ...string) *WebhookVerifier {
	t.Helper()
	v, err := NewWebhookVerifier(secrets...)
	if err != nil {
		t.Fatal(err)
	}
	v.now = func() time.Time { return now }
	return v
}

func TestSignatureOfTheSpecificationVector(t *testing.T) {
	sig, err := SignWebhook(vectorSecret, vectorID, time.Unix(vectorTimestamp, 0), []byte(vectorBody))
	if err != nil || sig != vectorSignature {
		t.Fatalf("signed %q (%v), want %q", sig, err, vectorSignature)
	}
	v := verifierAt(t, time.Unix(vectorTimestamp, 0), vectorSecret)
	if err := v.Verify(vectorHeaders(vectorSignature), []byte(vectorBody)); err != nil {
		t.Fatal(err)
	}
	// The whsec_ prefix is optional.
	v = verifierAt(t, time.Unix(vectorTimestamp, 0), vectorSecret[len("whsec_"):])
	if err := v.Verify(vectorHeaders(vectorSignature), []byte(vectorBody)); err != nil {
		t.Fatal(err)
	}
}

func TestSignatureChecks(t *testing.T) {
	at := time.Unix(vectorTimestamp, 0)
	other := "whsec_" + "c2Vjb25kIHNlY3JldCBvZiB0aGUgZW5kcG9pbnQ="
	otherSig, _ := SignWebhook(other, vectorID, at, []byte(vectorBody))
	for name, tc := range map[string]struct {
		now     time.Time
		secrets []string
		sig     string
		body    string
		want    error
	}{
		"several signatures, one matches": {at, []string{vectorSecret}, "v1,bm9wZQ== " + vectorSignature, vectorBody, nil},
		"another scheme's value ignored":  {at, []string{vectorSecret}, "v1a,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", vectorBody, ErrWebhookSignature},
		"rotated secret still accepted":   {at, []string{vectorSecret, other}, otherSig, vectorBody, nil},
		"wrong secret":                    {at, []string{vectorSecret}, otherSig, vectorBody, ErrWebhookSignature},
		"body changed":                    {at, []string{vectorSecret}, vectorSignature, `{"test": 2432232315}`, ErrWebhookSignature},
		"4 min 59 s late":                 {at.Add(5*time.Minute - time.Second), []string{vectorSecret}, vectorSignature, vectorBody, nil},
		"over 5 min late":                 {at.Add(5*time.Minute + time.Second), []string{vectorSecret}, vectorSignature, vectorBody, ErrWebhookTimestamp},
		"over 5 min early":                {at.Add(-5*time.Minute - time.Second), []string{vectorSecret}, vectorSignature, vectorBody, ErrWebhookTimestamp},
		"no signature":                    {at, []string{vectorSecret}, "", vectorBody, ErrWebhookHeaders},
	} {
		t.Run(name, func(t *testing.T) {
			v := verifierAt(t, tc.now, tc.secrets...)
			if err := v.Verify(vectorHeaders(tc.sig), []byte(tc.body)); !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := NewWebhookVerifier("whsec_not base64!"); err == nil {
		t.Error("a secret that is not base64 was taken")
	}
}

func TestVerifyEventDecodesThePayload(t *testing.T) {
	body := []byte(`{"type":"clips.render.completed","timestamp":"2026-01-02T03:04:05Z","data":{"renderId":"r1","outputUrl":"http://x/r1.mp4"}}`)
	now := time.Unix(1767323045, 0)
	sig, _ := SignWebhook(vectorSecret, "msg_1", now, body)
	h := http.Header{}
	h.Set("webhook-id", "msg_1")
	h.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
	h.Set("webhook-signature", sig)
	e, err := verifierAt(t, now, vectorSecret).VerifyEvent(h, body)
	if err != nil {
		t.Fatal(err)
	}
	if e.ID != "msg_1" || e.Type != "clips.render.completed" || string(e.Data) != `{"renderId":"r1","outputUrl":"http://x/r1.mp4"}` {
		t.Errorf("%+v", e)
	}
}
