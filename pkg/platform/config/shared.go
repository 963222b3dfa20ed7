package config

import (
	"errors"
	"fmt"
	"time"
)

// Service is what every service sets under the same names: where it
// listens, its schema, its Postgres pool, its NATS namespace and its memory
// limit. Addr and Schema have no default here; each service declares its
// own on the embedding field:
//
//	config.Common `default:"HOOKLINE_HTTP_ADDR=:8081,HOOKLINE_DB_SCHEMA=billing"`
type Service struct {
	Addr          string `env:"HOOKLINE_HTTP_ADDR"`
	Schema        string `env:"HOOKLINE_DB_SCHEMA"`
	NATSNamespace string `env:"HOOKLINE_NATS_NAMESPACE"`
	Pool
	// MemoryLimit is the container's memory limit in bytes (the downward
	// API's limits.memory); the Go runtime then keeps its heap under 90 %
	// of it unless GOMEMLIMIT says otherwise. 0 means no limit.
	MemoryLimit int64 `env:"HOOKLINE_MEMORY_LIMIT"`
}

// Pool sizes a service's Postgres pool. Every replica also holds one
// session of its own for the outbox relay (LISTEN and the leader lock);
// deploy/README.md has the connection budget.
type Pool struct {
	DBMaxConns int32 `env:"HOOKLINE_DB_MAX_CONNS" default:"8"`
	// DBMaxConnIdle closes a pooled connection idle this long, so a quiet
	// service gives its connections back to the server.
	DBMaxConnIdle time.Duration `env:"HOOKLINE_DB_MAX_CONN_IDLE" default:"1m"`
}

// Validate checks the shared service settings.
func (s Service) Validate() error {
	var errs []error
	if s.Addr == "" {
		errs = append(errs, errors.New("HOOKLINE_HTTP_ADDR is required"))
	}
	if s.Schema == "" {
		errs = append(errs, errors.New("HOOKLINE_DB_SCHEMA is required"))
	}
	if s.DBMaxConns < 1 {
		errs = append(errs, errors.New("HOOKLINE_DB_MAX_CONNS must be at least 1"))
	}
	if s.DBMaxConnIdle <= 0 {
		errs = append(errs, errors.New("HOOKLINE_DB_MAX_CONN_IDLE must be positive"))
	}
	if s.MemoryLimit < 0 {
		errs = append(errs, errors.New("HOOKLINE_MEMORY_LIMIT must not be negative"))
	}
	return errors.Join(errs...)
}

// S3 is where a service keeps objects.
type S3 struct {
	S3Endpoint  string `env:"HOOKLINE_S3_ENDPOINT" default:"127.0.0.1:9000"`
	S3AccessKey string `env:"HOOKLINE_S3_ACCESS_KEY"`
	S3SecretKey string `env:"HOOKLINE_S3_SECRET_KEY"`
	S3Bucket    string `env:"HOOKLINE_S3_BUCKET" default:"hookline"`
	S3Region    string `env:"HOOKLINE_S3_REGION" default:"us-east-1"`
	// S3PublicURL is the public base of the bucket; empty means
	// http://<endpoint>/<bucket>.
	S3PublicURL string `env:"HOOKLINE_S3_PUBLIC_URL"`
	// S3PublicEndpoint is the S3 API as clients reach it, for upload URLs;
	// empty means the host of S3PublicURL when that is path-style
	// (.../<bucket>), else S3Endpoint.
	S3PublicEndpoint string `env:"HOOKLINE_S3_PUBLIC_ENDPOINT"`
}

// Validate checks the S3 settings.
func (s S3) Validate() error {
	if s.S3Endpoint == "" || s.S3Bucket == "" {
		return errors.New("HOOKLINE_S3_ENDPOINT and HOOKLINE_S3_BUCKET are required")
	}
	return nil
}

// Fetch configures the safe fetcher of user-supplied URLs.
type Fetch struct {
	// FetchAllowHosts lets the fetcher reach otherwise refused hosts
	// (tests and local fakes only); FetchDenyHosts names our own internal
	// hosts that must never be fetched for a user.
	FetchAllowHosts []string      `env:"HOOKLINE_FETCH_ALLOW_HOSTS"`
	FetchDenyHosts  []string      `env:"HOOKLINE_FETCH_DENY_HOSTS"`
	FetchTimeout    time.Duration `env:"HOOKLINE_FETCH_TIMEOUT" default:"10s"`
}

// Validate checks the fetch settings.
func (f Fetch) Validate() error {
	if f.FetchTimeout <= 0 {
		return errors.New("HOOKLINE_FETCH_TIMEOUT must be positive")
	}
	return nil
}

// Text is the text engine: local (offline, the default) or a chat model
// answering JSON (pkg/ai/chatmodel): openai (also any OpenAI-compatible
// server, such as a local LLM) or gemini.
type Text struct {
	TextProvider string        `env:"HOOKLINE_TEXT_PROVIDER" default:"local"`
	TextAPIKey   string        `env:"HOOKLINE_TEXT_API_KEY"`
	TextBaseURL  string        `env:"HOOKLINE_TEXT_BASE_URL"`
	TextModel    string        `env:"HOOKLINE_TEXT_MODEL"`
	TextTimeout  time.Duration `env:"HOOKLINE_TEXT_TIMEOUT" default:"30s"`
}

// Validate checks the provider name and timeout; the provider's own
// settings are checked when its client is built.
func (t Text) Validate() error {
	switch t.TextProvider {
	case "local", "openai", "gemini":
	default:
		return fmt.Errorf("HOOKLINE_TEXT_PROVIDER must be local, openai or gemini, not %q", t.TextProvider)
	}
	if t.TextTimeout <= 0 {
		return errors.New("HOOKLINE_TEXT_TIMEOUT must be positive")
	}
	return nil
}

// VideoSite points pkg/media/videosite at the video site (tests point it at a
// local fake) and at yt-dlp.
type VideoSite struct {
	// VideoSiteBase is the site's origin: its player API and oEmbed.
	VideoSiteBase string `env:"HOOKLINE_VIDEOSITE_BASE" default:"https://www.youtube.com"`
	// VideoSiteTimedTextBase, when set, replaces the origin of caption
	// track URLs.
	VideoSiteTimedTextBase string `env:"HOOKLINE_VIDEOSITE_TIMEDTEXT_BASE"`
	// VideoSiteImageBase is the site's image host (thumbnails).
	VideoSiteImageBase string `env:"HOOKLINE_VIDEOSITE_IMAGE_BASE" default:"https://i.ytimg.com"`
	// YTDLP is the yt-dlp binary; empty: "yt-dlp" on PATH.
	YTDLP string `env:"HOOKLINE_YTDLP"`
}
