// Package httpapi is the thumbnails service's HTTP edge: the thumbnails
// and templates endpoints behind the principal check, their DTOs, and the
// one function mapping domain errors to the envelope.
package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/chix"
	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/pkg/platform/pgkit"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/services/thumbnails/internal/edits"
	"hookline.dev/services/thumbnails/internal/generate/template"
	"hookline.dev/services/thumbnails/internal/service"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// Handler serves the thumbnails API; ready answers /readyz, which also
// reports parts (a provider whose model is missing).
func Handler(svc *service.Service, secret []byte, ready func(context.Context) error, log *slog.Logger, parts ...httpx.Component) http.Handler {
	h := &api{svc: svc}
	a := httpx.Adapter{Log: log, MapError: MapError}
	return chix.ServiceRouter(a, ready, secret, func(r chi.Router) {
		r.Get("/thumbnails", a.Wrap(h.listThumbnails))
		r.Post("/thumbnails", a.Wrap(h.generate))
		r.Post("/thumbnails/variations", a.Wrap(h.variations))
		r.Post("/thumbnails/analyze", a.Wrap(h.analyze))
		r.Post("/thumbnails/optimize", a.Wrap(h.optimize))
		r.Post("/thumbnails/extract-videosite", a.Wrap(h.extractVideoSite))
		r.Post("/thumbnails/analyze/text-overlay", a.Wrap(h.textOverlay))
		r.Post("/thumbnails/critique", a.Wrap(h.critique))
		for _, op := range edits.All() {
			r.Post(edits.Path(op), a.Wrap(h.editHandler(op)))
		}
		r.Post("/seo/titles", a.Wrap(h.seoTitles))
		r.Post("/seo/description", a.Wrap(h.seoDescription))
		r.Get("/thumbnails/{id}", a.Wrap(chix.GetOne("id", h.svc.Thumbnail, h.thumbnailOut)))
		r.Delete("/thumbnails/{id}", a.Wrap(chix.DeleteOne("id", h.svc.DeleteThumbnail)))

		r.Get("/templates", a.Wrap(h.listTemplates))
		r.Post("/templates/{id}/remix", a.Wrap(h.remix))
	}, parts...)
}

type api struct{ svc *service.Service }

// caller returns the principal of a request that passed principal.Require.
// A principal without a request id (a caller other than the gateway) gets
// the id the request middleware assigned, so that its reservations have a
// key.
func caller(r *http.Request) principal.Principal {
	p, _ := principal.From(r.Context())
	if p.RequestID == "" {
		p.RequestID = httpx.RequestIDFrom(r.Context())
	}
	return p
}

// MapError translates domain errors into API errors; everything else
// passes through (apierr values as they are, the rest as internal).
func MapError(err error) error {
	switch {
	case errors.Is(err, thumbnail.ErrNotFound):
		return apierr.New(apierr.NotFound, "thumbnail not found")
	case errors.Is(err, template.ErrNotFound):
		return apierr.New(apierr.NotFound, "template not found")
	}
	return pgkit.MapUnavailable(err)
}

func utc(t time.Time) time.Time { return t.UTC() }
