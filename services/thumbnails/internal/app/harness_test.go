package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	_ "image/jpeg" // the pictures are JPEG
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"hookline.dev/pkg/contracts/credits"
	"hookline.dev/pkg/contracts/events"
	"hookline.dev/pkg/contracts/tiers"
	"hookline.dev/pkg/platform/messaging"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/pkg/testkit"
	"hookline.dev/pkg/testkit/apptest"
	"hookline.dev/services/thumbnails/internal/app"
	"hookline.dev/services/thumbnails/internal/generate/template"
	"hookline.dev/services/thumbnails/internal/service"
	"hookline.dev/services/thumbnails/migrations"
)

// Tiers of the billing the tests run: an account of tier pro opens with
// 30 credits, one of tier starter with 5, one of tier broke with none.
const (
	proCredits     = 30
	starterCredits = 5
)

// harness runs a real thumbnails service in-process and the real billing
// service as a process beside it, on a fresh schema each, one NATS
// namespace and one bucket, and talks to them the way the gateway does.
type harness struct {
	*apptest.Service
	billingURL string
}

// newHarness starts billing and the service on a schema whose template
// previews are already recorded (previewsRecorded); overrides are name,
// value pairs of the service's environment variables.
func newHarness(t testing.TB, overrides ...string) *harness {
	t.Helper()
	return startHarness(t, previewsRecorded(t, false), overrides...)
}

// startHarness starts billing and the service on schema.
func startHarness(t testing.TB, schema string, overrides ...string) *harness {
	t.Helper()
	ns := testkit.Namespace(t)
	h := &harness{billingURL: startBilling(t, ns)}
	h.Service = apptest.Start(t, apptest.Config{Name: "thumbnails", Run: app.Run, Bucket: true,
		Env: append([]string{"HOOKLINE_NATS_NAMESPACE", ns, "HOOKLINE_DB_SCHEMA", schema}, overrides...)})
	return h
}

// previewsRecorded is a fresh schema with the service's tables on which
// the preview of every template is recorded as rendered, so the
// service's preview renderer finds nothing to draw: it would draw all 30
// seeded templates at every start, beside the test and under -race. With
// leaveOne, the first template of each aspect has none: the renderer
// draws those two (TestTemplatesAndRemix; compose's
// TestSeededTemplatesRender renders every template's preview). The
// objects the recorded keys name are not in the tests' buckets; no test
// reads them.
func previewsRecorded(t testing.TB, leaveOne bool) string {
	t.Helper()
	// The migrations the service applies at start-up (platform.Open), in
	// its order: it finds them applied.
	pool := apptest.Database(t, "thumbnails", messaging.Migrations, credits.Migrations, migrations.FS)
	ctx := context.Background()
	ids, err := pgkit.All(ctx, pool, "templates", func(r pgx.Row) (string, error) {
		var id string
		return id, r.Scan(&id)
	}, `SELECT id FROM templates EXCEPT
		(SELECT DISTINCT ON (aspect_ratio) id FROM templates WHERE $1::boolean ORDER BY aspect_ratio, position, id)`, leaveOne)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if _, err := pool.Exec(ctx, `UPDATE templates SET preview_key = $2, preview_version = $3 WHERE id = $1`,
			id, service.PreviewKey(id, template.PreviewVersion), template.PreviewVersion); err != nil {
			t.Fatal(err)
		}
	}
	var schema string
	if err := pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	return schema
}

// startBilling runs the billing service's binary on its own schema in the
// namespace ns until the test ends, and returns its URL.
func startBilling(t testing.TB, ns string) string {
	t.Helper()
	bin := testkit.Build(t, "hookline.dev/services/billing/cmd/billing")
	port := testkit.ReservePort(t)
	env := testkit.ServiceEnv(t, testkit.Schema(t, "billing"), ns, port.Addr, apptest.Secret,
		"HOOKLINE_DEBUG_ADDR", "", // not the test's environment's
		"HOOKLINE_TIERS", tiers.Encode(
			tiers.Tier{Name: "pro", MonthlyCredits: proCredits, BillingCycle: "monthly", RateLimit: tiers.RateLimit{PerSecond: 100, Burst: 100}},
			tiers.Tier{Name: "starter", MonthlyCredits: starterCredits, BillingCycle: "monthly", RateLimit: tiers.RateLimit{PerSecond: 100, Burst: 100}},
			tiers.Tier{Name: "broke", MonthlyCredits: 0, BillingCycle: "monthly", RateLimit: tiers.RateLimit{PerSecond: 100, Burst: 100}}))
	testkit.StartProcessOn(t, "billing", bin, map[string]*testkit.Port{"HOOKLINE_HTTP_ADDR": port}, testkit.EnvList(env)...)
	testkit.WaitHTTP(t, port.URL+"/readyz", 60*time.Second)
	return port.URL
}

// openAccount creates an organization the way the gateway announces it and
// waits until billing has opened its account.
func (h *harness) openAccount(tier string) string {
	h.T.Helper()
	org := uuid.NewString()
	h.Emit(events.GatewayOrganizationCreated, "gateway", org, events.OrganizationCreated{OrganizationID: org, Name: "org " + org[:8], Tier: tier})
	// Billing answers an account it has not opened yet with 200 and no
	// credits, so the wait is for the tier's opening grant (an account of
	// tier broke opens with none: there is nothing to wait for).
	want := map[string]int64{"pro": proCredits, "starter": starterCredits}[tier]
	testkit.Eventually(h.T, 20*time.Second, "account opened", func() bool {
		st, b := h.balanceOf(org)
		return st == 200 && b == want
	})
	return org
}

// balance is the organization's available credits as billing reports
// them, once every settlement the service wrote has reached billing.
func (h *harness) balance(org string) int64 {
	h.T.Helper()
	apptest.WaitOutboxDrained(h.T, h.Pool)
	var last int64 = -1
	// Billing applies settlements asynchronously: wait until two reads
	// agree after the outbox drained.
	testkit.Eventually(h.T, 20*time.Second, "balance settled", func() bool {
		h.settledInBilling(org)
		_, b := h.balanceOf(org)
		same := b == last
		last = b
		return same
	})
	return last
}

// settledInBilling waits until billing has no pending reservation of org.
func (h *harness) settledInBilling(org string) {
	h.T.Helper()
	testkit.Eventually(h.T, 20*time.Second, "reservations settled in billing", func() bool {
		for _, u := range h.usage(org) {
			if u.Status == "pending" || u.Status == "reserved" {
				return false
			}
		}
		return true
	})
}

func (h *harness) balanceOf(org string) (int, int64) {
	h.T.Helper()
	r := h.billing("/account/credits", org)
	if r.Status != 200 {
		return r.Status, 0
	}
	var b struct {
		Credits struct {
			Total int64 `json:"total"`
		} `json:"credits"`
	}
	r.Into(h.T, &b)
	return r.Status, b.Credits.Total
}

type usageItem struct {
	ID         string `json:"id"`
	Operation  string `json:"operation"`
	Credits    int64  `json:"credits"`
	Status     string `json:"status"`
	ResourceID string `json:"resourceId"`
}

// usage is billing's usage history of org.
func (h *harness) usage(org string) []usageItem {
	h.T.Helper()
	var items []usageItem
	h.billing("/account/usage?limit=100", org).Into(h.T, &items)
	return items
}

// billing GETs path of billing's API as org.
func (h *harness) billing(path, org string) testkit.Response {
	h.T.Helper()
	return apptest.Call(h.T, h.Client, "GET", h.billingURL+path, org, "", nil)
}

// reservations counts the service's journal rows of org.
func (h *harness) reservations(org string) int {
	h.T.Helper()
	var n int
	if err := h.Pool.QueryRow(context.Background(), `SELECT count(*) FROM credit_reservations WHERE org_id = $1`, org).Scan(&n); err != nil {
		h.T.Fatal(err)
	}
	return n
}

// thumb is a thumbnail as the API returns it; pointer fields tell null
// from absent-as-empty.
type thumb struct {
	ID           string    `json:"id"`
	ImageURL     string    `json:"imageUrl"`
	Prompt       string    `json:"prompt"`
	Kind         string    `json:"kind"`
	ParentID     *string   `json:"parentId"`
	AspectRatio  string    `json:"aspectRatio"`
	Width        int       `json:"width"`
	Height       int       `json:"height"`
	StyleID      *string   `json:"styleId"`
	BrandID      *string   `json:"brandId"`
	FaceIDs      []string  `json:"faceIds"`
	CollectionID *string   `json:"collectionId"`
	TemplateID   *string   `json:"templateId"`
	Engine       string    `json:"engine"`
	CreatedAt    time.Time `json:"createdAt"`
}

// itemFields are the keys every thumbnail item carries.
var itemFields = []string{"id", "imageUrl", "prompt", "kind", "parentId", "aspectRatio", "width", "height",
	"styleId", "brandId", "faceIds", "collectionId", "templateId", "engine", "operation", "params", "applied", "createdAt"}

// checkFields fails unless raw (one item) has exactly the item fields.
func checkFields(t testing.TB, raw json.RawMessage) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if len(m) != len(itemFields) {
		t.Errorf("item has %d fields, want %d: %s", len(m), len(itemFields), raw)
	}
	for _, f := range itemFields {
		if _, ok := m[f]; !ok {
			t.Errorf("item lacks %q: %s", f, raw)
		}
	}
}

// generate makes a thumbnail and returns it.
func (h *harness) generate(org string, body map[string]any) thumb {
	h.T.Helper()
	r := h.Must(201, "POST", "/thumbnails", org, body)
	checkFields(h.T, r.Data)
	var th thumb
	r.Into(h.T, &th)
	return th
}

// checkPicture fails unless u is a w×h JPEG, and returns it.
func (h *harness) checkPicture(u string, w, hgt int) []byte {
	h.T.Helper()
	st, b := h.Fetch(u)
	if st != 200 {
		h.T.Fatalf("GET %s: %d %s", u, st, b)
	}
	img, format, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		h.T.Fatalf("decode %s: %v", u, err)
	}
	if format != "jpeg" || img.Bounds().Dx() != w || img.Bounds().Dy() != hgt {
		h.T.Fatalf("%s is a %dx%d %s, want a %dx%d jpeg", u, img.Bounds().Dx(), img.Bounds().Dy(), format, w, hgt)
	}
	return b
}

// assetEvent publishes an assets event and waits until the read model has
// handled it.
func (h *harness) assetEvent(typ, org string, data any) events.Envelope {
	h.T.Helper()
	return h.Deliver(typ, "assets", "thumbnails-assets", org, data)
}
