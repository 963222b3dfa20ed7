package app

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"hookline.dev/pkg/contracts/tiers"
	"hookline.dev/pkg/platform/config"
	"hookline.dev/services/gateway/internal/httpapi"
	"hookline.dev/services/gateway/internal/org"
	"hookline.dev/services/gateway/internal/ratelimit"
)

// Config is the gateway's configuration, read from the environment.
type Config struct {
	config.Common `default:"HOOKLINE_HTTP_ADDR=:8080,HOOKLINE_DB_SCHEMA=gateway"`

	AdminToken string `env:"HOOKLINE_ADMIN_TOKEN"`

	// Upstream base URLs; an empty one means the service is not deployed
	// and its paths answer 503.
	BillingURL    string `env:"HOOKLINE_BILLING_URL"`
	AssetsURL     string `env:"HOOKLINE_ASSETS_URL"`
	ThumbnailsURL string `env:"HOOKLINE_THUMBNAILS_URL"`
	ClipsURL      string `env:"HOOKLINE_CLIPS_URL"`
	WebhooksURL   string `env:"HOOKLINE_WEBHOOKS_URL"`

	// Tiers is the tier table shared with billing (pkg/contracts/tiers); the gateway
	// reads the tier names and each tier's rate limit.
	Tiers        tiers.Source
	MaxBodyBytes int64 `env:"HOOKLINE_MAX_BODY_BYTES" default:"1048576"`
	// RateLimitShared keeps each key's bucket in Postgres for all
	// replicas; false limits per replica (N replicas admit N times the
	// limit).
	RateLimitShared bool `env:"HOOKLINE_RATE_LIMIT_SHARED" default:"true"`
	// RateLimitLease sizes the tokens a replica takes from a shared bucket
	// at once (rate × lease): the trade between round trips to Postgres
	// and how closely replicas together keep to the limit.
	RateLimitLease time.Duration `env:"HOOKLINE_RATE_LIMIT_LEASE" default:"100ms"`
	// AuthFailureLimit is "rate/burst" of failed authentications per client
	// address (per replica): past it the address gets 429 without a key
	// lookup.
	AuthFailureLimit string `env:"HOOKLINE_AUTH_FAILURE_LIMIT" default:"2/20"`
	// TrustedProxies lists the CIDRs of load balancers whose
	// X-Forwarded-For is believed; from any other peer the socket address
	// is the client.
	TrustedProxies []string `env:"HOOKLINE_TRUSTED_PROXIES"`

	// Upstream deadlines by kind of route: reads, other writes, and the
	// slow ones (AI generation, image decoding, renders; see
	// httpapi.Route). Past it the client gets 503 unavailable.
	UpstreamReadTimeout  time.Duration `env:"HOOKLINE_UPSTREAM_READ_TIMEOUT" default:"5s"`
	UpstreamWriteTimeout time.Duration `env:"HOOKLINE_UPSTREAM_WRITE_TIMEOUT" default:"30s"`
	UpstreamTimeout      time.Duration `env:"HOOKLINE_UPSTREAM_TIMEOUT" default:"120s"`
	// BodyReadTimeout bounds the reading of a request body, which the
	// gateway completes before it opens an upstream request: a slow client
	// holds a gateway goroutine, never a service connection.
	BodyReadTimeout time.Duration `env:"HOOKLINE_BODY_READ_TIMEOUT" default:"10s"`
	// KeyCacheTTL is how long an API key lookup is reused; it is the
	// longest a revocation made through another replica takes to apply.
	KeyCacheTTL time.Duration `env:"HOOKLINE_KEY_CACHE_TTL" default:"5s"`
	// KeyMissingTTL is how long an unknown key is remembered as unknown.
	KeyMissingTTL time.Duration `env:"HOOKLINE_KEY_MISSING_TTL" default:"1m"`
	// IdempotencyPurgeInterval is how often expired idempotency records
	// are deleted.
	IdempotencyPurgeInterval time.Duration `env:"HOOKLINE_IDEMPOTENCY_PURGE_INTERVAL" default:"10m"`

	// Filled by Validate.
	tiers          *tiers.Table
	limits         map[string]ratelimit.Limit
	authFailures   ratelimit.Limit
	trustedProxies []netip.Prefix
	upstreams      map[string]*url.URL
}

// maxKeyCacheTTL is the revocation window the design promises.
const maxKeyCacheTTL = 5 * time.Second

// maxKeyMissingTTL bounds how long a key guessed before it was created
// stays refused on replicas other than the one that created it.
const maxKeyMissingTTL = 10 * time.Minute

// minAdminToken is the shortest admin token accepted.
const minAdminToken = 16

// Validate checks the configuration and derives the parsed rate limits
// and upstream URLs.
func (c *Config) Validate() error {
	var errs []error
	if err := c.Common.Validate(); err != nil {
		errs = append(errs, err)
	}
	switch {
	case len(c.AdminToken) < minAdminToken:
		errs = append(errs, fmt.Errorf("HOOKLINE_ADMIN_TOKEN must be at least %d characters", minAdminToken))
	case strings.HasPrefix(c.AdminToken, org.KeyPrefix):
		// The two credentials must never be confusable.
		errs = append(errs, fmt.Errorf("HOOKLINE_ADMIN_TOKEN must not start with %q, the prefix of API keys", org.KeyPrefix))
	}
	if t, err := c.Tiers.Load(); err != nil {
		errs = append(errs, err)
	} else {
		c.tiers, c.limits = t, map[string]ratelimit.Limit{}
		for _, x := range t.All() {
			// pkg/contracts/tiers has validated the bucket shape already.
			c.limits[x.Name] = ratelimit.Limit{Rate: x.RateLimit.PerSecond, Burst: x.RateLimit.Burst}
		}
	}
	if c.MaxBodyBytes < 1 {
		errs = append(errs, errors.New("HOOKLINE_MAX_BODY_BYTES must be positive"))
	}
	for name, d := range map[string]time.Duration{
		"HOOKLINE_UPSTREAM_READ_TIMEOUT":  c.UpstreamReadTimeout,
		"HOOKLINE_UPSTREAM_WRITE_TIMEOUT": c.UpstreamWriteTimeout,
		"HOOKLINE_UPSTREAM_TIMEOUT":       c.UpstreamTimeout,
		"HOOKLINE_BODY_READ_TIMEOUT":      c.BodyReadTimeout,
		"HOOKLINE_RATE_LIMIT_LEASE":       c.RateLimitLease,
	} {
		if d <= 0 {
			errs = append(errs, fmt.Errorf("%s must be positive", name))
		}
	}
	if c.KeyCacheTTL < 0 || c.KeyCacheTTL > maxKeyCacheTTL {
		errs = append(errs, fmt.Errorf("HOOKLINE_KEY_CACHE_TTL must be between 0 and %s", maxKeyCacheTTL))
	}
	if c.KeyMissingTTL < 0 || c.KeyMissingTTL > maxKeyMissingTTL {
		errs = append(errs, fmt.Errorf("HOOKLINE_KEY_MISSING_TTL must be between 0 and %s", maxKeyMissingTTL))
	}
	if lim, err := parseLimit(c.AuthFailureLimit); err != nil {
		errs = append(errs, fmt.Errorf("HOOKLINE_AUTH_FAILURE_LIMIT: %w", err))
	} else {
		c.authFailures = lim
	}
	c.trustedProxies = nil
	for _, raw := range c.TrustedProxies {
		p, err := netip.ParsePrefix(strings.TrimSpace(raw))
		if err != nil {
			errs = append(errs, fmt.Errorf("HOOKLINE_TRUSTED_PROXIES: %q is not a CIDR", raw))
			continue
		}
		c.trustedProxies = append(c.trustedProxies, p.Masked())
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
		httpapi.Webhooks:   c.WebhooksURL,
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

// parseLimit parses "rate/burst".
func parseLimit(s string) (ratelimit.Limit, error) {
	rate, burst, ok := strings.Cut(s, "/")
	if !ok {
		return ratelimit.Limit{}, fmt.Errorf("%q is not rate/burst", s)
	}
	r, err := strconv.ParseFloat(strings.TrimSpace(rate), 64)
	if err != nil {
		return ratelimit.Limit{}, fmt.Errorf("rate: %w", err)
	}
	b, err := strconv.Atoi(strings.TrimSpace(burst))
	if err != nil {
		return ratelimit.Limit{}, fmt.Errorf("burst: %w", err)
	}
	lim := ratelimit.Limit{Rate: r, Burst: b}
	return lim, lim.Validate()
}
