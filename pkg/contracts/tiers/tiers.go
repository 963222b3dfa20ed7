// Package tiers is the one tier table of Hookline: what an organization's
// tier grants (a subscription each billing cycle), how fast its keys may
// call (the gateway's rate limit) and which quotas billing enforces. The
// gateway and billing read it from the same place with the same schema, so
// a tier the gateway accepts is always one billing knows.
//
// The built-in table (Default) applies unless HOOKLINE_TIERS holds a JSON
// table or HOOKLINE_TIERS_FILE names a file that holds one; an override
// replaces the whole table. Load validates it, so a bad table stops a
// service at start-up rather than misbilling later.
package tiers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
)

// Tier is one row of the table.
type Tier struct {
	Name string
	// MonthlyCredits is the subscription grant an account opens with.
	MonthlyCredits int64
	// BillingCycle is reported by GET /account/credits (monthly, yearly).
	BillingCycle string
	// RateLimit applies per API key, per gateway replica.
	RateLimit RateLimit
	Quotas    Quotas
}

// RateLimit is a token bucket: PerSecond tokens refill it, Burst is its size.
type RateLimit struct {
	PerSecond float64
	Burst     int
}

// Quotas are enforced by billing when it reserves credits. Zero is
// unlimited.
type Quotas struct {
	PaidOpsPerDay     int
	ConcurrentRenders int
	// SourceMinutes bounds the length of a clip project's source video;
	// the clips service enforces it when it prepares the source.
	SourceMinutes int
}

// Table is a validated tier table. The first tier is the fallback for an
// organization whose tier was removed from the table after it was created.
type Table struct {
	tiers []Tier
}

// Billing cycles a tier may have.
var cycles = []string{"monthly", "yearly"}

// Source is where a service reads the table; embed it in the service's
// configuration (pkg/platform/config fills it) and call Load from Validate.
type Source struct {
	// JSON is a whole table (the schema is below).
	JSON string `env:"HOOKLINE_TIERS"`
	// File is the path of a file holding the same JSON (a mounted ConfigMap).
	File string `env:"HOOKLINE_TIERS_FILE"`
}

// Default is the built-in table.
func Default() *Table {
	return &Table{tiers: []Tier{
		{Name: "free", MonthlyCredits: 10, BillingCycle: "monthly", RateLimit: RateLimit{PerSecond: 5, Burst: 10}, Quotas: Quotas{PaidOpsPerDay: 50, ConcurrentRenders: 1, SourceMinutes: 30}},
		{Name: "creator", MonthlyCredits: 100, BillingCycle: "monthly", RateLimit: RateLimit{PerSecond: 10, Burst: 20}, Quotas: Quotas{PaidOpsPerDay: 500, ConcurrentRenders: 2, SourceMinutes: 120}},
		{Name: "pro", MonthlyCredits: 500, BillingCycle: "monthly", RateLimit: RateLimit{PerSecond: 20, Burst: 40}, Quotas: Quotas{PaidOpsPerDay: 5000, ConcurrentRenders: 5, SourceMinutes: 240}},
		{Name: "agency", MonthlyCredits: 2000, BillingCycle: "monthly", RateLimit: RateLimit{PerSecond: 50, Burst: 100}},
	}}
}

// Load returns the configured table: HOOKLINE_TIERS, the file named by
// HOOKLINE_TIERS_FILE, or Default when neither is set.
func (s Source) Load() (*Table, error) {
	raw, path := strings.TrimSpace(s.JSON), strings.TrimSpace(s.File)
	switch {
	case raw != "" && path != "":
		return nil, errors.New("set HOOKLINE_TIERS or HOOKLINE_TIERS_FILE, not both")
	case path != "":
		b, err := os.ReadFile(path) // #nosec G304 -- the operator's own configuration file
		if err != nil {
			return nil, fmt.Errorf("HOOKLINE_TIERS_FILE: %w", err)
		}
		t, err := Parse(b)
		if err != nil {
			return nil, fmt.Errorf("HOOKLINE_TIERS_FILE=%s: %w", path, err)
		}
		return t, nil
	case raw != "":
		t, err := Parse([]byte(raw))
		if err != nil {
			return nil, fmt.Errorf("HOOKLINE_TIERS: %w", err)
		}
		return t, nil
	}
	return Default(), nil
}

// The JSON schema of a table:
//
//	{"tiers": [{"name": "pro", "monthlyCredits": 500, "billingCycle": "monthly",
//	  "rateLimit": {"perSecond": 20, "burst": 40},
//	  "quotas": {"paidOpsPerDay": 5000, "concurrentRenders": 5, "sourceMinutes": 240}}, ...]}
//
// Every field but quotas is required; unknown fields are refused so a typo
// cannot silently drop a limit.
type fileTable struct {
	Tiers []fileTier `json:"tiers"`
}

type fileTier struct {
	Name           string         `json:"name"`
	MonthlyCredits *int64         `json:"monthlyCredits"`
	BillingCycle   string         `json:"billingCycle"`
	RateLimit      *fileRateLimit `json:"rateLimit"`
	Quotas         fileQuotas     `json:"quotas"`
}

type fileRateLimit struct {
	PerSecond float64 `json:"perSecond"`
	Burst     int     `json:"burst"`
}

type fileQuotas struct {
	PaidOpsPerDay     int `json:"paidOpsPerDay"`
	ConcurrentRenders int `json:"concurrentRenders"`
	SourceMinutes     int `json:"sourceMinutes"`
}

// Encode writes tiers in the JSON schema Parse reads (for HOOKLINE_TIERS).
func Encode(ts ...Tier) string {
	f := fileTable{Tiers: make([]fileTier, len(ts))}
	for i, t := range ts {
		f.Tiers[i] = fileTier{Name: t.Name, MonthlyCredits: &t.MonthlyCredits, BillingCycle: t.BillingCycle,
			RateLimit: &fileRateLimit{PerSecond: t.RateLimit.PerSecond, Burst: t.RateLimit.Burst},
			Quotas:    fileQuotas(t.Quotas)}
	}
	b, _ := json.Marshal(f) // plain structs of numbers and strings always encode
	return string(b)
}

var namePattern = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// Parse reads and validates a JSON table. Every problem is reported.
func Parse(b []byte) (*Table, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f fileTable
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("not a tier table: %w", err)
	}
	if dec.More() {
		return nil, errors.New("not a tier table: data after the JSON object")
	}
	if len(f.Tiers) == 0 {
		return nil, errors.New("tiers must list at least one tier")
	}
	var errs []error
	t := &Table{}
	for i, ft := range f.Tiers {
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("tiers[%d] (%s): %s", i, ft.Name, fmt.Sprintf(format, args...)))
		}
		if !namePattern.MatchString(ft.Name) {
			bad("name must be 1 to 32 lower-case letters, digits, - or _, starting with a letter")
		} else if _, dup := t.Lookup(ft.Name); dup {
			bad("name is listed twice")
		}
		if ft.MonthlyCredits == nil || *ft.MonthlyCredits < 0 {
			bad("monthlyCredits must be a non-negative integer")
		}
		if !slices.Contains(cycles, ft.BillingCycle) {
			bad("billingCycle must be one of %s", strings.Join(cycles, ", "))
		}
		if ft.RateLimit == nil {
			bad("rateLimit is required")
		} else {
			if !(ft.RateLimit.PerSecond > 0) || math.IsInf(ft.RateLimit.PerSecond, 0) {
				bad("rateLimit.perSecond must be a positive number")
			}
			if ft.RateLimit.Burst < 1 {
				bad("rateLimit.burst must be at least 1")
			}
		}
		if ft.Quotas.PaidOpsPerDay < 0 || ft.Quotas.ConcurrentRenders < 0 || ft.Quotas.SourceMinutes < 0 {
			bad("quotas must not be negative (0 is unlimited)")
		}
		if ft.MonthlyCredits == nil || ft.RateLimit == nil {
			continue
		}
		t.tiers = append(t.tiers, Tier{
			Name: ft.Name, MonthlyCredits: *ft.MonthlyCredits, BillingCycle: ft.BillingCycle,
			RateLimit: RateLimit{PerSecond: ft.RateLimit.PerSecond, Burst: ft.RateLimit.Burst},
			Quotas:    Quotas(ft.Quotas),
		})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return t, nil
}

// Lookup returns the tier called name.
func (t *Table) Lookup(name string) (Tier, bool) {
	i := slices.IndexFunc(t.tiers, func(x Tier) bool { return x.Name == name })
	if i < 0 {
		return Tier{}, false
	}
	return t.tiers[i], true
}

// Resolve returns the tier called name, or the first tier of the table for
// a name it no longer lists: an organization keeps working, with the
// fallback's limits, when an operator retires its tier.
func (t *Table) Resolve(name string) Tier {
	if x, ok := t.Lookup(name); ok {
		return x
	}
	return t.tiers[0]
}

// Names lists the tiers in table order.
func (t *Table) Names() []string {
	names := make([]string, len(t.tiers))
	for i, x := range t.tiers {
		names[i] = x.Name
	}
	return names
}

// All returns the tiers in table order.
func (t *Table) All() []Tier { return slices.Clone(t.tiers) }
