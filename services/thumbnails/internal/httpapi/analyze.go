package httpapi

import (
	"math"
	"net/http"
	"strings"
	"time"

	"hookline.dev/pkg/platform/httpx"
	"hookline.dev/services/thumbnails/internal/analyze/critique"
	"hookline.dev/services/thumbnails/internal/analyze/overlay"
)

// critiqueDTO is the spec's critique object: the critique of the picture
// with its id, cost and engine.
type critiqueDTO struct {
	ID string `json:"id"`
	critiqueBody
	CreditsCost int       `json:"creditsCost"`
	Engine      string    `json:"engine"`
	CreatedAt   time.Time `json:"createdAt"`
}

// critiqueBody is what the critique object says of the picture. Its lists
// are the domain's, never nil, so they answer [] rather than null.
type critiqueBody struct {
	OverallScore   float64   `json:"overallScore"`
	Scores         scoresDTO `json:"scores"`
	Strengths      []string  `json:"strengths"`
	Weaknesses     []string  `json:"weaknesses"`
	Improvements   []string  `json:"improvements"`
	AttentionAreas []areaDTO `json:"attentionAreas"`
	Summary        string    `json:"summary"`
	Text           textDTO   `json:"text"`
}

// textDTO is the text the critique read: at full size and at mobile size
// (168 px wide), the words of the first lost at the second, and the share
// of its letters that survive (textReadability is 10 times it when words
// were read). Its lists are never null.
type textDTO struct {
	Read         string   `json:"read"`
	ReadAtMobile string   `json:"readAtMobile"`
	Words        int      `json:"words"`
	Lost         []string `json:"lost"`
	Survived     float64  `json:"survived"`
}

// scoresDTO and areaDTO convert from their domain types, so a field added
// there fails to compile here until the API decides on it.
type scoresDTO struct {
	Contrast        float64 `json:"contrast"`
	Composition     float64 `json:"composition"`
	TextReadability float64 `json:"textReadability"`
	FaceVisibility  float64 `json:"faceVisibility"`
	ColorAppeal     float64 `json:"colorAppeal"`
	Clickability    float64 `json:"clickability"`
	EmotionalImpact float64 `json:"emotionalImpact"`
}

type areaDTO struct {
	X         float64 `json:"x"`
	Y         float64 `json:"y"`
	Radius    float64 `json:"radius"`
	Intensity float64 `json:"intensity"`
	Label     string  `json:"label"`
}

// critiqueOut is a stored critique as answered; a critique costs 1 credit.
func critiqueOut(c critique.Record) critiqueDTO {
	return critiqueDTO{ID: c.ID, critiqueBody: critiqueBodyOut(c.Critique), CreditsCost: 1, Engine: c.Engine, CreatedAt: utc(c.CreatedAt)}
}

func critiqueBodyOut(c critique.Critique) critiqueBody {
	b := critiqueBody{OverallScore: c.OverallScore, Scores: scoresDTO(c.Scores), Strengths: c.Strengths, Weaknesses: c.Weaknesses,
		Improvements: c.Improvements, AttentionAreas: make([]areaDTO, len(c.AttentionAreas)), Summary: c.Summary}
	for i, a := range c.AttentionAreas {
		b.AttentionAreas[i] = areaDTO(a)
	}
	b.Text = textDTO{Read: strings.Join(c.Text.Words, " "), ReadAtMobile: strings.Join(c.Text.MobileWords, " "),
		Words: len(c.Text.Words), Lost: append([]string{}, c.Text.Lost...), Survived: math.Round(100*c.Text.Survived) / 100}
	return b
}

// suggestionDTO is a text overlay suggestion (converted from
// overlay.Suggestion).
type suggestionDTO struct {
	Text        string `json:"text"`
	Placement   string `json:"placement"`
	Color       string `json:"color"`
	StrokeColor string `json:"strokeColor"`
	FontFamily  string `json:"fontFamily"`
	FontSize    int    `json:"fontSize"`
	Styling     string `json:"styling"`
	Reason      string `json:"reason"`
}

func suggestionsOut(ss []overlay.Suggestion) []suggestionDTO {
	out := make([]suggestionDTO, len(ss))
	for i, s := range ss {
		out[i] = suggestionDTO{Text: s.Text, Placement: s.Placement, Color: s.Color, StrokeColor: s.StrokeColor,
			FontFamily: s.FontFamily, FontSize: s.FontSize, Styling: s.Styling, Reason: s.Reason}
	}
	return out
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
