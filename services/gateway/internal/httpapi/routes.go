package httpapi

import (
	"net/http"
	"slices"
	"time"
)

// The services behind the gateway.
const (
	Billing    = "billing"
	Assets     = "assets"
	Thumbnails = "thumbnails"
	Clips      = "clips"
	Webhooks   = "webhooks"
)

// Services lists the upstream services.
var Services = []string{Billing, Assets, Thumbnails, Clips, Webhooks}

// Route is one row of the routing table: a path of the spec (relative to
// /api/v1, in chi syntax), its methods and the service that owns it.
type Route struct {
	Pattern string
	Methods []string
	Service string
}

const (
	get    = http.MethodGet
	post   = http.MethodPost
	patch  = http.MethodPatch
	del    = http.MethodDelete
	put    = http.MethodPut
	verify = "/auth/verify"
)

// Routes is every proxied endpoint of the API specification. The gateway
// answers /auth/verify itself. A path not listed is a 404 and a listed path
// with another method a 405, both without reaching any service, so services
// only ever see requests the contract defines.
var Routes = []Route{
	{"/account/credits", []string{get}, Billing},
	{"/account/usage", []string{get}, Billing},

	{"/uploads/presigned-url", []string{post}, Assets},
	{"/faces", []string{get, post}, Assets},
	{"/faces/upload-urls", []string{post}, Assets},
	{"/faces/{id}", []string{get, patch, del}, Assets},
	{"/styles", []string{get, post}, Assets},
	{"/styles/{id}", []string{get, patch, del}, Assets},
	{"/brands", []string{get, post}, Assets},
	{"/brands/{id}", []string{get, patch, del}, Assets},
	{"/collections", []string{get, post}, Assets},
	{"/collections/{id}", []string{get, patch, del}, Assets},
	{"/collections/{id}/thumbnails", []string{post, del}, Assets},

	{"/thumbnails", []string{get, post}, Thumbnails},
	{"/thumbnails/{id}", []string{get, del}, Thumbnails},
	{"/thumbnails/analyze", []string{post}, Thumbnails},
	{"/thumbnails/variations", []string{post}, Thumbnails},
	{"/thumbnails/edit", []string{post}, Thumbnails},
	{"/thumbnails/edit/face-swap", []string{post}, Thumbnails},
	{"/thumbnails/edit/background-remove", []string{post}, Thumbnails},
	{"/thumbnails/edit/background-replace", []string{post}, Thumbnails},
	{"/thumbnails/edit/color-enhance", []string{post}, Thumbnails},
	{"/thumbnails/edit/upscale", []string{post}, Thumbnails},
	{"/thumbnails/edit/filter", []string{post}, Thumbnails},
	{"/thumbnails/edit/combine", []string{post}, Thumbnails},
	{"/thumbnails/critique", []string{post}, Thumbnails},
	{"/thumbnails/optimize", []string{post}, Thumbnails},
	{"/thumbnails/analyze/text-overlay", []string{post}, Thumbnails},
	{"/thumbnails/extract-videosite", []string{post}, Thumbnails},
	{"/templates", []string{get}, Thumbnails},
	{"/templates/{id}/remix", []string{post}, Thumbnails},
	{"/seo/titles", []string{post}, Thumbnails},
	{"/seo/description", []string{post}, Thumbnails},

	{"/clips/projects", []string{get, post}, Clips},
	{"/clips/projects/{projectId}", []string{get}, Clips},
	{"/clips/projects/{projectId}/transcript", []string{get, patch}, Clips},
	{"/clips/projects/{projectId}/renders", []string{get, post}, Clips},
	{"/clips/renders/{renderId}", []string{get}, Clips},
	{"/clips/censor-words", []string{get, put}, Clips},

	{"/webhooks", []string{get, post}, Webhooks},
	{"/webhooks/{id}", []string{get, patch, del}, Webhooks},
	{"/webhooks/{id}/rotate-secret", []string{post}, Webhooks},
	{"/webhooks/{id}/test", []string{post}, Webhooks},
	{"/webhooks/{id}/deliveries", []string{get}, Webhooks},
	{"/webhooks/{id}/deliveries/{deliveryId}/retry", []string{post}, Webhooks},
}

// slowWrites are the assets endpoints whose writes fetch or decode images.
// Every write to thumbnails and clips is slow too: they call AI providers
// or start renders.
var slowWrites = []string{"/faces", "/faces/{id}", "/styles", "/styles/{id}", "/brands", "/brands/{id}"}

// Deadlines bound a proxied request, response body included, by kind of
// route; past one the client gets 503 unavailable and the service
// connection is released.
type Deadlines struct {
	// Read applies to GET (and HEAD): 5 s by default.
	Read time.Duration
	// Write applies to other writes: 30 s by default.
	Write time.Duration
	// Slow applies to the writes of slowWrites, thumbnails and clips:
	// 120 s by default.
	Slow time.Duration
}

func (d Deadlines) withDefaults() Deadlines {
	if d.Read <= 0 {
		d.Read = 5 * time.Second
	}
	if d.Write <= 0 {
		d.Write = 30 * time.Second
	}
	if d.Slow <= 0 {
		d.Slow = 2 * time.Minute
	}
	return d
}

// of returns the deadline of method on rt.
func (d Deadlines) of(rt Route, method string) time.Duration {
	switch {
	case method == get:
		return d.Read
	case rt.Service == Thumbnails, rt.Service == Clips, slices.Contains(slowWrites, rt.Pattern):
		return d.Slow
	}
	return d.Write
}
