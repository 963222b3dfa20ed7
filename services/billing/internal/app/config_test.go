package app

import (
	"strings"
	"testing"

	"hookline.dev/pkg/platform/config"
)

// Bad settings stop billing at start-up with a message naming them.
func TestConfigRefusesBadSettings(t *testing.T) {
	base := map[string]string{
		"HOOKLINE_DATABASE_URL":     "postgres://postgres@127.0.0.1:5432/postgres",
		"HOOKLINE_NATS_URL":         "nats://127.0.0.1:4222",
		"HOOKLINE_PRINCIPAL_SECRET": "config-test-secret-0123456789abcdef",
	}
	load := func(over map[string]string) error {
		var cfg Config
		return config.Load(func(k string) string {
			if v, ok := over[k]; ok {
				return v
			}
			return base[k]
		}, &cfg)
	}
	if err := load(nil); err != nil {
		t.Fatalf("defaults refused: %v", err)
	}
	for _, tc := range []struct{ key, value, want string }{
		{"HOOKLINE_LEDGER_WRITERS", "0", "HOOKLINE_LEDGER_WRITERS"},
		{"HOOKLINE_LEDGER_WRITERS", "65", "HOOKLINE_LEDGER_WRITERS"},
		{"HOOKLINE_LEDGER_WRITERS", "many", "HOOKLINE_LEDGER_WRITERS"},
		{"HOOKLINE_TIERS", `{"tiers":[]}`, "HOOKLINE_TIERS"},
		{"HOOKLINE_TIERS", `{"pro":{"monthlyCredits":100}}`, "unknown field"},
		{"HOOKLINE_TIERS_FILE", "/nonexistent/tiers.json", "HOOKLINE_TIERS_FILE"},
		{"HOOKLINE_RESERVATION_TTL", "0s", "must be positive"},
	} {
		err := load(map[string]string{tc.key: tc.value})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%q: err = %v, want one mentioning %q", tc.key, tc.value, err, tc.want)
		}
	}
}
