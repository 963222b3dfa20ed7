package postgres

import (
	"encoding/json"
	"reflect"
	"testing"

	"hookline.dev/services/thumbnails/internal/analyze/critique"
)

// storedCritique is what SaveCritique wrote while it stored the domain
// type through its own JSON tags (an empty list included).
const storedCritique = `{"overallScore":7.4,"scores":{"contrast":8.1,"composition":6.5,"textReadability":7,"faceVisibility":9.2,"colorAppeal":5.5,"clickability":7.7,"emotionalImpact":6.3},"strengths":["Strong contrast"],"weaknesses":[],"improvements":["Enlarge the headline","Crop tighter"],"attentionAreas":[{"x":640,"y":300.5,"radius":120,"intensity":0.9,"label":"face"},{"x":100,"y":50,"radius":40,"intensity":0.35,"label":"text"}],"summary":"Overall 7.4."}`

// TestStoredCritique: a row written before the record existed reads as
// the same critique, and that critique is still written the same way.
func TestStoredCritique(t *testing.T) {
	want := critique.Critique{OverallScore: 7.4,
		Scores:    critique.Scores{Contrast: 8.1, Composition: 6.5, TextReadability: 7, FaceVisibility: 9.2, ColorAppeal: 5.5, Clickability: 7.7, EmotionalImpact: 6.3},
		Strengths: []string{"Strong contrast"}, Weaknesses: []string{}, Improvements: []string{"Enlarge the headline", "Crop tighter"},
		AttentionAreas: []critique.Area{{X: 640, Y: 300.5, Radius: 120, Intensity: 0.9, Label: "face"}, {X: 100, Y: 50, Radius: 40, Intensity: 0.35, Label: "text"}},
		Summary:        "Overall 7.4."}
	var rec critiqueRecord
	if err := json.Unmarshal([]byte(storedCritique), &rec); err != nil {
		t.Fatal(err)
	}
	if got := rec.domain(); !reflect.DeepEqual(got, want) {
		t.Errorf("reads as\n %#v\nwant %#v", got, want)
	}
	b, err := json.Marshal(critiqueRec(want))
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != storedCritique {
		t.Errorf("written as\n %s\nwant %s", b, storedCritique)
	}
	// The text read goes with it.
	want.Text = critique.Reading{Words: []string{"NO", "WAY"}, MobileWords: []string{"NO"}, Lost: []string{"WAY"}, Survived: 0.4}
	if b, err = json.Marshal(critiqueRec(want)); err != nil {
		t.Fatal(err)
	}
	rec = critiqueRecord{}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if got := rec.domain(); !reflect.DeepEqual(got, want) {
		t.Errorf("with text, reads back as\n %#v\nwant %#v", got, want)
	}
}
