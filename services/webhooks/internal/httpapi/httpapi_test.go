package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"hookline.dev/pkg/testkit/apptest"
	"hookline.dev/services/webhooks/internal/app"
)

// receiverURL is where the test's endpoints point: loopback, which the
// operator's allow-list (HOOKLINE_FETCH_ALLOW_HOSTS) admits in these
// tests. Nothing is sent there: the dispatcher only sends events, and the
// tests make none but a test message to a closed port.
const receiverURL = "http://127.0.0.1:9/hook"

func start(t *testing.T) *apptest.Service {
	t.Helper()
	return apptest.Start(t, apptest.Config{Name: "webhooks", Run: app.Run, Env: []string{
		"HOOKLINE_FETCH_ALLOW_HOSTS", "127.0.0.1",
		"HOOKLINE_DEBUG_ADDR", "",
	}})
}

type endpointOut struct {
	ID                  string   `json:"id"`
	URL                 string   `json:"url"`
	EventTypes          []string `json:"eventTypes"`
	Enabled             bool     `json:"enabled"`
	CreditsLowThreshold int64    `json:"creditsLowThreshold"`
	Secret              string   `json:"secret"`
}

func create(t *testing.T, s *apptest.Service, org string, body map[string]any) endpointOut {
	t.Helper()
	var e endpointOut
	s.Must(http.StatusCreated, "POST", "/webhooks", org, body).Into(t, &e)
	return e
}

// Every malformed request is a 400 naming what is wrong, and nothing is
// created.
func TestBadInputIs400(t *testing.T) {
	s := start(t)
	org := uuid.NewString()
	e := create(t, s, org, map[string]any{"url": receiverURL, "eventTypes": []string{"clips.render.completed"}})
	long := make([]byte, 501)
	for i := range long {
		long[i] = 'x'
	}
	for _, c := range []struct {
		name, method, path string
		body               any
		field              string
	}{
		{"no url", "POST", "/webhooks", map[string]any{"eventTypes": []string{"credits.low"}}, "url"},
		{"relative url", "POST", "/webhooks", map[string]any{"url": "/hook", "eventTypes": []string{"credits.low"}}, "url"},
		{"ftp url", "POST", "/webhooks", map[string]any{"url": "ftp://127.0.0.1/hook", "eventTypes": []string{"credits.low"}}, "url"},
		{"credentials in url", "POST", "/webhooks", map[string]any{"url": "http://u:p@127.0.0.1/hook", "eventTypes": []string{"credits.low"}}, "url"},
		{"private address", "POST", "/webhooks", map[string]any{"url": "http://10.0.0.7/hook", "eventTypes": []string{"credits.low"}}, "url"},
		{"metadata address", "POST", "/webhooks", map[string]any{"url": "http://169.254.169.254/latest", "eventTypes": []string{"credits.low"}}, "url"},
		{"no event types", "POST", "/webhooks", map[string]any{"url": receiverURL, "eventTypes": []string{}}, "eventTypes"},
		{"unknown event type", "POST", "/webhooks", map[string]any{"url": receiverURL, "eventTypes": []string{"clips.nope"}}, "eventTypes"},
		{"threshold 0", "POST", "/webhooks", map[string]any{"url": receiverURL, "eventTypes": []string{"credits.low"}, "creditsLowThreshold": 0}, "creditsLowThreshold"},
		{"long description", "POST", "/webhooks", map[string]any{"url": receiverURL, "eventTypes": []string{"credits.low"}, "description": string(long)}, "description"},
		{"not json", "POST", "/webhooks", "{", ""},
		{"unknown field", "POST", "/webhooks", map[string]any{"url": receiverURL, "eventTypes": []string{"credits.low"}, "secret": "whsec_x"}, ""},
		{"empty patch", "PATCH", "/webhooks/" + e.ID, map[string]any{}, "body"},
		{"patch to a private address", "PATCH", "/webhooks/" + e.ID, map[string]any{"url": "http://192.168.1.1/"}, "url"},
		{"patch threshold", "PATCH", "/webhooks/" + e.ID, map[string]any{"creditsLowThreshold": -5}, "creditsLowThreshold"},
		{"id not a uuid", "GET", "/webhooks/nope", nil, "id"},
		{"delivery id not a uuid", "POST", "/webhooks/" + e.ID + "/deliveries/nope/retry", nil, "deliveryId"},
		{"page 0", "GET", "/webhooks?page=0", nil, "page"},
		{"limit 101", "GET", "/webhooks/" + e.ID + "/deliveries?limit=101", nil, "limit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := s.Do(c.method, c.path, org, c.body)
			if r.Status != http.StatusBadRequest {
				t.Fatalf("status %d: %s", r.Status, r.Raw)
			}
			if c.field != "" && r.Field(c.field) == "" {
				t.Errorf("no message for %s: %s", c.field, r.Raw)
			}
		})
	}
	var list []endpointOut
	s.Must(http.StatusOK, "GET", "/webhooks", org, nil).Into(t, &list)
	if len(list) != 1 || list[0].ID != e.ID {
		t.Errorf("after the refusals the organization has %+v", list)
	}
}

// Another organization's endpoint and its deliveries are 404 on every
// route, indistinguishable from a missing one, and it is left unchanged.
func TestAnotherOrganizationsEndpointIs404(t *testing.T) {
	s := start(t)
	owner, other := uuid.NewString(), uuid.NewString()
	e := create(t, s, owner, map[string]any{"url": receiverURL, "eventTypes": []string{"clips.project.ready"}})
	var d struct {
		ID string `json:"id"`
	}
	s.Must(http.StatusAccepted, "POST", "/webhooks/"+e.ID+"/test", owner, nil).Into(t, &d)
	missing := uuid.NewString()
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"GET", "/webhooks/%s", nil},
		{"PATCH", "/webhooks/%s", map[string]any{"enabled": false}},
		{"DELETE", "/webhooks/%s", nil},
		{"POST", "/webhooks/%s/rotate-secret", nil},
		{"POST", "/webhooks/%s/test", nil},
		{"GET", "/webhooks/%s/deliveries", nil},
		{"POST", "/webhooks/%s/deliveries/" + d.ID + "/retry", nil},
	} {
		theirs := s.Do(c.method, fmt.Sprintf(c.path, e.ID), other, c.body)
		none := s.Do(c.method, fmt.Sprintf(c.path, missing), owner, c.body)
		if theirs.Status != http.StatusNotFound || none.Status != http.StatusNotFound || theirs.Code != none.Code || theirs.Error != none.Error {
			t.Errorf("%s %s: another organization's %d %s, a missing one's %d %s", c.method, c.path, theirs.Status, theirs.Raw, none.Status, none.Raw)
		}
	}
	if r := s.Do("POST", "/webhooks/"+e.ID+"/deliveries/"+uuid.NewString()+"/retry", owner, nil); r.Status != http.StatusNotFound {
		t.Errorf("retry of a missing delivery: %d %s", r.Status, r.Raw)
	}
	var got endpointOut
	s.Must(http.StatusOK, "GET", "/webhooks/"+e.ID, owner, nil).Into(t, &got)
	if !got.Enabled || got.URL != receiverURL || got.Secret != "" {
		t.Errorf("after the other organization's calls: %+v", got)
	}
	var list []endpointOut
	s.Must(http.StatusOK, "GET", "/webhooks", other, nil).Into(t, &list)
	if len(list) != 0 {
		t.Errorf("the other organization lists %+v", list)
	}
}

// Endpoints and deliveries are listed newest first, a page at a time,
// with the total; pages together hold every item once.
func TestPagination(t *testing.T) {
	s := start(t)
	org := uuid.NewString()
	var made []string
	for i := range 5 {
		e := create(t, s, org, map[string]any{"url": fmt.Sprintf("%s/%d", receiverURL, i), "eventTypes": []string{"credits.low"}})
		made = append(made, e.ID)
	}
	create(t, s, uuid.NewString(), map[string]any{"url": receiverURL, "eventTypes": []string{"credits.low"}})
	var seen []string
	for page := 1; page <= 3; page++ {
		r := s.Must(http.StatusOK, "GET", fmt.Sprintf("/webhooks?limit=2&page=%d", page), org, nil)
		var list []endpointOut
		r.Into(t, &list)
		if r.Page == nil || r.Page.Total != 5 || r.Page.Limit != 2 || r.Page.Page != page || r.Page.HasMore != (page < 3) {
			t.Fatalf("page %d: %s", page, r.Raw)
		}
		if want := min(2, 5-2*(page-1)); len(list) != want {
			t.Fatalf("page %d holds %d, want %d", page, len(list), want)
		}
		for _, e := range list {
			seen = append(seen, e.ID)
		}
	}
	for i, id := range seen {
		if want := made[len(made)-1-i]; id != want {
			t.Errorf("item %d is %s, want %s (newest first)", i, id, want)
		}
	}

	e := made[0]
	var tests []string
	for range 3 {
		var d struct {
			ID string `json:"id"`
		}
		s.Must(http.StatusAccepted, "POST", "/webhooks/"+e+"/test", org, nil).Into(t, &d)
		tests = append(tests, d.ID)
	}
	r := s.Must(http.StatusOK, "GET", "/webhooks/"+e+"/deliveries?limit=2&page=2", org, nil)
	var ds []struct {
		ID        string `json:"id"`
		EventType string `json:"eventType"`
	}
	r.Into(t, &ds)
	if r.Page == nil || r.Page.Total != 3 || r.Page.HasMore || len(ds) != 1 || ds[0].ID != tests[0] || ds[0].EventType != "webhooks.test" {
		t.Fatalf("second page of deliveries: %s", r.Raw)
	}
}
