package httpapi

import "net/http"

// The services behind the gateway.
const (
	Billing    = "billing"
	Assets     = "assets"
	Thumbnails = "thumbnails"
	Clips      = "clips"
)

// Services lists the upstream services.
var Services = []string{Billing, Assets, Thumbnails, Clips}

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
	{"/clips/projects/{projectId}/renders", []string{get, post}, Clips},
	{"/clips/renders/{renderId}", []string{get}, Clips},
}
