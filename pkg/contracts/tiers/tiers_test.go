package tiers_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"hookline.dev/pkg/contracts/tiers"
)

const gold = `{"tiers":[{"name":"gold","monthlyCredits":42,"billingCycle":"yearly",
	"rateLimit":{"perSecond":2.5,"burst":7},"quotas":{"paidOpsPerDay":3,"concurrentRenders":1}},
	{"name":"tin","monthlyCredits":0,"billingCycle":"monthly","rateLimit":{"perSecond":1,"burst":1}}]}`

func TestSources(t *testing.T) {
	def, err := tiers.Source{}.Load()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(def.Names(), ","); got != "free,creator,pro,agency" {
		t.Fatalf("default tiers: %s", got)
	}

	fromEnv, err := tiers.Source{JSON: gold}.Load()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tiers.json")
	if err := os.WriteFile(path, []byte(gold), 0o600); err != nil {
		t.Fatal(err)
	}
	fromFile, err := tiers.Source{File: path}.Load()
	if err != nil {
		t.Fatal(err)
	}
	want := tiers.Tier{Name: "gold", MonthlyCredits: 42, BillingCycle: "yearly",
		RateLimit: tiers.RateLimit{PerSecond: 2.5, Burst: 7}, Quotas: tiers.Quotas{PaidOpsPerDay: 3, ConcurrentRenders: 1}}
	for name, tab := range map[string]*tiers.Table{"env": fromEnv, "file": fromFile} {
		if g, ok := tab.Lookup("gold"); !ok || g != want {
			t.Errorf("%s: gold = %+v, %v", name, g, ok)
		}
		// An override replaces the table: the built-in tiers are gone.
		if _, ok := tab.Lookup("pro"); ok {
			t.Errorf("%s: pro survived an override", name)
		}
		if r := tab.Resolve("retired"); r.Name != "gold" {
			t.Errorf("%s: a retired tier resolves to %s, want the first tier", name, r.Name)
		}
	}

	again, err := tiers.Parse([]byte(tiers.Encode(fromEnv.All()...)))
	if err != nil || !slices.Equal(again.All(), fromEnv.All()) {
		t.Errorf("Encode does not round-trip: %v %+v", err, again)
	}

	if _, err := (tiers.Source{JSON: gold, File: path}).Load(); err == nil {
		t.Error("both sources were accepted")
	}
	if _, err := (tiers.Source{File: filepath.Join(t.TempDir(), "missing.json")}).Load(); err == nil {
		t.Error("a missing file was accepted")
	}
}

func TestParseRefusesBadTables(t *testing.T) {
	tier := func(fields string) string { return `{"tiers":[{` + fields + `}]}` }
	ok := `"name":"pro","monthlyCredits":1,"billingCycle":"monthly","rateLimit":{"perSecond":1,"burst":1}`
	for name, c := range map[string]struct{ json, want string }{
		"not json":          {`free,pro`, "not a tier table"},
		"empty":             {`{"tiers":[]}`, "at least one tier"},
		"unknown field":     {tier(ok + `,"monthlyCredit":5`), "unknown field"},
		"trailing data":     {tier(ok) + `{}`, "after the JSON"},
		"bad name":          {tier(strings.Replace(ok, `"pro"`, `"Pro Tier"`, 1)), "name must be"},
		"duplicate":         {`{"tiers":[{` + ok + `},{` + ok + `}]}`, "listed twice"},
		"no credits":        {tier(strings.Replace(ok, `"monthlyCredits":1,`, ``, 1)), "monthlyCredits"},
		"negative credits":  {tier(strings.Replace(ok, `"monthlyCredits":1`, `"monthlyCredits":-1`, 1)), "monthlyCredits"},
		"bad cycle":         {tier(strings.Replace(ok, `"monthly"`, `"weekly"`, 1)), "billingCycle"},
		"no rate limit":     {tier(strings.Replace(ok, `,"rateLimit":{"perSecond":1,"burst":1}`, ``, 1)), "rateLimit is required"},
		"zero rate":         {tier(strings.Replace(ok, `"perSecond":1`, `"perSecond":0`, 1)), "perSecond"},
		"zero burst":        {tier(strings.Replace(ok, `"burst":1`, `"burst":0`, 1)), "burst"},
		"negative quota":    {tier(ok + `,"quotas":{"paidOpsPerDay":-1}`), "quotas"},
		"fractional credit": {tier(strings.Replace(ok, `"monthlyCredits":1`, `"monthlyCredits":1.5`, 1)), "not a tier table"},
	} {
		_, err := tiers.Parse([]byte(c.json))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", name, err, c.want)
		}
	}
}
