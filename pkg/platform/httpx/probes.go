package httpx

import (
	"context"
	"net/http"
	"time"

	"hookline.dev/pkg/platform/apierr"
)

// Healthz answers liveness: the process serves HTTP.
func Healthz(w http.ResponseWriter, _ *http.Request) error {
	return OK(w, map[string]string{"status": "ok"})
}

// Readyz answers readiness: 200 only while ready (the service's
// dependencies) succeeds within two seconds, else 503 unavailable, so a
// load balancer stops sending traffic a replica cannot serve.
func Readyz(ready func(context.Context) error) HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := ready(ctx); err != nil {
			return apierr.Wrap(apierr.Unavailable, "not ready", err)
		}
		return OK(w, map[string]string{"status": "ready"})
	}
}

// Component is a part of a ready service that can work in a lesser mode
// (an AI provider whose model is missing, served by a local engine).
type Component interface {
	// Degraded is nil while the part works fully, else what /readyz
	// shows of it.
	Degraded() any
}

// ReadyzWith is Readyz that also reports parts: while one is degraded the
// answer is still 200 — the replica serves every request, in the lesser
// mode — with status "degraded" and the parts' reports in "degraded",
// for people and alerts to read. A 503 would take every replica out of
// the load balancer at once for a fault no restart mends.
func ReadyzWith(ready func(context.Context) error, parts ...Component) HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := ready(ctx); err != nil {
			return apierr.Wrap(apierr.Unavailable, "not ready", err)
		}
		var degraded []any
		for _, p := range parts {
			if d := p.Degraded(); d != nil {
				degraded = append(degraded, d)
			}
		}
		if len(degraded) > 0 {
			return OK(w, map[string]any{"status": "degraded", "degraded": degraded})
		}
		return OK(w, map[string]string{"status": "ready"})
	}
}
