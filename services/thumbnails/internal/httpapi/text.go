package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"

	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/services/thumbnails/internal/textai"
	"hookline.dev/services/thumbnails/internal/thumbnail"
	"hookline.dev/services/thumbnails/internal/videotext"
)

type conceptDTO struct {
	ID            string `json:"id"`
	Title         string `json:"title"`
	Description   string `json:"description"`
	Prompt        string `json:"prompt"`
	HookText      string `json:"hookText"`
	TextStyle     string `json:"textStyle"`
	TextPlacement string `json:"textPlacement"`
}

type analysisDTO struct {
	Video struct {
		Title   string `json:"title"`
		Summary string `json:"summary"`
	} `json:"video"`
	Concepts []conceptDTO `json:"concepts"`
	Engine   string       `json:"engine"`
}

func (h *api) analyze(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		VideoSiteURL *string `json:"videoSiteUrl"`
		Transcript   *string `json:"transcript"`
		VideoTitle   *string `json:"videoTitle"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	a, err := h.svc.Analyze(r.Context(), videotext.AnalyzeInput{VideoSiteURL: in.VideoSiteURL, Transcript: in.Transcript, VideoTitle: in.VideoTitle})
	if err != nil {
		return err
	}
	out := analysisDTO{Concepts: make([]conceptDTO, len(a.Concepts)), Engine: a.Engine}
	out.Video.Title, out.Video.Summary = a.Title, a.Summary
	for i, c := range a.Concepts {
		out.Concepts[i] = conceptDTO(c)
	}
	return httpx.OK(w, out)
}

type optimizedDTO struct {
	thumbnailDTO
	OptimizedPrompt string `json:"optimizedPrompt"`
	Headline        string `json:"headline"`
	TextEngine      string `json:"textEngine"`
}

func (h *api) optimize(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Idea         *string `json:"idea"`
		AspectRatio  *string `json:"aspectRatio"`
		StyleID      *string `json:"styleId"`
		BrandID      *string `json:"brandId"`
		CollectionID *string `json:"collectionId"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	o, err := h.svc.Optimize(r.Context(), caller(r), thumbnail.OptimizeInput{
		Idea: in.Idea, AspectRatio: in.AspectRatio, StyleID: in.StyleID, BrandID: in.BrandID, CollectionID: in.CollectionID,
	})
	if err != nil {
		return err
	}
	return httpx.Created(w, optimizedDTO{thumbnailDTO: h.thumbnailOut(o.Thumbnail), OptimizedPrompt: o.Prompt, Headline: o.Headline, TextEngine: o.Engine})
}

type titleDTO struct {
	Title   string `json:"title"`
	Pattern string `json:"pattern"`
	Reason  string `json:"reason"`
}

func (h *api) seoTitles(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		VideoTitle   *string  `json:"videoTitle"`
		Transcript   *string  `json:"transcript"`
		VideoSiteURL *string  `json:"videoSiteUrl"`
		Keywords     []string `json:"keywords"`
		Count        *int     `json:"count"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	t, err := h.svc.Titles(r.Context(), videotext.TitlesInput{
		VideoTitle: in.VideoTitle, Transcript: in.Transcript, VideoSiteURL: in.VideoSiteURL, Keywords: in.Keywords, Count: in.Count,
	})
	if err != nil {
		return err
	}
	out := struct {
		Titles []titleDTO `json:"titles"`
		Engine string     `json:"engine"`
	}{Titles: make([]titleDTO, len(t.Titles)), Engine: t.Engine}
	for i, x := range t.Titles {
		out.Titles[i] = titleDTO{Title: x.Title, Pattern: string(x.Pattern), Reason: x.Reason}
	}
	return httpx.OK(w, out)
}

type chapterDTO struct {
	Start float64 `json:"start"`
	Title string  `json:"title"`
}

func (h *api) seoDescription(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Title        *string  `json:"title"`
		Transcript   *string  `json:"transcript"`
		VideoSiteURL *string  `json:"videoSiteUrl"`
		Keywords     []string `json:"keywords"`
		Links        []linkIn `json:"links"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	links := make([]videotext.LinkInput, len(in.Links))
	for i, l := range in.Links {
		links[i] = videotext.LinkInput{Title: l.Title, URL: l.URL}
	}
	d, err := h.svc.Description(r.Context(), videotext.DescriptionInput{
		Title: in.Title, Transcript: in.Transcript, VideoSiteURL: in.VideoSiteURL, Keywords: in.Keywords, Links: links,
	})
	if err != nil {
		return err
	}
	return httpx.OK(w, descriptionOut(d))
}

// linkIn is a link of a description request: a URL string, or an object
// {title?, url}.
type linkIn struct {
	Title *string
	URL   *string
}

func (l *linkIn) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var u string
		if err := json.Unmarshal(b, &u); err != nil {
			return err
		}
		l.URL = &u
		return nil
	}
	var o struct {
		Title *string `json:"title"`
		URL   *string `json:"url"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return err
	}
	l.Title, l.URL = o.Title, o.URL
	return nil
}

type descriptionDTO struct {
	Description       string       `json:"description"`
	Tags              []string     `json:"tags"`
	Hashtags          []string     `json:"hashtags"`
	Chapters          []chapterDTO `json:"chapters"`
	ChaptersEstimated bool         `json:"chaptersEstimated"`
	Engine            string       `json:"engine"`
}

func descriptionOut(d textai.Description) descriptionDTO {
	out := descriptionDTO{Description: d.Description, Tags: d.Tags, Hashtags: d.Hashtags, Chapters: make([]chapterDTO, len(d.Chapters)),
		ChaptersEstimated: d.ChaptersEstimated, Engine: d.Engine}
	if out.Tags == nil {
		out.Tags = []string{}
	}
	if out.Hashtags == nil {
		out.Hashtags = []string{}
	}
	for i, c := range d.Chapters {
		out.Chapters[i] = chapterDTO(c)
	}
	return out
}

func (h *api) extractVideoSite(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		VideoSiteURL *string `json:"videoSiteUrl"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	e, err := h.svc.ExtractVideoSite(r.Context(), caller(r), in.VideoSiteURL)
	if err != nil {
		return err
	}
	return httpx.OK(w, map[string]any{"videoId": e.VideoID, "imageUrl": h.svc.URL(e.Key), "quality": e.Quality,
		"width": e.Width, "height": e.Height, "sourceUrl": e.SourceURL})
}

func (h *api) textOverlay(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		ImageURL       *string `json:"imageUrl"`
		OriginalPrompt *string `json:"originalPrompt"`
		FaceName       *string `json:"faceName"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	ss, err := h.svc.TextOverlay(r.Context(), caller(r), in.ImageURL, in.OriginalPrompt, in.FaceName)
	if err != nil {
		return err
	}
	return httpx.OK(w, map[string]any{"suggestions": suggestionsOut(ss)})
}
