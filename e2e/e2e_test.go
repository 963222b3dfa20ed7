package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"hookline.dev/pkg/contracts/tiers"
	"hookline.dev/pkg/testkit"
)

const (
	adminToken      = "e2e-admin-token-0123456789"
	principalSecret = "e2e-principal-secret-0123456789abcdef"
)

// e2eTiers is the tier table of the stack, given to gateway and billing
// alike. It replaces the built-in table: "studio" exists only here, and the
// built-in "creator" does not. The tests poll for eventual consistency
// faster than any real tier allows.
var e2eTiers = func() string {
	fast := tiers.RateLimit{PerSecond: 1000, Burst: 1000}
	return tiers.Encode(
		tiers.Tier{Name: "pro", MonthlyCredits: 500, BillingCycle: "monthly", RateLimit: fast},
		tiers.Tier{Name: "free", MonthlyCredits: 10, BillingCycle: "monthly", RateLimit: fast},
		tiers.Tier{Name: "studio", MonthlyCredits: 77, BillingCycle: "yearly", RateLimit: fast},
		tiers.Tier{Name: "payg", MonthlyCredits: 0, BillingCycle: "monthly", RateLimit: fast},
	)
}()

// serviceReady is how long a service process of the stack may take to
// answer /readyz. Readiness is not what these tests measure: on two cores
// shared with other test processes a start took over 30 s (load average
// 24), and the test failed on it rather than on a defect.
const serviceReady = 2 * time.Minute

// services are the main packages of the stack, built once for all the
// tests (testkit.BuildAll).
var services = []string{"hookline.dev/services/gateway/cmd/gateway",
	"hookline.dev/services/billing/cmd/billing", "hookline.dev/services/assets/cmd/assets",
	"hookline.dev/services/thumbnails/cmd/thumbnails", "hookline.dev/services/clips/cmd/clips",
	"hookline.dev/services/webhooks/cmd/webhooks"}

func TestMain(m *testing.M) {
	code := m.Run()
	testkit.RemoveBuilds()
	fixtures.Range(func(_, v any) bool {
		_ = os.RemoveAll(v.(*madeOnce).dir)
		return true
	})
	os.Exit(code)
}

// fixtures are directories of files made once for all the tests that
// only read them (media that takes seconds to encode), removed by TestMain.
var fixtures sync.Map // name → *madeOnce

type madeOnce struct {
	once sync.Once
	dir  string
	done bool
}

// fixture returns the directory of the fixture name, calling fill to fill
// it on first use; fill ends t (t.Fatal) when it fails, and the tests that
// ask after that fail too.
func fixture(t *testing.T, name string, fill func(dir string)) string {
	t.Helper()
	v, _ := fixtures.LoadOrStore(name, &madeOnce{})
	f := v.(*madeOnce)
	f.once.Do(func() {
		var err error
		if f.dir, err = os.MkdirTemp("", "hookline-e2e-"+name); err != nil {
			t.Fatal(err)
		}
		fill(f.dir)
		f.done = true
	})
	if !f.done {
		t.Fatalf("fixture %s: failed in an earlier test", name)
	}
	return f.dir
}

type stack struct {
	t      *testing.T
	base   string       // gateway origin
	client *http.Client // checks every gateway response against the OpenAPI document
	ns     string       // NATS namespace of the services
	// The services' own origins, which only the gateway should reach.
	billing, assets string
	debug           string // gateway's debug address (pprof, /metrics)

	bin    string   // the built service binaries
	common []string // the environment every service gets
	// thumbnails is the thumbnails process (a test may kill it and start
	// another with thumbnailsEnv); thumbsURL its own origin.
	thumbnails    *exec.Cmd
	thumbnailsEnv []string
	thumbsURL     string
	// clipsAddr is where the gateway expects clips; a test that wants it
	// starts it there (startClips), with the settings it needs.
	clipsAddr string
	clipsEnv  []string
	clipsAPI  *exec.Cmd
	// webhooksAddr is where the gateway expects the webhooks service; a
	// test that wants it starts it there (startWebhooks).
	webhooksAddr string
	// ports are the services' HTTP ports (and the gateway's debug port,
	// "gateway-debug"), held by the test from start to end: a service
	// inherits its socket (testkit.Port), so no other process can take
	// the address, and a restarted one comes back at the same address.
	ports map[string]*testkit.Port
	// logs names each service's log file (its stdout and stderr).
	logs map[string]string
}

// startStack runs gateway, billing, assets and thumbnails as processes
// against a fresh schema each, one NATS namespace and one bucket. env is
// added to every service's environment (e.g. HOOKLINE_LOG_LEVEL=info).
func startStack(t *testing.T, env ...string) *stack {
	t.Helper()
	recordCPU(t)
	// The dependencies first: without them the test is skipped before it
	// builds six binaries.
	s3 := testkit.Bucket(t)
	ns := testkit.Namespace(t)
	bin := testkit.BuildAll(t, services...)
	ports := map[string]*testkit.Port{}
	for _, name := range []string{"gateway", "gateway-debug", "billing", "assets", "thumbnails", "clips", "webhooks"} {
		ports[name] = testkit.ReservePort(t)
	}
	gwAddr, billAddr, assetsAddr, gwDebug := ports["gateway"].Addr, ports["billing"].Addr, ports["assets"].Addr, ports["gateway-debug"].Addr
	thumbsAddr, clipsAddr, webhooksAddr := ports["thumbnails"].Addr, ports["clips"].Addr, ports["webhooks"].Addr
	common := []string{
		"HOOKLINE_DATABASE_URL=" + testkit.DatabaseURL(t),
		"HOOKLINE_NATS_URL=" + testkit.NATSURL(t),
		"HOOKLINE_NATS_NAMESPACE=" + ns,
		"HOOKLINE_PRINCIPAL_SECRET=" + principalSecret,
		"HOOKLINE_LOG_LEVEL=warn",
		"HOOKLINE_TIERS=" + e2eTiers,
	}
	common = append(common, env...)
	s3env := []string{"HOOKLINE_S3_ENDPOINT=" + s3.Endpoint, "HOOKLINE_S3_ACCESS_KEY=" + s3.AccessKey, "HOOKLINE_S3_SECRET_KEY=" + s3.SecretKey, "HOOKLINE_S3_BUCKET=" + s3.Bucket}
	st := &stack{t: t, ns: ns, bin: bin, common: append(common, s3env...), clipsAddr: clipsAddr, webhooksAddr: webhooksAddr, ports: ports, logs: map[string]string{}}
	run := func(name string, env ...string) { st.start(name, env...) }
	run("billing", "HOOKLINE_DB_SCHEMA="+testkit.Schema(t, "e2e_billing"))
	run("assets", append([]string{"HOOKLINE_DB_SCHEMA=" + testkit.Schema(t, "e2e_assets")}, s3env...)...)
	st.thumbnailsEnv = append([]string{"HOOKLINE_DB_SCHEMA=" + testkit.Schema(t, "e2e_thumbnails")}, s3env...)
	st.thumbnails = st.start("thumbnails", st.thumbnailsEnv...)
	run("gateway", "HOOKLINE_DB_SCHEMA="+testkit.Schema(t, "e2e_gateway"), "HOOKLINE_ADMIN_TOKEN="+adminToken, "HOOKLINE_BILLING_URL=http://"+billAddr,
		"HOOKLINE_ASSETS_URL=http://"+assetsAddr, "HOOKLINE_THUMBNAILS_URL=http://"+thumbsAddr, "HOOKLINE_CLIPS_URL=http://"+clipsAddr,
		"HOOKLINE_WEBHOOKS_URL=http://"+webhooksAddr)
	testkit.WaitHTTP(t, "http://"+billAddr+"/readyz", serviceReady)
	testkit.WaitHTTP(t, "http://"+assetsAddr+"/readyz", serviceReady)
	testkit.WaitHTTP(t, "http://"+thumbsAddr+"/readyz", serviceReady)
	testkit.WaitHTTP(t, "http://"+gwAddr+"/readyz", serviceReady)
	base := "http://" + gwAddr
	st.base, st.client = base, &http.Client{Transport: newContract(t, base, gwAddr)}
	st.billing, st.assets, st.debug, st.thumbsURL = "http://"+billAddr, "http://"+assetsAddr, "http://"+gwDebug, "http://"+thumbsAddr
	return st
}

// start runs one service binary on its port until the test ends, printing
// its log if the test failed; the returned process can be killed to
// simulate a crash.
func (s *stack) start(name string, env ...string) *exec.Cmd {
	ports := map[string]*testkit.Port{"HOOKLINE_HTTP_ADDR": s.ports[name]}
	if d := s.ports[name+"-debug"]; d != nil {
		ports["HOOKLINE_DEBUG_ADDR"] = d
	}
	cmd := testkit.StartProcessOn(s.t, name, filepath.Join(s.bin, name), ports, append(append([]string{}, s.common...), env...)...)
	if f, ok := cmd.Stdout.(*os.File); ok {
		s.logs[name] = f.Name()
	}
	return cmd
}

// recordCPU appends a line "<processor seconds> <wall seconds> e2e/<test>"
// to $HOOKLINE_TEST_CPU when t ends, as scripts/test-exec.sh does for a
// package: what this process and every process it waited for (the
// services, stopped by cleanups that run before this one) used while t
// ran. The tests of one e2e binary run one after another, so the
// difference is t's alone.
func recordCPU(t *testing.T) {
	file := os.Getenv("HOOKLINE_TEST_CPU")
	if file == "" {
		return
	}
	used := func() time.Duration {
		var self, children syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
		_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
		return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano())
	}
	cpu0, t0 := used(), time.Now()
	t.Cleanup(func() {
		line := fmt.Sprintf("%.1f %.0f e2e/%s\n", (used() - cpu0).Seconds(), time.Since(t0).Seconds(), strings.ReplaceAll(t.Name(), " ", "_"))
		f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600) //nolint:gosec // G304: make test's own file
		if err != nil {
			t.Log(err)
			return
		}
		_, _ = f.WriteString(line)
		_ = f.Close()
	})
}

func (s *stack) do(method, path, bearer string, body any) (int, map[string]any) {
	s.t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.base+path, r)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			s.t.Fatalf("%s %s: body %q", method, path, raw)
		}
	}
	return resp.StatusCode, m
}

// newOrg creates an organization with a key through the admin API.
func (s *stack) newOrg(tier string) (orgID, key string) {
	s.t.Helper()
	st, org := s.do("POST", "/admin/v1/organizations", adminToken, map[string]any{"name": "e2e " + tier, "tier": tier})
	if st != 201 {
		s.t.Fatalf("create org: %d %v", st, org)
	}
	orgID = org["data"].(map[string]any)["id"].(string)
	st, k := s.do("POST", "/admin/v1/organizations/"+orgID+"/keys", adminToken, map[string]any{"name": "e2e"})
	if st != 201 {
		s.t.Fatalf("create key: %d %v", st, k)
	}
	return orgID, k["data"].(map[string]any)["key"].(string)
}

func (s *stack) credits(key string) map[string]any {
	s.t.Helper()
	st, body := s.do("GET", "/api/v1/account/credits", key, nil)
	if st != 200 {
		s.t.Fatalf("credits: %d %v", st, body)
	}
	return body["data"].(map[string]any)
}

func TestCreditsThroughTheGateway(t *testing.T) {
	s := startStack(t)
	orgA, keyA := s.newOrg("pro")
	_, keyB := s.newOrg("free")

	// The organization-created event opens the account with the tier's grant.
	testkit.Eventually(t, 15*time.Second, "account opened", func() bool {
		return s.credits(keyA)["credits"].(map[string]any)["subscription"] == float64(500)
	})
	st, grant := s.do("POST", "/admin/v1/organizations/"+orgA+"/credits", adminToken, map[string]any{"credits": 25, "kind": "purchased", "reason": "e2e"})
	if st != 202 {
		t.Fatalf("grant: %d %v", st, grant)
	}
	testkit.Eventually(t, 15*time.Second, "grant applied", func() bool {
		c := s.credits(keyA)
		return c["credits"].(map[string]any)["total"] == float64(525)
	})
	c := s.credits(keyA)
	if c["tier"] != "pro" || c["billingCycle"] != "monthly" || c["canGenerate"] != true || c["credits"].(map[string]any)["purchased"] != float64(25) {
		t.Fatalf("credits of A: %v", c)
	}

	// B sees only its own account.
	testkit.Eventually(t, 15*time.Second, "B opened", func() bool {
		return s.credits(keyB)["credits"].(map[string]any)["total"] == float64(10)
	})
	if st, body := s.do("GET", "/api/v1/account/usage?limit=5", keyB, nil); st != 200 || len(body["data"].([]any)) != 0 {
		t.Fatalf("usage of B: %d %v", st, body)
	}
	// The public API never takes the admin token, and vice versa.
	if st, _ := s.do("GET", "/api/v1/account/credits", adminToken, nil); st != 401 {
		t.Fatalf("admin token on the public API: %d", st)
	}
	if st, _ := s.do("POST", "/admin/v1/organizations", keyA, map[string]any{"name": "x", "tier": "pro"}); st != 401 {
		t.Fatalf("API key on the admin API: %d", st)
	}
	// Bad pagination is refused through the whole path.
	if st, body := s.do("GET", "/api/v1/account/usage?limit=500", keyA, nil); st != 400 || body["code"] != "invalid_request" {
		t.Fatalf("limit=500: %d %v", st, body)
	}
	// Services that are not deployed answer 503 in the envelope.
	if st, body := s.do("GET", "/api/v1/clips/projects", keyA, nil); st != 503 || body["code"] != "unavailable" {
		t.Fatalf("undeployed service: %d %v", st, body)
	}
}

// The tier table is one configuration: the gateway refuses a tier it does
// not list, and billing opens an account with the table's grant and cycle.
func TestTiersFromOneTable(t *testing.T) {
	s := startStack(t)
	for _, tier := range []string{"gold", "creator", ""} {
		st, body := s.do("POST", "/admin/v1/organizations", adminToken, map[string]any{"name": "e2e", "tier": tier})
		fields, _ := body["details"].(map[string]any)["fields"].(map[string]any)
		if st != 400 || body["code"] != "invalid_request" || fields["tier"] == nil {
			t.Errorf("tier %q: %d %v", tier, st, body)
		}
	}
	_, key := s.newOrg("studio")
	testkit.Eventually(t, 15*time.Second, "studio account opened", func() bool {
		return s.credits(key)["credits"].(map[string]any)["subscription"] == float64(77)
	})
	if c := s.credits(key); c["tier"] != "studio" || c["billingCycle"] != "yearly" || c["canGenerate"] != true {
		t.Fatalf("credits of a studio organization: %v", c)
	}
}

// An administrator's adjustment is applied synchronously by billing: a
// debit that would take available credits below zero is a 400 and changes
// nothing.
func TestCreditAdjustments(t *testing.T) {
	s := startStack(t)
	org, key := s.newOrg("payg") // no subscription credits
	credits := func(path string, body map[string]any) (int, map[string]any) {
		return s.do("POST", "/admin/v1/organizations/"+path+"/credits", adminToken, body)
	}
	if st, body := credits(org, map[string]any{"credits": 10, "kind": "purchased", "reason": "top-up"}); st != 202 {
		t.Fatalf("grant: %d %v", st, body)
	}
	total := func() any { return s.credits(key)["credits"].(map[string]any)["total"] }
	testkit.Eventually(t, 15*time.Second, "grant applied", func() bool { return total() == float64(10) })

	st, body := credits(org, map[string]any{"credits": -4, "kind": "adjustment", "reason": "chargeback"})
	if d, _ := body["data"].(map[string]any); st != 200 || d["available"] != float64(6) || d["status"] != "applied" || d["kind"] != "adjustment" {
		t.Fatalf("adjust -4: %d %v", st, body)
	}
	if got := total(); got != float64(6) {
		t.Fatalf("total after -4: %v", got)
	}
	fieldError := func(name string, body map[string]any) bool {
		fields, _ := body["details"].(map[string]any)["fields"].(map[string]any)
		return body["code"] == "invalid_request" && fields[name] != nil
	}
	for _, bad := range []map[string]any{
		{"credits": -7, "kind": "adjustment", "reason": "too much"},
		{"credits": 0, "kind": "adjustment", "reason": "nothing"},
		{"credits": 2_000_000, "kind": "adjustment", "reason": "too large"},
	} {
		if st, body := credits(org, bad); st != 400 || !fieldError("credits", body) {
			t.Errorf("%v: %d %v", bad, st, body)
		}
	}
	if st, body := credits(org, map[string]any{"credits": -1, "kind": "adjustment"}); st != 400 || !fieldError("reason", body) {
		t.Errorf("no reason: %d %v", st, body)
	}
	if st, body := credits("6f1c1d9e-0000-4000-8000-000000000000", map[string]any{"credits": -1, "kind": "adjustment", "reason": "x"}); st != 404 {
		t.Errorf("unknown organization: %d %v", st, body)
	}
	if got := total(); got != float64(6) {
		t.Fatalf("refused adjustments changed the total to %v", got)
	}
}
