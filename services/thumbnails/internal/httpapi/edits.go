package httpapi

import (
	"net/http"

	"hookline.dev/pkg/httpx"
	"hookline.dev/services/thumbnails/internal/thumbnail"
)

// editDTO is the spec's edit result {id, imageUrl, prompt, creditsCost}
// with the rest of the thumbnail it made (operation, params, parentId...).
type editDTO struct {
	thumbnailDTO
	CreditsCost int `json:"creditsCost"`
}

// editHandler decodes an edit endpoint's own body (an unknown field is a
// 400) with in, which maps it to the shared input, and runs op.
func (h *api) editHandler(op thumbnail.Op, decode func(r *http.Request) (thumbnail.EditInput, error)) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		in, err := decode(r)
		if err != nil {
			return err
		}
		e, err := h.svc.Edit(r.Context(), caller(r), op, in)
		if err != nil {
			return err
		}
		return httpx.Created(w, editDTO{thumbnailDTO: h.thumbnailOut(e.Thumbnail), CreditsCost: e.Credits})
	}
}

// bodyOf decodes a body of type T and maps it with to.
func bodyOf[T any](to func(T) thumbnail.EditInput) func(r *http.Request) (thumbnail.EditInput, error) {
	return func(r *http.Request) (thumbnail.EditInput, error) {
		var in T
		if err := httpx.Decode(r, &in); err != nil {
			return thumbnail.EditInput{}, err
		}
		return to(in), nil
	}
}

type editIn struct {
	ImageURL           *string  `json:"imageUrl"`
	Prompt             *string  `json:"prompt"`
	ReferenceImageURLs []string `json:"referenceImageUrls"`
	AspectRatio        *string  `json:"aspectRatio"`
}

type faceSwapIn struct {
	ImageURL     *string `json:"imageUrl"`
	FaceImageURL *string `json:"faceImageUrl"`
	FaceID       *string `json:"faceId"`
}

type imageIn struct {
	ImageURL *string `json:"imageUrl"`
}

type backgroundReplaceIn struct {
	ImageURL         *string `json:"imageUrl"`
	BackgroundPrompt *string `json:"backgroundPrompt"`
	AspectRatio      *string `json:"aspectRatio"`
}

type colorEnhanceIn struct {
	ImageURL  *string `json:"imageUrl"`
	Preset    *string `json:"preset"`
	Intensity *string `json:"intensity"`
}

type upscaleIn struct {
	ImageURL *string `json:"imageUrl"`
	Scale    *string `json:"scale"`
}

type filterIn struct {
	ImageURL     *string `json:"imageUrl"`
	FilterPrompt *string `json:"filterPrompt"`
}

type combineIn struct {
	ImageURL1   *string `json:"imageUrl1"`
	ImageURL2   *string `json:"imageUrl2"`
	Prompt      *string `json:"prompt"`
	AspectRatio *string `json:"aspectRatio"`
}

// editRoutes are the eight edit endpoints, each with its own body.
func (h *api) editRoutes() map[string]func(w http.ResponseWriter, r *http.Request) error {
	return map[string]func(w http.ResponseWriter, r *http.Request) error{
		"/thumbnails/edit": h.editHandler(thumbnail.OpEdit, bodyOf(func(in editIn) thumbnail.EditInput {
			return thumbnail.EditInput{ImageURL: in.ImageURL, Prompt: in.Prompt, ReferenceImageURLs: in.ReferenceImageURLs, AspectRatio: in.AspectRatio}
		})),
		"/thumbnails/edit/face-swap": h.editHandler(thumbnail.OpFaceSwap, bodyOf(func(in faceSwapIn) thumbnail.EditInput {
			return thumbnail.EditInput{ImageURL: in.ImageURL, FaceImageURL: in.FaceImageURL, FaceID: in.FaceID}
		})),
		"/thumbnails/edit/background-remove": h.editHandler(thumbnail.OpBackgroundRemove, bodyOf(func(in imageIn) thumbnail.EditInput {
			return thumbnail.EditInput{ImageURL: in.ImageURL}
		})),
		"/thumbnails/edit/background-replace": h.editHandler(thumbnail.OpBackgroundReplace, bodyOf(func(in backgroundReplaceIn) thumbnail.EditInput {
			return thumbnail.EditInput{ImageURL: in.ImageURL, BackgroundPrompt: in.BackgroundPrompt, AspectRatio: in.AspectRatio}
		})),
		"/thumbnails/edit/color-enhance": h.editHandler(thumbnail.OpColorEnhance, bodyOf(func(in colorEnhanceIn) thumbnail.EditInput {
			return thumbnail.EditInput{ImageURL: in.ImageURL, Preset: in.Preset, Intensity: in.Intensity}
		})),
		"/thumbnails/edit/upscale": h.editHandler(thumbnail.OpUpscale, bodyOf(func(in upscaleIn) thumbnail.EditInput {
			return thumbnail.EditInput{ImageURL: in.ImageURL, Scale: in.Scale}
		})),
		"/thumbnails/edit/filter": h.editHandler(thumbnail.OpFilter, bodyOf(func(in filterIn) thumbnail.EditInput {
			return thumbnail.EditInput{ImageURL: in.ImageURL, FilterPrompt: in.FilterPrompt}
		})),
		"/thumbnails/edit/combine": h.editHandler(thumbnail.OpCombine, bodyOf(func(in combineIn) thumbnail.EditInput {
			return thumbnail.EditInput{ImageURL1: in.ImageURL1, ImageURL2: in.ImageURL2, Prompt: in.Prompt, AspectRatio: in.AspectRatio}
		})),
	}
}

func (h *api) critique(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		ImageURL *string `json:"imageUrl"`
		Niche    *string `json:"niche"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	c, err := h.svc.Critique(r.Context(), caller(r), in.ImageURL, in.Niche)
	if err != nil {
		return err
	}
	return httpx.OK(w, critiqueOut(c))
}
