package httpapi

import (
	"fmt"
	"net/http"
	"time"

	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/services/assets/internal/service"
	"hookline.dev/services/assets/internal/upload"
)

type uploadRequest struct {
	FileName string `json:"fileName"`
	FileType string `json:"fileType"`
	FileSize int64  `json:"fileSize"`
}

type presignedDTO struct {
	UploadURL string `json:"uploadUrl"`
	PublicURL string `json:"publicUrl"`
	ExpiresAt string `json:"expiresAt"`
}

func presignedOut(p service.Presigned) presignedDTO {
	return presignedDTO{UploadURL: p.UploadURL, PublicURL: p.PublicURL, ExpiresAt: p.ExpiresAt.UTC().Format(time.RFC3339)}
}

func (u uploadRequest) domain() upload.Request {
	return upload.Request{FileName: u.FileName, FileType: u.FileType, FileSize: u.FileSize}
}

// presign answers POST /uploads/presigned-url.
func (h *api) presign(w http.ResponseWriter, r *http.Request) error {
	var in uploadRequest
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	out, err := h.svc.Presign(r.Context(), principal.Org(r), []upload.Request{in.domain()}, func(int) string { return "" })
	if err != nil {
		return err
	}
	return httpx.OK(w, presignedOut(out[0]))
}

// faceUploadURLs answers POST /faces/upload-urls with one upload address
// per file, in request order.
func (h *api) faceUploadURLs(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Files []uploadRequest `json:"files"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	if len(in.Files) == 0 || len(in.Files) > upload.MaxFilesPerRequest {
		return apierr.Field("files", fmt.Sprintf("must hold 1 to %d files", upload.MaxFilesPerRequest))
	}
	reqs := make([]upload.Request, len(in.Files))
	for i, f := range in.Files {
		reqs[i] = f.domain()
	}
	out, err := h.svc.Presign(r.Context(), principal.Org(r), reqs, func(i int) string { return fmt.Sprintf("files[%d].", i) })
	if err != nil {
		return err
	}
	dtos := make([]presignedDTO, len(out))
	for i, p := range out {
		dtos[i] = presignedOut(p)
	}
	return httpx.OK(w, dtos)
}
