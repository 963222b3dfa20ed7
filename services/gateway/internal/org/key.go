package org

import (
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"
)

// KeyPrefix starts every public API key. A fixed, recognisable prefix lets
// secret scanners find leaked keys and lets the gateway reject other bearer
// tokens (such as the admin token) before touching the database.
const KeyPrefix = "hk_live_"

// keyRandomBytes is the entropy of a key: 256 bits, twice the 128 bits
// ARCHITECTURE.md §2 requires, so a key cannot be guessed even with the
// hash table in hand.
const keyRandomBytes = 32

// keyBodyLen is the length of the base62 body: 62^43 > 2^256, so every
// 32-byte value fits in 43 digits and shorter encodings are zero-padded.
// A fixed length makes the format trivially checkable.
const keyBodyLen = 43

// KeyLen is the length of a whole key.
const KeyLen = len(KeyPrefix) + keyBodyLen

// DisplayPrefixLen is how much of a key is kept in clear for people to tell
// their keys apart ("hk_live_" and four random characters): too little to
// help an attacker, enough to match a key in a list.
const DisplayPrefixLen = 12

// ErrMalformedKey means a bearer token does not have the shape of an API
// key. Callers answer it exactly like an unknown key.
var ErrMalformedKey = errors.New("org: malformed API key")

// KeyHash is the SHA-256 of a key, the only form in which keys are stored.
// A fast hash is enough because keys carry 256 random bits: there is
// nothing to brute-force, unlike passwords.
type KeyHash [sha256.Size]byte

// HashKey hashes a key for storage and lookup.
func HashKey(key string) KeyHash { return sha256.Sum256([]byte(key)) }

// GenerateKey returns a new key read from rnd (crypto/rand.Reader in
// production; tests pass a deterministic reader).
func GenerateKey(rnd io.Reader) (string, error) {
	if rnd == nil {
		rnd = rand.Reader
	}
	b := make([]byte, keyRandomBytes)
	if _, err := io.ReadFull(rnd, b); err != nil {
		return "", fmt.Errorf("org: read random key bytes: %w", err)
	}
	body := new(big.Int).SetBytes(b).Text(62)
	return KeyPrefix + strings.Repeat("0", keyBodyLen-len(body)) + body, nil
}

// ParseKey checks that s has the shape of an API key: the prefix followed
// by exactly 43 base62 characters. It says nothing about whether the key
// exists; it only spares the database obviously wrong tokens.
func ParseKey(s string) (string, error) {
	if len(s) != KeyLen || !strings.HasPrefix(s, KeyPrefix) {
		return "", ErrMalformedKey
	}
	for i := len(KeyPrefix); i < len(s); i++ {
		if !isBase62(s[i]) {
			return "", ErrMalformedKey
		}
	}
	return s, nil
}

// DisplayPrefix is the part of a key that may be shown after creation.
func DisplayPrefix(key string) string {
	if len(key) < DisplayPrefixLen {
		return key
	}
	return key[:DisplayPrefixLen]
}

func isBase62(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
