package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

type sample struct {
	Common  `default:"HOOKLINE_HTTP_ADDR=:9000,HOOKLINE_DB_MAX_CONNS=3"`
	Name    string        `env:"NAME" default:"svc"`
	Port    int           `env:"PORT" default:"80"`
	Wait    time.Duration `env:"WAIT" default:"2s"`
	On      bool          `env:"ON"`
	Hosts   []string      `env:"HOSTS"`
	checked bool
}

func (s *sample) Validate() error {
	s.checked = true
	var errs []error
	if s.Port > 65535 {
		errs = append(errs, errors.New("PORT out of range"))
	}
	return errors.Join(append(errs, s.Common.Validate())...)
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoad(t *testing.T) {
	var s sample
	err := Load(env(map[string]string{"PORT": "8080", "ON": "true", "HOSTS": "a, b,,c", "HOOKLINE_PRINCIPAL_SECRET": strings.Repeat("s", 32), "HOOKLINE_DB_SCHEMA": "x"}), &s)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "svc" || s.Port != 8080 || s.Wait != 2*time.Second || !s.On || len(s.Hosts) != 3 || !s.checked || s.DatabaseURL == "" {
		t.Fatalf("loaded %+v", s)
	}
}

func TestLoadReportsEveryBadVariable(t *testing.T) {
	var s sample
	err := Load(env(map[string]string{"PORT": "x", "WAIT": "soon"}), &s)
	if err == nil || !strings.Contains(err.Error(), "PORT") || !strings.Contains(err.Error(), "WAIT") {
		t.Fatalf("error %v", err)
	}
	err = Load(env(map[string]string{"PORT": "70000"}), &s)
	if err == nil || !strings.Contains(err.Error(), "PORT out of range") || !strings.Contains(err.Error(), "PRINCIPAL_SECRET") {
		t.Fatalf("validation error %v", err)
	}
}

func TestNATSCredentialsComeTogether(t *testing.T) {
	secret := strings.Repeat("s", 32)
	var s sample
	err := Load(env(map[string]string{"HOOKLINE_NATS_USER": "assets", "HOOKLINE_PRINCIPAL_SECRET": secret}), &s)
	if err == nil || !strings.Contains(err.Error(), "HOOKLINE_NATS_PASSWORD") {
		t.Fatalf("user without password: %v", err)
	}
	if err := Load(env(map[string]string{"HOOKLINE_NATS_USER": "assets", "HOOKLINE_NATS_PASSWORD": "pw", "HOOKLINE_PRINCIPAL_SECRET": secret, "HOOKLINE_DB_SCHEMA": "x"}), &s); err != nil || s.NATSUser != "assets" {
		t.Fatalf("user %q, err %v", s.NATSUser, err)
	}
}

// An embedding field's default tag sets the shared part's defaults; the
// environment still wins over both.
func TestEmbeddedDefaults(t *testing.T) {
	secret := strings.Repeat("s", 32)
	var s sample
	if err := Load(env(map[string]string{"HOOKLINE_PRINCIPAL_SECRET": secret, "HOOKLINE_DB_SCHEMA": "x"}), &s); err != nil {
		t.Fatal(err)
	}
	if s.Addr != ":9000" || s.DBMaxConns != 3 || s.DBMaxConnIdle != time.Minute || s.Schema != "x" {
		t.Fatalf("addr %q, max conns %d, idle %s, schema %q", s.Addr, s.DBMaxConns, s.DBMaxConnIdle, s.Schema)
	}
	s = sample{}
	if err := Load(env(map[string]string{"HOOKLINE_PRINCIPAL_SECRET": secret, "HOOKLINE_DB_SCHEMA": "x", "HOOKLINE_HTTP_ADDR": ":1", "HOOKLINE_DB_MAX_CONNS": "5"}), &s); err != nil {
		t.Fatal(err)
	}
	if s.Addr != ":1" || s.DBMaxConns != 5 {
		t.Fatalf("environment lost to defaults: addr %q, max conns %d", s.Addr, s.DBMaxConns)
	}
	// Without a schema (no default anywhere) the service is refused.
	s = sample{}
	if err := Load(env(map[string]string{"HOOKLINE_PRINCIPAL_SECRET": secret}), &s); err == nil || !strings.Contains(err.Error(), "HOOKLINE_DB_SCHEMA") {
		t.Fatalf("err = %v, want one naming HOOKLINE_DB_SCHEMA", err)
	}
}
