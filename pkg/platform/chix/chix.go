// Package chix builds, on chi, the router every service puts behind the
// gateway: unknown paths and methods answered in the error envelope,
// liveness and readiness probes open to the orchestrator, HEAD answered by
// every GET route, and every other route behind the signed principal.
package chix

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/pkg/platform/telemetry"
)

// ServiceRouter returns the service's handler; routes registers the
// service's own endpoints, all of which require a valid principal.
// parts, when given, are reported by /readyz (httpx.ReadyzWith).
func ServiceRouter(a httpx.Adapter, ready func(context.Context) error, secret []byte, routes func(r chi.Router), parts ...httpx.Component) http.Handler {
	r := chi.NewRouter()
	r.Use(middleware.GetHead)
	// The service's telemetry middleware wraps this router; it learns the
	// matched route template through RecordRoute.
	r.Use(telemetry.RecordRoute)
	r.NotFound(httpx.NotFound)
	r.MethodNotAllowed(httpx.MethodNotAllowed)
	r.Get("/healthz", a.Wrap(httpx.Healthz))
	r.Get("/readyz", a.Wrap(httpx.ReadyzWith(ready, parts...)))
	r.Group(func(r chi.Router) {
		r.Use(principal.Require(secret))
		routes(r)
	})
	return httpx.RequestID(r)
}
