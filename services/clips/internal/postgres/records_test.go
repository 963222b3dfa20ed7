package postgres

import (
	"encoding/json"
	"image"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"hookline.dev/pkg/media/videosite"
	"hookline.dev/services/clips/internal/censor"
	"hookline.dev/services/clips/internal/facetrack"
	"hookline.dev/services/clips/internal/moments"
	"hookline.dev/services/clips/internal/render"
)

// The stored documents below are what this adapter wrote while it stored
// the domain types through their own JSON tags (and segments and signals
// through their Go field names). A row written then must read as the same
// domain value, and the same value must still be written the same way.

func checkStored[R, D any](t *testing.T, name, stored string, want D, toDomain func(R) D, toRecord func(D) R) {
	t.Helper()
	var rec R
	if err := json.Unmarshal([]byte(stored), &rec); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if got := toDomain(rec); !reflect.DeepEqual(got, want) {
		t.Errorf("%s reads as\n %#v\nwant %#v", name, got, want)
	}
	b, err := json.Marshal(toRecord(want))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if string(b) != stored {
		t.Errorf("%s is written as\n %s\nwant %s", name, b, stored)
	}
}

func TestStoredAnalysis(t *testing.T) {
	checkStored(t, "analysis", `{"contentType":"podcast","suggestedFormat":"portrait","suggestedStyle":"bold","engine":"openai:gpt-4o-mini"}`,
		moments.Analysis{ContentType: "podcast", SuggestedFormat: "portrait", SuggestedStyle: "bold", Engine: "openai:gpt-4o-mini"},
		analysisRecord.domain, analysisRec)
}

func TestStoredClips(t *testing.T) {
	want := []moments.Clip{
		{ID: "c-1", Title: "Why sleep matters", Start: 12.5, End: 48.25, Hook: "You are doing it wrong.", Category: "educational", ViralScore: 87,
			HookStrength: "strong", PlatformFit: []string{"tiktok", "shorts"}, Mood: "curious", Keywords: []string{"sleep", "brain"},
			Features: moments.Features{Hook: 0.9, SelfContained: 0.8, Salience: 0.7, Emotion: 0.6, Pace: 0.5, Length: 0.4, Energy: 0.3, Peaks: 0.2, Scenes: 0.1}},
		{ID: "c-2", Title: "Second", Start: 60, End: 90, Hook: "And then", Category: "story", ViralScore: 41, HookStrength: "weak", Mood: "calm"},
	}
	checkStored(t, "clips", `[{"id":"c-1","title":"Why sleep matters","startTime":12.5,"endTime":48.25,"hook":"You are doing it wrong.","category":"educational","viralScore":87,"hookStrength":"strong","platformFit":["tiktok","shorts"],"mood":"curious","keywords":["sleep","brain"],"features":{"hook":0.9,"selfContained":0.8,"salience":0.7,"emotion":0.6,"pace":0.5,"length":0.4,"energy":0.3,"peaks":0.2,"scenes":0.1}},{"id":"c-2","title":"Second","startTime":60,"endTime":90,"hook":"And then","category":"story","viralScore":41,"hookStrength":"weak","platformFit":null,"mood":"calm","keywords":null,"features":{"hook":0,"selfContained":0,"salience":0,"emotion":0,"pace":0,"length":0,"energy":0,"peaks":0,"scenes":0}}]`,
		want, func(rs []clipRecord) []moments.Clip { return mapSlice(rs, clipRecord.domain) },
		func(cs []moments.Clip) []clipRecord { return mapSlice(cs, clipRec) })
}

func TestStoredSignals(t *testing.T) {
	checkStored(t, "signals", `{"Step":0.5,"Energy":[0.1,0.9],"Peaks":[12.5],"Scenes":null}`,
		moments.Signals{Step: 0.5, Energy: []float64{0.1, 0.9}, Peaks: []float64{12.5}}, func(r signalsRecord) moments.Signals { s, _ := r.domain(); return s },
		func(s moments.Signals) signalsRecord { return signalsRec(s, nil) })
}

// The sampled faces round-trip through their compact form (a mouth not
// measured stays NaN, and so does their loudness); a source stored before
// them reads back without.
func TestStoredFaces(t *testing.T) {
	faces := &facetrack.Samples{Frames: [][]facetrack.Face{
		{{Box: image.Rect(100, 80, 300, 320), Open: 0.12345}, {Box: image.Rect(900, 60, 1100, 300), Open: math.NaN()}},
		nil,
		{{Box: image.Rect(104, 80, 304, 320), Open: 0.05}},
	}, Loudness: []float64{-23.44, -100, -18.06}, Weighted: []float64{-20.71, -100.69}}
	b, err := json.Marshal(signalsRec(moments.Signals{Step: 0.5}, faces))
	if err != nil {
		t.Fatal(err)
	}
	if want := `"Faces":{"f":[[[100,80,300,320,12345],[900,60,1100,300,-1]],[],[[104,80,304,320,5000]]],"l":[-234,-1000,-181],"w":[-207,-1007]}`; !strings.Contains(string(b), want) {
		t.Fatalf("stored %s, want it to hold %s", b, want)
	}
	var rec signalsRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	_, got := rec.domain()
	if len(got.Frames) != 3 || len(got.Frames[1]) != 0 || got.Frames[0][0].Box != faces.Frames[0][0].Box ||
		got.Frames[0][0].Open != 0.12345 || !math.IsNaN(got.Frames[0][1].Open) || got.Frames[2][0].Open != 0.05 {
		t.Fatalf("read back %+v, want %+v", got.Frames, faces.Frames)
	}
	if want := []float64{-23.4, -100, -18.1}; !slices.Equal(got.Loudness, want) {
		t.Fatalf("loudness %v, want %v", got.Loudness, want)
	}
	if want := []float64{-20.7, -100.7}; !slices.Equal(got.Weighted, want) {
		t.Fatalf("K-weighted loudness %v, want %v", got.Weighted, want)
	}
	var old signalsRecord
	if err := json.Unmarshal([]byte(`{"Step":0.5,"Energy":[0.1],"Peaks":null,"Scenes":null}`), &old); err != nil {
		t.Fatal(err)
	}
	if _, f := old.domain(); f != nil {
		t.Fatalf("an old source read back with faces %+v", f)
	}
}

func TestStoredSegments(t *testing.T) {
	want := []videosite.Segment{
		{Start: 0, End: 2.5, Text: "hello world", Words: []videosite.Word{{Start: 0, End: 1, Text: "hello", Confidence: 1}, {Start: 1, End: 2.5, Text: "world", Confidence: 0.25}}},
		{Start: 3, End: 4, Text: "bye"},
	}
	checkStored(t, "segments", `[{"Start":0,"End":2.5,"Text":"hello world","Words":[{"Start":0,"End":1,"Text":"hello","Confidence":1},{"Start":1,"End":2.5,"Text":"world","Confidence":0.25}]},{"Start":3,"End":4,"Text":"bye","Words":null}]`,
		want, func(rs []segmentRecord) []videosite.Segment { return mapSlice(rs, segmentRecord.domain) },
		func(ss []videosite.Segment) []segmentRecord { return mapSlice(ss, segmentRec) })

	// Rows written before confidences were kept read back as certain.
	var old []segmentRecord
	if err := json.Unmarshal([]byte(`[{"Start":0,"End":1,"Text":"hi","Words":[{"Start":0,"End":1,"Text":"hi"}]}]`), &old); err != nil {
		t.Fatal(err)
	}
	if got := mapSlice(old, segmentRecord.domain); got[0].Words[0].Confidence != videosite.Certain {
		t.Errorf("an old row's word reads as %+v, want certain", got[0].Words[0])
	}
}

func fromOptions(r optionsRecord) render.Options { return render.Options(r) }
func toOptions(o render.Options) optionsRecord   { return optionsRecord(o) }

func TestStoredOptions(t *testing.T) {
	checkStored(t, "every option", `{"music":true,"musicTrackId":"trk-1","broll":false,"hookTitle":true,"progressBar":true,"brandFrame":true,"endCardText":"Follow for more","keywordEmphasis":true,"removeSilences":true,"removeFillers":true,"autoZoom":true,"layout":"speaker"}`,
		render.Options{Music: true, MusicTrackID: "trk-1", HookTitle: true, ProgressBar: true, BrandFrame: true, EndCardText: "Follow for more", KeywordEmphasis: true,
			RemoveSilences: true, RemoveFillers: true, AutoZoom: true, Layout: render.LayoutSpeaker},
		fromOptions, toOptions)
	checkStored(t, "without track or end card", `{"music":false,"broll":true,"hookTitle":false,"progressBar":false,"brandFrame":false,"keywordEmphasis":false}`,
		render.Options{Broll: true}, fromOptions, toOptions)
	checkStored(t, "with a layout", `{"music":false,"broll":false,"hookTitle":false,"progressBar":false,"brandFrame":false,"keywordEmphasis":false,"layout":"split"}`,
		render.Options{Layout: render.LayoutSplit}, fromOptions, toOptions)
	checkStored(t, "with the profanity filter", `{"music":false,"broll":false,"hookTitle":false,"progressBar":false,"brandFrame":false,"keywordEmphasis":false,"layout":"auto","censor":"mute"}`,
		render.Options{Layout: render.LayoutAuto, Censor: censor.Mute}, fromOptions, toOptions)
}

func TestStoredExports(t *testing.T) {
	checkStored(t, "an export", `{"format":"fcpxml","key":"orgs/o/clips/renders/r.fcpxml"}`,
		render.Export{Format: render.ExportFCPXML, Key: "orgs/o/clips/renders/r.fcpxml"},
		func(r exportRecord) render.Export { return render.Export(r) }, func(e render.Export) exportRecord { return exportRecord(e) })
}

// The sub-scores, reasons, prompt match and weights round-trip; rows
// without them read as before (the tests above).
func TestStoredScoresAndMatch(t *testing.T) {
	checkStored(t, "analysis with a prompt", `{"contentType":"story","suggestedFormat":"portrait","suggestedStyle":"bold","engine":"local","scoreWeights":{"hook":0.3,"flow":0.25,"value":0.2,"trend":0.25},"prompt":"cars"}`,
		moments.Analysis{ContentType: "story", SuggestedFormat: "portrait", SuggestedStyle: "bold", Engine: "local",
			ScoreWeights: moments.ScoreWeights{Hook: 0.3, Flow: 0.25, Value: 0.2, Trend: 0.25}, Prompt: "cars"},
		analysisRecord.domain, analysisRec)
	want := []moments.Clip{{ID: "c-1", Title: "t", Start: 1, End: 20, Hook: "h", Category: "story", ViralScore: 55, HookStrength: "low", Mood: "calm",
		Scores: moments.Scores{Hook: 0, Flow: 100, Value: 100, Trend: 40}, Reasons: []string{"opens without a hook: 'We drove the car.'"},
		Match: &moments.Match{Matched: true, Terms: []string{"car"}, Quote: "We drove the car."}}}
	checkStored(t, "clips with scores", `[{"id":"c-1","title":"t","startTime":1,"endTime":20,"hook":"h","category":"story","viralScore":55,"hookStrength":"low","platformFit":null,"mood":"calm","keywords":null,"features":{"hook":0,"selfContained":0,"salience":0,"emotion":0,"pace":0,"length":0,"energy":0,"peaks":0,"scenes":0},"scores":{"hook":0,"flow":100,"value":100,"trend":40},"reasons":["opens without a hook: 'We drove the car.'"],"match":{"matched":true,"terms":["car"],"quote":"We drove the car."}}]`,
		want, func(rs []clipRecord) []moments.Clip { return mapSlice(rs, clipRecord.domain) },
		func(cs []moments.Clip) []clipRecord { return mapSlice(cs, clipRec) })
}
