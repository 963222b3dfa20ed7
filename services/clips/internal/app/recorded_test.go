package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"hookline.dev/pkg/ai/nlp"
	"hookline.dev/pkg/media/videosite"
	"hookline.dev/services/clips/internal/mediatest"
	"hookline.dev/services/clips/internal/moments"
)

// recordedTalk is a talk of real speech, 1 min 55 s: Asterisk's recorded
// prompts, one after another, walking a new user through the telephone
// exchange — the installed demo, setting up voicemail step by step
// (first the name, then the messages, what each key does), the directory
// and an echo test — a tutorial.
var recordedTalk = []string{"demo-congrats", "vm-newuser", "vm-rec-name", "vm-rec-unv", "vm-msginstruct",
	"vm-forward-multiple", "dir-intro", "demo-echotest", "demo-thanks"}

// token is a word of the recognised transcript as nlp tokenises it, with
// the confidence of the word it is part of.
type token struct {
	text string
	conf float64
}

func tokens(segs []videosite.Segment) []token {
	var out []token
	for _, s := range segs {
		for _, w := range s.Words {
			for _, t := range nlp.Tokens(w.Text) {
				out = append(out, token{t, w.Confidence})
			}
		}
	}
	return out
}

// heardSurely reports whether phrase's words are a run of the transcript's
// words, every one heard with at least moments.MinConfidence.
func heardSurely(words []token, phrase string) bool {
	want := nlp.Tokens(strings.TrimSuffix(phrase, "…"))
	if len(want) == 0 {
		return false
	}
	for i := 0; i+len(want) <= len(words); i++ {
		ok := true
		for j, w := range want {
			if words[i+j].text != w || words[i+j].conf < moments.MinConfidence {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// TestRecordedTalkIsBuiltOnWhatWasSaid: a project of a real recording
// longer than a minute, without captions, is prepared by the default
// recogniser (Moonshine) with progress a client sees move through
// transcription; the transcript is the talk's (word error rate ≤ 10 %)
// and of high quality; every clip's title and hook is a phrase of the
// talk, each of its words heard with confidence; the content type is a
// tutorial (first, then, next, guide, add, remove: the steps of a
// set-up).
func TestRecordedTalkIsBuiltOnWhatWasSaid(t *testing.T) {
	h := newHarness(t)
	h.worker()
	eval := mediatest.SpeechEvalDir(t)
	all := mediatest.Prompts(t, eval, 1)
	var talk []mediatest.Prompt
	for _, name := range recordedTalk {
		i := slices.IndexFunc(all, func(p mediatest.Prompt) bool { return p.Name == name })
		if i < 0 {
			t.Fatalf("no prompt %s", name)
		}
		talk = append(talk, all[i])
	}
	dir := t.TempDir()
	wav, spans := mediatest.RecordedTalk(t, eval, dir, talk, 1.2)
	if length := spans[len(spans)-1].End; length < 60 {
		t.Fatalf("the talk lasts %.0f s, want a minute at least", length)
	}
	// What is said is under test, not the picture: a still one (its faces
	// searched once and copied, no motion to decode) of a small size.
	file := mediatest.Video(t, dir, mediatest.VideoSpec{Width: 320, Height: 180, Audio: wav,
		Scenes: []mediatest.Scene{{Colour: "navy", Seconds: spans[len(spans)-1].End + 1}}})
	url := h.media.put(t, file, "recorded.mp4")
	org := uuid.NewString()
	var p project
	h.Must(http.StatusCreated, http.MethodPost, "/clips/projects", org, map[string]string{"video_site_url": url}).Into(t, &p)
	ready, seen := h.watch(org, p.ID, 5*time.Minute)
	if ready.DownloadStatus != "ready" || ready.Transcript == nil || *ready.Transcript != "recognition" || len(ready.Clips) == 0 {
		t.Fatalf("prepared %+v", ready)
	}

	// Progress: never back, several figures within transcription, 100 at
	// the end.
	within := map[int]bool{}
	for i, m := range seen {
		if i > 0 && m.progress < seen[i-1].progress {
			t.Errorf("progress went back: %v", seen)
		}
		if m.step == "transcribing" && m.progress > 25 && m.progress < 70 {
			within[m.progress] = true
		}
	}
	if len(within) < 2 || seen[len(seen)-1] != (mark{"done", 100}) {
		t.Errorf("progress seen %v: want it to move during transcription and end at 100", seen)
	}
	t.Logf("steps and progress seen: %v", seen)

	var raw []byte
	if err := h.Pool.QueryRow(context.Background(), `SELECT segments FROM sources`).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	var segs []videosite.Segment
	if err := json.Unmarshal(raw, &segs); err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, s := range spans {
		said = append(said, nlp.Tokens(s.Text)...)
	}
	words := tokens(segs)
	heard := make([]string, len(words))
	for i, w := range words {
		heard[i] = w.text
	}
	var doubts []string
	for _, seg := range segs {
		for _, w := range seg.Words {
			if w.Confidence < moments.MinConfidence {
				doubts = append(doubts, fmt.Sprintf("%s (%.2f at %.1f s)", w.Text, w.Confidence, w.Start))
			}
		}
	}
	t.Logf("%d of %d words heard with less confidence than %.2f: %s", len(doubts), len(words), moments.MinConfidence, strings.Join(doubts, ", "))
	if wer := float64(mediatest.WordEdits(said, heard)) / float64(max(1, len(said))); wer > 0.1 {
		t.Errorf("word error rate %.1f %%: heard %q", 100*wer, strings.Join(heard, " "))
	}
	if ready.Analysis.TranscriptQuality != moments.QualityHigh {
		t.Errorf("transcriptQuality %q, want high", ready.Analysis.TranscriptQuality)
	}
	if ready.Analysis.ContentType != string(nlp.Tutorial) {
		t.Errorf("content type %q, want tutorial", ready.Analysis.ContentType)
	}
	for _, c := range ready.Clips {
		if !heardSurely(words, c.Title) {
			t.Errorf("clip title %q is not a phrase of the talk heard with confidence", c.Title)
		}
		if !heardSurely(words, c.Hook) {
			t.Errorf("clip hook %q is not a phrase of the talk heard with confidence", c.Hook)
		}
		t.Logf("clip %.0f–%.0f s %s: %q / hook %q, keywords %v", c.StartTime, c.EndTime, c.Category, c.Title, c.Hook, c.Keywords)
	}
}
