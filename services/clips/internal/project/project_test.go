package project_test

import (
	"testing"

	"hookline.dev/services/clips/internal/project"
)

func TestProgressMovesForwardThroughTheSteps(t *testing.T) {
	order := []project.Step{project.StepQueued, project.StepDownloading, project.StepProbing, project.StepTranscribing,
		project.StepAnalyzing, project.StepStoring, project.StepDone}
	last := -1
	for _, step := range order {
		for _, within := range []float64{0, 0.5, 1} {
			p := project.Progress(step, within)
			if p < last || p < 0 || p > 100 {
				t.Errorf("%s at %.1f: %d after %d", step, within, p, last)
			}
			last = p
		}
	}
	if project.Progress(project.StepDone, 0) != 100 || project.Progress(project.StepQueued, 0) != 0 {
		t.Error("a preparation starts at 0 and ends at 100")
	}
	if a, b := project.Progress(project.StepTranscribing, 0.2), project.Progress(project.StepTranscribing, 0.8); a >= b {
		t.Errorf("transcription does not move: %d at 20 %%, %d at 80 %%", a, b)
	}
	if project.Progress(project.StepTranscribing, 7) != project.Progress(project.StepAnalyzing, 0) || project.Progress("unknown", 0.5) != 0 {
		t.Error("out-of-range shares are not clamped")
	}
}
