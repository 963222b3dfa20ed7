package ffrender_test

import (
	"bytes"
	"context"
	"image"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"hookline.dev/pkg/media/vision"
	"hookline.dev/pkg/media/vision/dlib"
	"hookline.dev/pkg/testkit"
	"hookline.dev/services/clips/internal/captions"
	"hookline.dev/services/clips/internal/facetrack"
	"hookline.dev/services/clips/internal/ffrender"
	"hookline.dev/services/clips/internal/media"
	"hookline.dev/services/clips/internal/mediatest"
	"hookline.dev/services/clips/internal/render"
)

// talkLines are a two-person exchange; the astronaut speaks the even
// lines, the man of pigo's sample photo the odd ones.
var talkLines = []string{
	"Welcome back to the show. Today we talk about rockets and the people who fly them.",
	"Thanks for having me. I have wanted to talk about this for years.",
	"So tell me, what does a launch feel like from the inside of the cabin?",
	"It shakes a lot at first, and then it suddenly becomes very smooth and quiet.",
	"And what did you see when you first looked back at the earth?",
	"A thin blue line of air, and it made me think about how small we are.",
}

// talks are the conversations made so far, by pause: the tests only read
// them, so each is made once a test binary (TestMain removes them).
var talks sync.Map // pause → *madeTalk

type madeTalk struct {
	once    sync.Once
	dir     string
	talk    mediatest.Conversation
	samples *facetrack.Samples
}

// twoPersonTalk returns the talk of talkLines with two real photographs,
// pause seconds after each line (0: the default), and its faces, mouths
// and loudness sampled as its preparation samples them (media.Analyze
// with r's detector and model's landmarks), both made on first use. A
// render given the samples tracks from them rather than decoding the
// clip and finding its faces again, the render's costliest part here;
// TestPreparedSamplesStandForTracking shows that both ways give the same
// crop path.
func twoPersonTalk(t *testing.T, r *ffrender.Renderer, model *dlib.Model, pause float64) (mediatest.Conversation, *facetrack.Samples) {
	t.Helper()
	v, _ := talks.LoadOrStore(pause, &madeTalk{})
	m := v.(*madeTalk)
	m.once.Do(func() {
		sample, _, err := image.Decode(bytes.NewReader(testkit.FacePhoto(t)))
		if err != nil {
			t.Fatal(err)
		}
		if m.dir, err = os.MkdirTemp("", "ffrender-talk"); err != nil {
			t.Fatal(err)
		}
		talk := mediatest.TwoPersonTalk(t, m.dir, mediatest.TalkSpec{Faces: model, Lines: talkLines, Pause: pause,
			Talkers: [2]mediatest.Talker{{Photo: testkit.EvalPhoto(t, "astronaut.png"), Voice: "en-us+f3"}, {Photo: sample, Voice: "en-us+m3"}}})
		tools := media.Tools{Faces: &facetrack.Sampler{Faces: r.Faces, Landmarks: model}}
		sig, err := tools.Analyze(context.Background(), talk.File, probe(t, talk.File), nil)
		if err != nil {
			t.Fatal(err)
		}
		if sig.Faces == nil || len(sig.Faces.Frames) < int(talk.Seconds*facetrack.FPS)-1 || len(sig.Faces.Loudness) < len(sig.Faces.Frames)-1 {
			t.Fatalf("preparation sampled %+v for %.1f s", sig.Faces, talk.Seconds)
		}
		m.talk, m.samples = talk, sig.Faces
	})
	if m.talk.File == "" || m.samples == nil {
		t.Fatal("the talk could not be made (see the first test that asked for it)")
	}
	return m.talk, m.samples
}

func TestMain(m *testing.M) {
	code := m.Run()
	talks.Range(func(_, v any) bool {
		if d := v.(*madeTalk).dir; d != "" {
			_ = os.RemoveAll(d)
		}
		return true
	})
	os.Exit(code)
}

func speakerRenderer(t *testing.T) (*ffrender.Renderer, *dlib.Model) {
	t.Helper()
	det, err := vision.New()
	if err != nil {
		t.Fatal(err)
	}
	model, err := dlib.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(model.Close)
	return &ffrender.Renderer{Faces: det, Landmarks: model, Preset: "ultrafast"}, model
}

func centreX(r image.Rectangle) float64 { return float64(r.Min.X+r.Max.X) / 2 }

// TestCropFollowsTheSpeaker: two photographs side by side take turns to
// speak, each mouth moving with its own voice; under the speaker layout
// the crop holds the face that is speaking in ≥ 90 % of the samples
// where someone speaks, and never the other face alone for long.
func TestCropFollowsTheSpeaker(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the 30 s two-person talk and looks for faces with dlib in its frames: make test runs it; " +
			"TestPreparedSamplesStandForTracking renders the talk under the speaker layout under -short too")
	}
	mediatest.Require(t)
	dir := t.TempDir()
	r, model := speakerRenderer(t)
	talk, samples := twoPersonTalk(t, r, model, 0)
	job := ffrender.Job{Source: talk.File, SrcW: 1280, SrcH: 720, HasAudio: true, Start: 0, End: talk.Seconds, Width: 540, Height: 960,
		Dir: filepath.Join(dir, "speaker"), Layout: render.LayoutSpeaker, Samples: samples,
		Text: captions.Spec{Style: captions.Bold, Words: words("what does a launch feel like from the inside", 0.5, 0.4), Hook: "What a launch feels like", HookSeconds: 3}}
	res := renderJob(t, r, job)
	cw := 720 * 9 / 16
	speaking, followed := 0, 0
	for _, p := range res.Crop {
		who := talk.SpeakerAt(p.T)
		if who < 0 {
			continue
		}
		speaking++
		if c := centreX(talk.Faces[who]); c >= float64(p.X) && c <= float64(p.X+cw) {
			followed++
		}
		if p.Halves != nil {
			t.Fatalf("the speaker layout split the frame at %.2f s", p.T)
		}
	}
	t.Logf("the crop held the speaking face in %d of %d samples with speech", followed, speaking)
	if speaking < 40 || float64(followed) < 0.9*float64(speaking) {
		t.Errorf("the crop held the speaking face in %d of %d samples, want ≥ 90 %%", followed, speaking)
	}
	// The stills show each speaker in turn.
	for k, tn := range talk.Turns[:2] {
		img := still(t, res.Output, (tn.Start+tn.End)/2)
		faces := model.Detect(img)
		if len(faces) != 1 {
			t.Errorf("turn %d: %d faces in the frame, want the speaker's alone", k, len(faces))
		}
	}
	frame(t, res.Output, 1.2, "speaker-first")
	frame(t, res.Output, (talk.Turns[1].Start+talk.Turns[1].End)/2, "speaker-second")
}

// TestSplitKeepsBothFaces: with the split layout both faces are in frame
// throughout, one in each half, found by dlib in frames of the MP4; the
// captions and the hook leave their eyes and mouths clear.
func TestSplitKeepsBothFaces(t *testing.T) {
	if testing.Short() {
		t.Skip("looks for faces with dlib in a frame of every second of a 30 s split render, a render and tens of detections: make test runs it")
	}
	mediatest.Require(t)
	dir := t.TempDir()
	r, model := speakerRenderer(t)
	talk, samples := twoPersonTalk(t, r, model, 0)
	job := ffrender.Job{Source: talk.File, SrcW: 1280, SrcH: 720, HasAudio: true, Start: 0, End: talk.Seconds, Width: 540, Height: 960,
		Dir: filepath.Join(dir, "split"), Layout: render.LayoutSplit, Samples: samples,
		Text: captions.Spec{Style: captions.Energetic, Words: words("a thin blue line of air made me think about how small we are", 0.3, 0.45),
			Hook: "What astronauts see from orbit", HookSeconds: 3}}
	res := renderJob(t, r, job)
	for _, p := range res.Crop {
		if len(p.Halves) != 2 {
			t.Fatalf("no split at %.2f s", p.T)
		}
	}
	var secs []float64
	for sec := 0.25; sec < talk.Seconds-0.3; sec += 1 {
		secs = append(secs, sec)
	}
	for k, img := range stills(t, res.Output, secs) {
		sec := secs[k]
		var top, bottom int
		for _, f := range model.Detect(img) {
			if f.Rect.Max.Y <= 480 {
				top++
			} else if f.Rect.Min.Y >= 480 {
				bottom++
			}
		}
		if top != 1 || bottom != 1 {
			t.Errorf("at %.2f s: %d faces in the top half and %d in the bottom, want one each", sec, top, bottom)
		}
	}
	frame(t, res.Output, 1.5, "split-hook")
	frame(t, res.Output, 4, "split-captions")
}
