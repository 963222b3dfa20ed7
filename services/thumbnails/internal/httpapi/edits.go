package httpapi

import (
	"net/http"

	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/services/thumbnails/internal/edits"
)

// editDTO is the spec's edit result {id, imageUrl, prompt, creditsCost}
// with the rest of the thumbnail it made (operation, params, parentId...).
type editDTO struct {
	thumbnailDTO
	CreditsCost int `json:"creditsCost"`
}

// editHandler serves op's endpoint: its own body, decoded strictly as
// every other endpoint's (an unknown field, a wrong type or forbidden
// text is the same 400), run by the service.
func (h *api) editHandler(op edits.Op) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		body := op.Body()
		if err := httpx.Decode(r, body); err != nil {
			return err
		}
		e, err := h.svc.Edit(r.Context(), caller(r), op, body)
		if err != nil {
			return err
		}
		return httpx.Created(w, editDTO{thumbnailDTO: h.thumbnailOut(e.Thumbnail), CreditsCost: e.Credits})
	}
}
