package httpapi

import (
	"net/http"

	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/services/clips/internal/censor"
	"hookline.dev/services/clips/internal/service"
)

// censorListDTO is the profanity filter's list of an organization.
type censorListDTO struct {
	Words   []string         `json:"words"`
	BuiltIn censorBuiltinDTO `json:"builtIn"`
}

type censorBuiltinDTO struct {
	Source string `json:"source"`
	Count  int    `json:"count"`
}

func censorOut(l service.CensorList) censorListDTO {
	words := l.Words
	if words == nil {
		words = []string{}
	}
	return censorListDTO{Words: words, BuiltIn: censorBuiltinDTO{Source: censor.Source, Count: l.BuiltinCount}}
}

func (h *api) getCensorWords(w http.ResponseWriter, r *http.Request) error {
	l, err := h.svc.CensorList(r.Context(), principal.Org(r))
	if err != nil {
		return err
	}
	return httpx.OK(w, censorOut(l))
}

func (h *api) putCensorWords(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Words *[]string `json:"words"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	l, err := h.svc.SetCensorWords(r.Context(), principal.Org(r), in.Words)
	if err != nil {
		return err
	}
	return httpx.OK(w, censorOut(l))
}
