package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

type sample struct {
	Common
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
	err := Load(env(map[string]string{"PORT": "8080", "ON": "true", "HOSTS": "a, b,,c", "HOOKLINE_PRINCIPAL_SECRET": strings.Repeat("s", 32)}), &s)
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
