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

// PathID parses the uuid path parameter name: anything else is a 400
// naming it. It returns the uuid in its canonical form.
func PathID(r *http.Request, name string) (string, error) {
	id, err := httpx.ParseUUID(name, chi.URLParam(r, name))
	if err != nil {
		return "", err
	}
	return id.String(), nil
}

// GetOne answers a GET of one record of the caller's organization, named
// by the uuid path parameter param: 200 with dto of what get returns, 400
// for a malformed id. get's errors (its not-found) go to the adapter's
// error mapper.
func GetOne[T, D any](param string, get func(ctx context.Context, orgID, id string) (T, error), dto func(T) D) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := PathID(r, param)
		if err != nil {
			return err
		}
		v, err := get(r.Context(), principal.Org(r), id)
		if err != nil {
			return err
		}
		return httpx.OK(w, dto(v))
	}
}

// DeleteOne answers a DELETE of one record of the caller's organization,
// named by the uuid path parameter param: 204 once del has removed it, 400
// for a malformed id.
func DeleteOne(param string, del func(ctx context.Context, orgID, id string) error) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := PathID(r, param)
		if err != nil {
			return err
		}
		if err := del(r.Context(), principal.Org(r), id); err != nil {
			return err
		}
		return httpx.NoContent(w)
	}
}
