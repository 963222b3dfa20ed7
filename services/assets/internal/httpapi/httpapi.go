// Package httpapi is the assets service's HTTP edge: the uploads, faces,
// styles, brands and collections endpoints behind the principal check,
// their DTOs, and the one function mapping domain errors to the envelope.
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
	"hookline.dev/services/assets/internal/brand"
	"hookline.dev/services/assets/internal/collection"
	"hookline.dev/services/assets/internal/face"
	"hookline.dev/services/assets/internal/service"
	"hookline.dev/services/assets/internal/style"
)

func Handler(svc *service.Service, secret []byte, ready func(context.Context) error, log *slog.Logger) http.Handler {
	h := &api{svc: svc}
	a := httpx.Adapter{Log: log, MapError: MapError}
	return chix.ServiceRouter(a, ready, secret, func(r chi.Router) {

		r.Post("/uploads/presigned-url", a.Wrap(h.presign))
		r.Post("/faces/upload-urls", a.Wrap(h.faceUploadURLs))

		r.Get("/faces", a.Wrap(h.listFaces))
		r.Post("/faces", a.Wrap(h.createFace))
		r.Get("/faces/{id}", a.Wrap(chix.GetOne("id", h.svc.Face, h.faceOut)))
		r.Patch("/faces/{id}", a.Wrap(h.updateFace))
		r.Delete("/faces/{id}", a.Wrap(chix.DeleteOne("id", h.svc.DeleteFace)))

		r.Get("/styles", a.Wrap(h.listStyles))
		r.Post("/styles", a.Wrap(h.createStyle))
		r.Get("/styles/{id}", a.Wrap(chix.GetOne("id", h.svc.Style, h.styleOut)))
		r.Patch("/styles/{id}", a.Wrap(h.updateStyle))
		r.Delete("/styles/{id}", a.Wrap(chix.DeleteOne("id", h.svc.DeleteStyle)))

		r.Get("/brands", a.Wrap(h.listBrands))
		r.Post("/brands", a.Wrap(h.createBrand))
		r.Get("/brands/{id}", a.Wrap(chix.GetOne("id", h.svc.Brand, h.brandOut)))
		r.Patch("/brands/{id}", a.Wrap(h.updateBrand))
		r.Delete("/brands/{id}", a.Wrap(chix.DeleteOne("id", h.svc.DeleteBrand)))

		r.Get("/collections", a.Wrap(h.listCollections))
		r.Post("/collections", a.Wrap(h.createCollection))
		r.Get("/collections/{id}", a.Wrap(h.getCollection))
		r.Patch("/collections/{id}", a.Wrap(h.updateCollection))
		r.Delete("/collections/{id}", a.Wrap(chix.DeleteOne("id", h.svc.DeleteCollection)))
		r.Post("/collections/{id}/thumbnails", a.Wrap(h.addThumbnails))
		r.Delete("/collections/{id}/thumbnails", a.Wrap(h.removeThumbnails))
	})
}

type api struct{ svc *service.Service }

// MapError translates domain errors into API errors; everything else
// passes through (apierr values as they are, the rest as internal).
func MapError(err error) error {
	var unknown *collection.UnknownThumbnailsError
	switch {
	case errors.Is(err, face.ErrNotFound):
		return apierr.New(apierr.NotFound, "face not found")
	case errors.Is(err, style.ErrNotFound):
		return apierr.New(apierr.NotFound, "style not found")
	case errors.Is(err, brand.ErrNotFound):
		return apierr.New(apierr.NotFound, "brand not found")
	case errors.Is(err, collection.ErrNotFound):
		return apierr.New(apierr.NotFound, "collection not found")
	case errors.As(err, &unknown):
		return apierr.New(apierr.NotFound, "thumbnail not found").With("thumbnailIds", unknown.IDs)
	}
	return pgkit.MapUnavailable(err)
}

func utc(t time.Time) time.Time { return t.UTC() }

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
