package httpx

import (
	"context"
	"net/http"
	"time"

	"hookline.dev/pkg/apierr"
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
