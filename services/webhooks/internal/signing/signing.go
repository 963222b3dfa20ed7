// Package signing signs webhook messages as the Standard Webhooks
// specification says (https://www.standardwebhooks.com): the secret is
// "whsec_" + base64 of the key; the signature of a message is
// "v1," + base64(HMAC-SHA256(key, "{id}.{timestamp}.{body}")); several
// signatures (one per valid secret, during a rotation) are sent space
// separated in one webhook-signature header, and a receiver accepts the
// message when any of them matches a secret it holds.
package signing

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Prefix starts every secret.
const Prefix = "whsec_"

// keyBytes is the length of a new secret's key: 192 bits, within the
// 24 to 64 bytes the specification recommends.
const keyBytes = 24

// Headers of a signed message.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// ErrSecret: a secret is not "whsec_" + base64 of a key.
var ErrSecret = errors.New("signing: malformed secret")

// NewSecret returns a fresh random secret.
func NewSecret() (string, error) {
	key := make([]byte, keyBytes)
	if _, err := rand.Read(key); err != nil {
		return "", fmt.Errorf("signing: %w", err)
	}
	return Prefix + base64.StdEncoding.EncodeToString(key), nil
}

// key decodes a secret's key.
func key(secret string) ([]byte, error) {
	raw, ok := strings.CutPrefix(secret, Prefix)
	if !ok {
		return nil, ErrSecret
	}
	k, err := base64.StdEncoding.DecodeString(raw)
	if err != nil || len(k) == 0 {
		return nil, ErrSecret
	}
	return k, nil
}

// Signature returns "v1,<base64 HMAC>" of the message under one secret.
func Signature(secret, id string, at time.Time, body []byte) (string, error) {
	k, err := key(secret)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, k)
	mac.Write([]byte(id + "." + strconv.FormatInt(at.Unix(), 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// Headers returns the three headers of a message signed with every one of
// secrets (name, value pairs): the receiver holding any of them accepts it.
func Headers(secrets []string, id string, at time.Time, body []byte) ([]string, error) {
	if len(secrets) == 0 {
		return nil, ErrSecret
	}
	sigs := make([]string, len(secrets))
	for i, s := range secrets {
		sig, err := Signature(s, id, at, body)
		if err != nil {
			return nil, err
		}
		sigs[i] = sig
	}
	return []string{
		HeaderID, id,
		HeaderTimestamp, strconv.FormatInt(at.Unix(), 10),
		HeaderSignature, strings.Join(sigs, " "),
	}, nil
}
