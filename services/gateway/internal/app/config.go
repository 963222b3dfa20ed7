package app

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"hookline.dev/pkg/config"
	"hookline.dev/services/gateway/internal/httpapi"
	"hookline.dev/services/gateway/internal/org"
	"hookline.dev/services/gateway/internal/ratelimit"
)

// Config is the gateway's configuration, read from the environment.
type Config struct {
	config.Common

	Addr          string `env:"HOOKLINE_HTTP_ADDR" default:":8080"`
	Schema        string `env:"HOOKLINE_DB_SCHEMA" default:"gateway"`
	DBMaxConns    int32  `env:"HOOKLINE_DB_MAX_CONNS" default:"32"`
	NATSNamespace string `env:"HOOKLINE_NATS_NAMESPACE"`
	AdminToken    string `env:"HOOKLINE_ADMIN_TOKEN"`

	// Upstream base URLs; an empty one means the service is not deployed
	// and its paths answer 503.
	BillingURL    string `env:"HOOKLINE_BILLING_URL"`
	AssetsURL     string `env:"HOOKLINE_ASSETS_URL"`
	ThumbnailsURL string `env:"HOOKLINE_THUMBNAILS_URL"`
	ClipsURL      string `env:"HOOKLINE_CLIPS_URL"`

	Tiers []string `env:"HOOKLINE_TIERS" default:"free,creator,pro,agency"`
	// RateLimits is "tier=rate/burst,…": rate in requests per second
	// (fractions allowed), burst in requests.
	RateLimits   string `env:"HOOKLINE_RATE_LIMITS" default:"free=5/10,creator=10/20,pro=20/40,agency=50/100"`
	MaxBodyBytes int64  `env:"HOOKLINE_MAX_BODY_BYTES" default:"1048576"`
	// UpstreamTimeout bounds the wait for a service's response headers.
	// Generation endpoints call AI providers, hence the generous default.
	UpstreamTimeout time.Duration `env:"HOOKLINE_UPSTREAM_TIMEOUT" default:"120s"`
	// KeyCacheTTL is how long an API key lookup is reused; it is the
	// longest a revocation made through another replica takes to apply.
	KeyCacheTTL time.Duration `env:"HOOKLINE_KEY_CACHE_TTL" default:"5s"`
	// IdempotencyPurgeInterval is how often expired idempotency records
	// are deleted.
	IdempotencyPurgeInterval time.Duration `env:"HOOKLINE_IDEMPOTENCY_PURGE_INTERVAL" default:"10m"`

	// Filled by Validate.
	limits    map[string]ratelimit.Limit
	upstreams map[string]*url.URL
}

// maxKeyCacheTTL is the revocation window the design promises.
const maxKeyCacheTTL = 5 * time.Second

// minAdminToken is the shortest admin token accepted.
const minAdminToken = 16

// Validate checks the configuration and derives the parsed rate limits
// and upstream URLs.
func (c *Config) Validate() error {
	var errs []error
	if err := c.Common.Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.Addr == "" {
		errs = append(errs, errors.New("HOOKLINE_HTTP_ADDR is required"))
	}
	if c.Schema == "" {
		errs = append(errs, errors.New("HOOKLINE_DB_SCHEMA is required"))
	}
	if c.DBMaxConns < 1 {
		errs = append(errs, errors.New("HOOKLINE_DB_MAX_CONNS must be at least 1"))
	}
	switch {
	case len(c.AdminToken) < minAdminToken:
		errs = append(errs, fmt.Errorf("HOOKLINE_ADMIN_TOKEN must be at least %d characters", minAdminToken))
	case strings.HasPrefix(c.AdminToken, org.KeyPrefix):
		// The two credentials must never be confusable.
		errs = append(errs, fmt.Errorf("HOOKLINE_ADMIN_TOKEN must not start with %q, the prefix of API keys", org.KeyPrefix))
	}
	if len(c.Tiers) == 0 {
		errs = append(errs, errors.New("HOOKLINE_TIERS must name at least one tier"))
	}
	limits, err := ParseRateLimits(c.RateLimits)
	if err != nil {
		errs = append(errs, fmt.Errorf("HOOKLINE_RATE_LIMITS: %w", err))
	} else {
		for _, t := range c.Tiers {
			if _, ok := limits[t]; !ok {
				errs = append(errs, fmt.Errorf("HOOKLINE_RATE_LIMITS has no limit for tier %q", t))
			}
		}
		for t := range limits {
			if !slices.Contains(c.Tiers, t) {
				errs = append(errs, fmt.Errorf("HOOKLINE_RATE_LIMITS names tier %q, which HOOKLINE_TIERS does not list", t))
			}
		}
	}
	c.limits = limits
	if c.MaxBodyBytes < 1 {
		errs = append(errs, errors.New("HOOKLINE_MAX_BODY_BYTES must be positive"))
	}
	if c.UpstreamTimeout <= 0 {
		errs = append(errs, errors.New("HOOKLINE_UPSTREAM_TIMEOUT must be positive"))
	}
	if c.KeyCacheTTL < 0 || c.KeyCacheTTL > maxKeyCacheTTL {
		errs = append(errs, fmt.Errorf("HOOKLINE_KEY_CACHE_TTL must be between 0 and %s", maxKeyCacheTTL))
	}
	if c.IdempotencyPurgeInterval <= 0 {
		errs = append(errs, errors.New("HOOKLINE_IDEMPOTENCY_PURGE_INTERVAL must be positive"))
	}
	c.upstreams = map[string]*url.URL{}
	for svc, raw := range map[string]string{
		httpapi.Billing:    c.BillingURL,
		httpapi.Assets:     c.AssetsURL,
		httpapi.Thumbnails: c.ThumbnailsURL,
		httpapi.Clips:      c.ClipsURL,
	} {
		if raw == "" {
			continue
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("HOOKLINE_%s_URL=%q must be an http(s) URL with a host", strings.ToUpper(svc), raw))
			continue
		}
		c.upstreams[svc] = u
	}
	return errors.Join(errs...)
}

// ParseRateLimits parses "tier=rate/burst,…".
func ParseRateLimits(s string) (map[string]ratelimit.Limit, error) {
	out := map[string]ratelimit.Limit{}
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		tier, spec, ok := strings.Cut(part, "=")
		rate, burst, ok2 := strings.Cut(spec, "/")
		tier = strings.TrimSpace(tier)
		if !ok || !ok2 || tier == "" {
			return nil, fmt.Errorf("%q is not tier=rate/burst", part)
		}
		r, err := strconv.ParseFloat(strings.TrimSpace(rate), 64)
		if err != nil {
			return nil, fmt.Errorf("%q: rate: %w", part, err)
		}
		b, err := strconv.Atoi(strings.TrimSpace(burst))
		if err != nil {
			return nil, fmt.Errorf("%q: burst: %w", part, err)
		}
		lim := ratelimit.Limit{Rate: r, Burst: b}
		if err := lim.Validate(); err != nil {
			return nil, fmt.Errorf("%q: %w", part, err)
		}
		if _, dup := out[tier]; dup {
			return nil, fmt.Errorf("tier %q is listed twice", tier)
		}
		out[tier] = lim
	}
	if len(out) == 0 {
		return nil, errors.New("no limits given")
	}
	return out, nil
}
