package httpapi

import (
	"encoding/json"
	"testing"
	"time"

	"hookline.dev/services/clips/internal/censor"
	"hookline.dev/services/clips/internal/moments"
	"hookline.dev/services/clips/internal/project"
	"hookline.dev/services/clips/internal/render"
	"hookline.dev/services/clips/internal/service"
	"hookline.dev/services/clips/internal/translate"
)

// The documents below are what these mappers answered while the domain
// types carried the JSON tags themselves: the shape clients depend on,
// including the nulls of a clip without platforms or keywords and the
// options' omitted track and end card.

var at = time.Date(2025, 3, 4, 5, 6, 7, 800000000, time.FixedZone("x", 3600))

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestProjectOut(t *testing.T) {
	ready := project.Project{ID: "p-1", OrgID: "o-1", SourceURL: "https://www.youtube.com/watch?v=abc", VideoTitle: "A talk", Format: project.Portrait,
		Status: project.Ready, Step: project.StepDone, Progress: 100, Duration: 321.5, Transcript: "captions", CreatedAt: at, UpdatedAt: at, ReadyAt: &at,
		Analysis: moments.Analysis{ContentType: "podcast", SuggestedFormat: "portrait", SuggestedStyle: "bold", TranscriptQuality: "low", Engine: "local"},
		Clips: []moments.Clip{
			{ID: "c-1", Title: "Why sleep matters", Start: 12.5, End: 48.25, Hook: "You are doing it wrong.", Category: "educational", ViralScore: 87,
				HookStrength: "strong", PlatformFit: []string{"tiktok", "shorts"}, Mood: "curious", Keywords: []string{"sleep", "brain"},
				Features: moments.Features{Hook: 0.9, SelfContained: 0.8, Salience: 0.7, Emotion: 0.6, Pace: 0.5, Length: 0.4, Energy: 0.3, Peaks: 0.2, Scenes: 0.1}},
			{ID: "c-2", Title: "Second", Start: 60, End: 90, Hook: "And then", Category: "story", ViralScore: 41, HookStrength: "weak", Mood: "calm"},
		}}
	downloading := project.Project{ID: "p-2", SourceURL: "https://x/y.mp4", Format: project.Landscape, Status: project.Downloading,
		Step: project.StepTranscribing, Progress: 41, CreatedAt: at, UpdatedAt: at}
	for _, tc := range []struct {
		p    project.Project
		want string
	}{
		{ready, `{"id":"p-1","videoTitle":"A talk","videoSiteUrl":"https://www.youtube.com/watch?v=abc","downloadStatus":"ready","downloadError":null,"preparationStep":"done","preparationProgress":100,"format":"portrait","duration":321.5,"transcriptSource":"captions","analysis":{"contentType":"podcast","suggestedFormat":"portrait","suggestedStyle":"bold","transcriptQuality":"low","engine":"local","scoreWeights":null,"prompt":null},"clips":[{"id":"c-1","title":"Why sleep matters","startTime":12.5,"endTime":48.25,"duration":35.75,"hook":"You are doing it wrong.","category":"educational","viralScore":87,"hookStrength":"strong","platformFit":["tiktok","shorts"],"mood":"curious","keywords":["sleep","brain"],"features":{"hook":0.9,"selfContained":0.8,"salience":0.7,"emotion":0.6,"pace":0.5,"length":0.4,"energy":0.3,"peaks":0.2,"scenes":0.1},"scores":null,"reasons":[],"match":null},{"id":"c-2","title":"Second","startTime":60,"endTime":90,"duration":30,"hook":"And then","category":"story","viralScore":41,"hookStrength":"weak","platformFit":null,"mood":"calm","keywords":null,"features":{"hook":0,"selfContained":0,"salience":0,"emotion":0,"pace":0,"length":0,"energy":0,"peaks":0,"scenes":0},"scores":null,"reasons":[],"match":null}],"createdAt":"2025-03-04T04:06:07.8Z","updatedAt":"2025-03-04T04:06:07.8Z","readyAt":"2025-03-04T04:06:07.8Z"}`},
		{downloading, `{"id":"p-2","videoTitle":"","videoSiteUrl":"https://x/y.mp4","downloadStatus":"downloading","downloadError":null,"preparationStep":"transcribing","preparationProgress":41,"format":"landscape","duration":null,"transcriptSource":null,"analysis":{"contentType":"","suggestedFormat":"","suggestedStyle":"","transcriptQuality":"","engine":"","scoreWeights":null,"prompt":null},"clips":[],"createdAt":"2025-03-04T04:06:07.8Z","updatedAt":"2025-03-04T04:06:07.8Z","readyAt":null}`},
	} {
		if got := marshal(t, projectOut(tc.p)); got != tc.want {
			t.Errorf("project %s:\n got %s\nwant %s", tc.p.ID, got, tc.want)
		}
	}
}

func TestRenderOut(t *testing.T) {
	h := &api{svc: &service.API{Core: service.Core{PublicURL: func(k string) string { return "https://cdn/" + k }}}}
	completed := render.Render{ID: "r-1", ProjectID: "p-1", ClipID: "c-1", Format: project.Portrait, Style: "bold", BrandID: "b-1", Status: render.Completed,
		Progress: 100, Step: "done", Notes: []string{"no music"}, Credits: 2, OutputKey: "o.mp4", CaptionsKey: "o.srt", CropKey: "o.crop.json",
		Attempts: 1, CreatedAt: at, UpdatedAt: at, CompletedAt: &at,
		Options: render.Options{Music: true, MusicTrackID: "trk-1", HookTitle: true, ProgressBar: true, BrandFrame: true, EndCardText: "Follow for more", KeywordEmphasis: true,
			RemoveSilences: true, AutoZoom: true, Layout: render.LayoutSplit, Censor: censor.Bleep, CaptionLanguage: "es"},
		CaptionTranslation: &translate.Translation{Engine: "apertium", Quality: translate.Draft, Language: "es"},
		SecondsRemoved:     5.5321, Exports: []render.Export{{Format: render.ExportSRT, Key: "o.srt"}, {Format: render.ExportFCPXML, Key: "o.fcpxml"}}}
	failed := render.Render{ID: "r-2", ProjectID: "p-1", ClipID: "c-2", Format: project.Landscape, Style: "clean", Status: render.Failed, Step: "done",
		Error: "boom", Options: render.Options{Broll: true, Layout: render.LayoutAuto}, Credits: 2, CreatedAt: at, UpdatedAt: at}
	for _, tc := range []struct {
		r    render.Render
		want string
	}{
		{completed, `{"id":"r-1","projectId":"p-1","clipId":"c-1","status":"completed","progress":100,"currentStep":"done","format":"portrait","subtitleStyle":"bold","brandId":"b-1","options":{"music":true,"musicTrackId":"trk-1","broll":false,"hookTitle":true,"progressBar":true,"brandFrame":true,"endCardText":"Follow for more","keywordEmphasis":true,"removeSilences":true,"removeFillers":false,"autoZoom":true,"layout":"split","censor":"bleep","captionLanguage":"es"},"outputUrl":"https://cdn/o.mp4","captionsUrl":"https://cdn/o.srt","cropPathUrl":"https://cdn/o.crop.json","creditsCharged":2,"error":null,"notes":["no music"],"attempts":1,"createdAt":"2025-03-04T04:06:07.8Z","updatedAt":"2025-03-04T04:06:07.8Z","completedAt":"2025-03-04T04:06:07.8Z","secondsRemoved":5.53,"exports":[{"format":"srt","url":"https://cdn/o.srt","contentType":"application/x-subrip"},{"format":"fcpxml","url":"https://cdn/o.fcpxml","contentType":"application/xml"}],"captionTranslation":{"engine":"apertium","quality":"draft","language":"es"}}`},
		{failed, `{"id":"r-2","projectId":"p-1","clipId":"c-2","status":"failed","progress":0,"currentStep":"done","format":"landscape","subtitleStyle":"clean","brandId":null,"options":{"music":false,"broll":true,"hookTitle":false,"progressBar":false,"brandFrame":false,"keywordEmphasis":false,"removeSilences":false,"removeFillers":false,"autoZoom":false,"layout":"auto","censor":"none"},"outputUrl":null,"captionsUrl":null,"cropPathUrl":null,"creditsCharged":0,"error":"boom","notes":[],"attempts":0,"createdAt":"2025-03-04T04:06:07.8Z","updatedAt":"2025-03-04T04:06:07.8Z","completedAt":null,"secondsRemoved":0,"exports":[],"captionTranslation":null}`},
	} {
		if got := marshal(t, h.renderOut(tc.r)); got != tc.want {
			t.Errorf("render %s:\n got %s\nwant %s", tc.r.ID, got, tc.want)
		}
	}
}

// TestOptionsIn: every option of a request reaches the domain, and an
// absent options object stays absent.
func TestOptionsIn(t *testing.T) {
	var in struct {
		Options *optionsIn `json:"options"`
	}
	body := `{"options":{"music":true,"musicTrackId":"trk-1","broll":false,"hookTitle":true,"progressBar":false,"brandFrame":true,"endCardText":"Bye","keywordEmphasis":true,"removeSilences":true,"removeFillers":true,"autoZoom":true,"layout":"speaker","censor":"mute","captionLanguage":"es"}}`
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		t.Fatal(err)
	}
	o := in.Options.domain()
	if !*o.Music || *o.MusicTrackID != "trk-1" || *o.Broll || !*o.HookTitle || *o.ProgressBar || !*o.BrandFrame || *o.EndCardText != "Bye" || !*o.KeywordEmphasis ||
		!*o.RemoveSilences || !*o.RemoveFillers || !*o.AutoZoom || *o.Layout != "speaker" || *o.Censor != "mute" || *o.CaptionLanguage != "es" {
		t.Errorf("options %+v", *o)
	}
	if got := (*optionsIn)(nil).domain(); got != nil {
		t.Errorf("absent options became %+v", got)
	}
}
