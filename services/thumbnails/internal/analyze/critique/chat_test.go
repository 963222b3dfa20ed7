package critique

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"hookline.dev/pkg/ai/chatmodel"
)

// model answers each request with the next of its answers, as JSON.
type model struct {
	answers []any
	asked   []chatmodel.Request
	down    bool
}

func (m *model) Name() string { return "fake:critic" }

func (m *model) Complete(_ context.Context, req chatmodel.Request, out any) error {
	m.asked = append(m.asked, req)
	if m.down {
		return chatmodel.ErrUnavailable
	}
	a := m.answers[0]
	m.answers = m.answers[1:]
	b, _ := json.Marshal(a)
	if err := json.Unmarshal(b, out); err != nil {
		return chatmodel.ErrMalformed
	}
	return nil
}

// The model words the critique; the scores and areas stay measured, and
// an answer that breaks the rules is asked for again, then dropped for
// the local wording.
func TestChatWordsTheCritique(t *testing.T) {
	img, _ := poster(t, 1280, 720)
	fs := faces(t, img)
	measured := measure(t, img, fs)
	local := Judge(measured, "gaming")
	score := fmt.Sprintf("%.1f", local.OverallScore)
	good := map[string]any{
		"strengths": []string{"The face is big and clear."}, "weaknesses": []string{},
		"improvements": []string{"Add a rim light."}, "summary": "A " + score + "/10 thumbnail.",
	}
	m := &model{answers: []any{good}}
	got, engine := (&Chat{Model: m}).Word(context.Background(), measured, "gaming")
	if engine != "fake:critic" || got.Strengths[0] != "The face is big and clear." || got.Improvements[0] != "Add a rim light." {
		t.Fatalf("engine %q, critique %+v", engine, got)
	}
	if got.Scores != local.Scores || got.OverallScore != local.OverallScore || !reflect.DeepEqual(got.AttentionAreas, local.AttentionAreas) {
		t.Error("the model changed measured values")
	}
	if p := m.asked[0].User; !strings.Contains(p, "Niche: gaming") || !strings.Contains(p, score) {
		t.Errorf("prompt lacks the measurements: %s", p)
	}

	noScore := map[string]any{"strengths": []string{}, "weaknesses": []string{}, "improvements": []string{"x"}, "summary": "fine"}
	m = &model{answers: []any{noScore, noScore}}
	got, engine = (&Chat{Model: m}).Word(context.Background(), measured, "gaming")
	if len(m.asked) != 2 || !strings.HasPrefix(engine, "local (fallback: fake:critic") || !reflect.DeepEqual(got, local) {
		t.Errorf("a twice-bad answer: asked %d, engine %q", len(m.asked), engine)
	}
	m = &model{down: true}
	if got, engine = (&Chat{Model: m}).Word(context.Background(), measured, "gaming"); len(m.asked) != 1 || !reflect.DeepEqual(got, local) || !strings.Contains(engine, "unavailable") {
		t.Errorf("a model that is down: asked %d, engine %q", len(m.asked), engine)
	}
}
