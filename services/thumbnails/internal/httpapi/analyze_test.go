package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"
	"time"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/services/thumbnails/internal/analyze/critique"
	"hookline.dev/services/thumbnails/internal/analyze/overlay"
	"hookline.dev/services/thumbnails/internal/tesseract"
)

// The documents below are what these endpoints answered while the domain
// types carried the JSON tags themselves.

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCritiqueOut(t *testing.T) {
	c := critique.Record{ID: "cr-1", Engine: "local", CreatedAt: time.Date(2025, 3, 4, 5, 6, 7, 800000000, time.FixedZone("x", 3600)),
		Critique: critique.Critique{OverallScore: 7.4,
			Scores:    critique.Scores{Contrast: 8.1, Composition: 6.5, TextReadability: 7, FaceVisibility: 9.2, ColorAppeal: 5.5, Clickability: 7.7, EmotionalImpact: 6.3},
			Strengths: []string{"Strong contrast"}, Weaknesses: []string{}, Improvements: []string{"Enlarge the headline", "Crop tighter"},
			AttentionAreas: []critique.Area{{X: 640, Y: 300.5, Radius: 120, Intensity: 0.9, Label: "face"}, {X: 100, Y: 50, Radius: 40, Intensity: 0.35, Label: "text"}},
			Summary:        "Overall 7.4.",
			Text:           critique.Reading{Words: []string{"NO", "WAY"}, MobileWords: []string{"NO"}, Lost: []string{"WAY"}, Survived: 0.4}}}
	want := `{"id":"cr-1","overallScore":7.4,"scores":{"contrast":8.1,"composition":6.5,"textReadability":7,"faceVisibility":9.2,"colorAppeal":5.5,"clickability":7.7,"emotionalImpact":6.3},"strengths":["Strong contrast"],"weaknesses":[],"improvements":["Enlarge the headline","Crop tighter"],"attentionAreas":[{"x":640,"y":300.5,"radius":120,"intensity":0.9,"label":"face"},{"x":100,"y":50,"radius":40,"intensity":0.35,"label":"text"}],"summary":"Overall 7.4.","text":{"read":"NO WAY","readAtMobile":"NO","words":2,"lost":["WAY"],"survived":0.4},"creditsCost":1,"engine":"local","createdAt":"2025-03-04T04:06:07.8Z"}`
	if got := marshal(t, critiqueOut(c)); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestCritiqueOutEmpty: the critique of a picture with nothing to point
// at answers empty lists as [], never null.
func TestCritiqueOutEmpty(t *testing.T) {
	grey := image.NewRGBA(image.Rect(0, 0, 64, 36))
	draw.Draw(grey, grey.Bounds(), image.NewUniform(color.RGBA{R: 128, G: 128, B: 128, A: 255}), image.Point{}, draw.Src)
	var got map[string]any
	if err := json.Unmarshal([]byte(marshal(t, critiqueOut(critique.Record{Critique: analyze(t, grey, nil, "")}))), &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"strengths", "weaknesses", "improvements", "attentionAreas"} {
		if _, ok := got[k].([]any); !ok {
			t.Errorf("%s = %v, want an array", k, got[k])
		}
	}
	if text, ok := got["text"].(map[string]any); !ok || text["read"] != "" || text["words"] != 0.0 {
		t.Errorf("text = %v, want nothing read", got["text"])
	} else if _, ok := text["lost"].([]any); !ok {
		t.Errorf("text.lost = %v, want an array", text["lost"])
	}
}

// analyze is the local critique of img with the English OCR model.
func analyze(t *testing.T, img image.Image, faces []vision.Face, niche string) critique.Critique {
	t.Helper()
	r, err := tesseract.New(tesseract.DefaultDir, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }() // frees the engine; it cannot fail
	c, err := critique.Analyze(context.Background(), img, faces, r, niche)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSuggestionsOut(t *testing.T) {
	ss := []overlay.Suggestion{{Text: "SLEEP MORE", Placement: "top-left", Color: "#FFFFFF", StrokeColor: "#111111", FontFamily: "Anton",
		FontSize: 96, Styling: "bold", Reason: "calm"}}
	want := `{"suggestions":[{"text":"SLEEP MORE","placement":"top-left","color":"#FFFFFF","strokeColor":"#111111","fontFamily":"Anton","fontSize":96,"styling":"bold","reason":"calm"}]}`
	if got := marshal(t, map[string]any{"suggestions": suggestionsOut(ss)}); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestWriteCritiqueExample writes testdata/examples/edits/critique.json:
// the critique, as the API words it, of the picture the critique engine's
// example writer leaves there (critique-input.jpg), for a reviewer to
// look at. It runs only with HOOKLINE_WRITE_EXAMPLES=1.
func TestWriteCritiqueExample(t *testing.T) {
	if os.Getenv("HOOKLINE_WRITE_EXAMPLES") != "1" {
		t.Skip("set HOOKLINE_WRITE_EXAMPLES=1 to write the examples")
	}
	dir := filepath.Join("..", "..", "testdata", "examples", "edits")
	input, err := os.ReadFile(filepath.Join(dir, "critique-input.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := jpeg.Decode(bytes.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	d, err := vision.New()
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.MarshalIndent(critiqueBodyOut(analyze(t, img, d.Detect(img), "gaming")), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "critique.json"), append(js, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
