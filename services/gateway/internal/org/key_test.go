package org

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
)

func TestGenerateKeyShape(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		k, err := GenerateKey(nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(k) != KeyLen || !strings.HasPrefix(k, KeyPrefix) {
			t.Fatalf("key %q: want %d characters starting with %s", k, KeyLen, KeyPrefix)
		}
		if _, err := ParseKey(k); err != nil {
			t.Fatalf("generated key %q does not parse: %v", k, err)
		}
		if seen[k] {
			t.Fatalf("duplicate key %q", k)
		}
		seen[k] = true
	}
}

func TestGenerateKeyPadsSmallValues(t *testing.T) {
	// All-zero bytes encode to "0": the body must still be 43 characters.
	k, err := GenerateKey(bytes.NewReader(make([]byte, 32)))
	if err != nil {
		t.Fatal(err)
	}
	if want := KeyPrefix + strings.Repeat("0", 43); k != want {
		t.Fatalf("got %q, want %q", k, want)
	}
	// The largest value still fits.
	k, err = GenerateKey(bytes.NewReader(bytes.Repeat([]byte{0xff}, 32)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseKey(k); err != nil {
		t.Fatalf("max key %q: %v", k, err)
	}
}

func TestGenerateKeyFailsOnShortEntropy(t *testing.T) {
	if _, err := GenerateKey(bytes.NewReader(make([]byte, 5))); err == nil {
		t.Fatal("want an error when the random source runs dry")
	}
}

func TestParseKeyRejects(t *testing.T) {
	good, _ := GenerateKey(nil)
	cases := map[string]string{
		"empty":          "",
		"prefix only":    KeyPrefix,
		"wrong prefix":   "hk_test_" + good[len(KeyPrefix):],
		"short":          good[:len(good)-1],
		"long":           good + "a",
		"bad character":  good[:len(good)-1] + "-",
		"space":          good[:20] + " " + good[21:],
		"admin-ish":      "some-admin-token-of-some-length",
		"unicode":        KeyPrefix + strings.Repeat("é", 21) + "a",
		"uppercase pref": strings.ToUpper(KeyPrefix) + good[len(KeyPrefix):],
	}
	for name, k := range cases {
		if _, err := ParseKey(k); !errors.Is(err, ErrMalformedKey) {
			t.Errorf("%s: ParseKey(%q) = %v, want ErrMalformedKey", name, k, err)
		}
	}
}

func TestHashAndPrefix(t *testing.T) {
	k, _ := GenerateKey(nil)
	if HashKey(k) != sha256.Sum256([]byte(k)) {
		t.Fatal("HashKey is not SHA-256 of the key")
	}
	p := DisplayPrefix(k)
	if len(p) != DisplayPrefixLen || !strings.HasPrefix(k, p) || !strings.HasPrefix(p, KeyPrefix) {
		t.Fatalf("DisplayPrefix(%q) = %q", k, p)
	}
}

func FuzzParseKey(f *testing.F) {
	good, _ := GenerateKey(bytes.NewReader(bytes.Repeat([]byte{7}, 32)))
	f.Add(good)
	f.Add("")
	f.Add(KeyPrefix)
	f.Add("Bearer " + good)
	f.Add(good + "\x00")
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseKey(s)
		if err != nil {
			if !errors.Is(err, ErrMalformedKey) {
				t.Fatalf("unexpected error type: %v", err)
			}
			return
		}
		// Whatever parses has exactly the documented shape.
		if k != s || len(s) != KeyLen || !strings.HasPrefix(s, KeyPrefix) {
			t.Fatalf("accepted %q", s)
		}
		for i := len(KeyPrefix); i < len(s); i++ {
			if !isBase62(s[i]) {
				t.Fatalf("accepted %q with non-base62 byte %q", s, s[i])
			}
		}
	})
}
