// Package config fills typed configuration structs from the environment.
//
// A field is read when it has an `env:"NAME"` tag; `default:"..."` supplies
// the value when the variable is unset or empty. Supported kinds: string,
// bool, ints, float64, time.Duration, and []string (comma separated). Nested
// structs without an env tag are walked, so services can embed shared parts;
// the embedding field's `default:"NAME=value,…"` sets or overrides defaults
// of the shared part's variables (each service its own listen address).
package config

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Validator is implemented by config structs that check themselves.
type Validator interface{ Validate() error }

// Load fills dst (a pointer to a struct) from getenv, then runs Validate when
// dst implements Validator. Every unparsable variable is reported at once.
func Load(getenv func(string) string, dst any) error {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return errors.New("config: Load needs a pointer to a struct")
	}
	var errs []error
	fill(getenv, v.Elem(), nil, &errs)
	if len(errs) > 0 {
		return fmt.Errorf("config: %w", errors.Join(errs...))
	}
	if val, ok := dst.(Validator); ok {
		if err := val.Validate(); err != nil {
			return fmt.Errorf("config: %w", err)
		}
	}
	return nil
}

var durationType = reflect.TypeFor[time.Duration]()

// fill sets v's fields; defaults are those the embedding fields declared,
// outermost first.
func fill(getenv func(string) string, v reflect.Value, defaults map[string]string, errs *[]error) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, ok := f.Tag.Lookup("env")
		if !ok {
			if f.Type.Kind() == reflect.Struct && f.Type != durationType {
				fill(getenv, v.Field(i), nestedDefaults(defaults, f.Tag.Get("default")), errs)
			}
			continue
		}
		raw := getenv(name)
		if raw == "" {
			raw = defaults[name]
		}
		if raw == "" {
			raw = f.Tag.Get("default")
		}
		if raw == "" {
			continue
		}
		if err := set(v.Field(i), raw); err != nil {
			*errs = append(*errs, fmt.Errorf("%s=%q: %w", name, raw, err))
		}
	}
}

// nestedDefaults adds the NAME=value pairs of an embedding field's default
// tag to outer, which wins: the service's word beats a shared part's.
func nestedDefaults(outer map[string]string, tag string) map[string]string {
	if tag == "" {
		return outer
	}
	m := map[string]string{}
	for pair := range strings.SplitSeq(tag, ",") {
		if k, v, ok := strings.Cut(pair, "="); ok {
			m[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	maps.Copy(m, outer)
	return m
}

func set(f reflect.Value, raw string) error {
	if f.Type() == durationType {
		d, err := time.ParseDuration(raw)
		if err != nil {
			return err
		}
		f.SetInt(int64(d))
		return nil
	}
	switch f.Kind() {
	case reflect.String:
		f.SetString(raw)
	case reflect.Bool:
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return err
		}
		f.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(raw, 10, f.Type().Bits())
		if err != nil {
			return err
		}
		f.SetInt(n)
	case reflect.Float64:
		x, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return err
		}
		f.SetFloat(x)
	case reflect.Slice:
		if f.Type().Elem().Kind() != reflect.String {
			return fmt.Errorf("unsupported slice type %s", f.Type())
		}
		var parts []string
		for p := range strings.SplitSeq(raw, ",") {
			if p = strings.TrimSpace(p); p != "" {
				parts = append(parts, p)
			}
		}
		f.Set(reflect.ValueOf(parts))
	default:
		return fmt.Errorf("unsupported type %s", f.Type())
	}
	return nil
}

// Database is where a service's Postgres is; tools that only touch the
// database (billing rebuild) load just this.
type Database struct {
	DatabaseURL string `env:"HOOKLINE_DATABASE_URL" default:"postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"`
}

// Common holds the settings every service reads.
type Common struct {
	Database
	Service
	NATSURL         string        `env:"HOOKLINE_NATS_URL" default:"nats://127.0.0.1:4222"`
	PrincipalSecret string        `env:"HOOKLINE_PRINCIPAL_SECRET"`
	ShutdownTimeout time.Duration `env:"HOOKLINE_SHUTDOWN_TIMEOUT" default:"15s"`
	LogLevel        string        `env:"HOOKLINE_LOG_LEVEL" default:"info"`
	// DebugAddr, when set, serves pprof and /metrics (keep it private).
	DebugAddr string `env:"HOOKLINE_DEBUG_ADDR"`
	// NATSUser and NATSPassword are the service's own NATS user
	// (pkg/platform/natsauth); empty connects without credentials.
	NATSUser     string `env:"HOOKLINE_NATS_USER"`
	NATSPassword string `env:"HOOKLINE_NATS_PASSWORD"`
	// Streams declares stream settings (messaging.ParseStreamConfig);
	// what it leaves unset keeps the server's value.
	Streams string `env:"HOOKLINE_STREAMS"`
}

// Validate checks the shared settings.
func (c Common) Validate() error {
	var errs []error
	if c.DatabaseURL == "" {
		errs = append(errs, errors.New("HOOKLINE_DATABASE_URL is required"))
	}
	if c.NATSURL == "" {
		errs = append(errs, errors.New("HOOKLINE_NATS_URL is required"))
	}
	if (c.NATSUser == "") != (c.NATSPassword == "") {
		errs = append(errs, errors.New("HOOKLINE_NATS_USER and HOOKLINE_NATS_PASSWORD are set together"))
	}
	if len(c.PrincipalSecret) < 32 {
		errs = append(errs, errors.New("HOOKLINE_PRINCIPAL_SECRET must be at least 32 characters"))
	}
	if c.ShutdownTimeout <= 0 {
		errs = append(errs, errors.New("HOOKLINE_SHUTDOWN_TIMEOUT must be positive"))
	}
	errs = append(errs, c.Service.Validate())
	return errors.Join(errs...)
}
