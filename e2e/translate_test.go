package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asticode/go-astisub"

	"hookline.dev/pkg/ai/chatmodel/chatfake"
	"hookline.dev/pkg/testkit"
)

// saving is a talk of eight sentences without punctuation (the sidecar's
// captions are lower case, as automatic captions are), 0.8 s apart: the
// sentences' spans are the runs of words between the pauses.
var saving = []talkLine{
	{"pay yourself first and move 10 percent to savings on payday", 0.8},
	{"the bank will not do it for you", 0.8},
	{"open a second account and call it the freedom fund", 0.8},
	{"every month the money goes there before rent", 0.8},
	{"after one year you will have more than you think", 0.8},
	{"my sister tried it and saved enough for a new car", 0.8},
	{"the secret is to never touch that account", 0.8},
	{"start today and thank yourself next year", 0.8},
}

// Captions in Spanish, through the gateway: the offline engine (no text
// provider is configured) translates each sentence of the clip, the SRT
// and the burned-in captions are Spanish, each caption stays inside its
// sentence's span of the transcript, and the render says how it was
// translated. An unsupported language is a 400 listing the supported
// ones, with nothing charged.
func TestCaptionsInSpanishThroughTheGateway(t *testing.T) {
	if _, err := exec.LookPath("apertium"); err != nil {
		testkit.Missing(t, "apertium is not installed (scripts/deps.sh translation)")
	}
	s := startStack(t)
	media, _ := speakTalk(t, saving)
	s.startClips("HOOKLINE_FETCH_ALLOW_HOSTS=127.0.0.1", "HOOKLINE_CLIPS_RENDER_HEIGHT=1280", "HOOKLINE_CLIPS_RENDER_PRESET=ultrafast")
	_, key := s.newOrg("pro")
	s.waitTotal(key, 500)

	p := s.must(201, "POST", "/api/v1/clips/projects", key, map[string]any{"video_site_url": media.URL + "/talk.mp4", "format": "portrait"})
	id := p["id"].(string)
	if got := s.waitProject(key, id); got["downloadStatus"] != "ready" {
		t.Fatalf("project %v", got)
	}
	c := s.must(200, "GET", "/api/v1/clips/projects/"+id, key, nil)["clips"].([]any)[0].(map[string]any)
	start, end := c["startTime"].(float64), c["endTime"].(float64)
	path := "/api/v1/clips/projects/" + id + "/renders"

	// Not a language any engine here translates into: 400, the supported
	// ones listed, nothing charged.
	st, b := s.do("POST", path, key, map[string]any{"clip_id": c["id"], "options": map[string]any{"captionLanguage": "xx"}})
	supported, _ := b["details"].(map[string]any)["supported"].([]any)
	if st != 400 || fieldOf(b, "options.captionLanguage") == nil || !slices.Contains(supported, any("es")) || !slices.Contains(supported, any("en")) {
		t.Fatalf("captionLanguage xx: %d %v", st, b)
	}
	t.Logf("supported: %v", supported)
	if st, b := s.do("POST", path, key, map[string]any{"clip_id": c["id"], "options": map[string]any{"captionLanguage": "spa"}}); st != 400 || fieldOf(b, "options.captionLanguage") == nil {
		t.Errorf("captionLanguage spa: %d %v", st, b)
	}
	s.waitTotal(key, 500)

	started := s.must(201, "POST", path, key, map[string]any{"clip_id": c["id"], "subtitle_style": "clean",
		"options": map[string]any{"captionLanguage": "es"}})
	rid := started["renders"].([]any)[0].(map[string]any)["id"].(string)
	r := s.waitRender(key, rid, 4*time.Minute)
	if r["status"] != "completed" || r["creditsCharged"] != float64(2) {
		t.Fatalf("render %v", r)
	}
	if o := r["options"].(map[string]any); o["captionLanguage"] != "es" {
		t.Errorf("options %v", o)
	}
	if tr := fmt.Sprint(r["captionTranslation"]); tr != "map[engine:apertium language:es quality:draft]" {
		t.Errorf("captionTranslation %s", tr)
	}
	s.waitTotal(key, 498)

	// The sentences' spans, from the transcript: runs of words within the
	// clip between pauses of 0.35 s or more.
	words, _, _ := s.transcriptOf(key, id)
	type span struct{ from, to float64 }
	var spans []span
	last := -1.0
	for _, w := range words {
		if w.deleted || w.end <= start || w.start >= end {
			continue
		}
		from, to := max(w.start, start)-start, min(w.end, end)-start
		if len(spans) == 0 || from-last >= 0.35 {
			spans = append(spans, span{from, to})
		} else {
			spans[len(spans)-1].to = to
		}
		last = to
	}
	if len(spans) < 3 {
		t.Fatalf("the clip %.2f–%.2f s holds %d sentences", start, end, len(spans))
	}

	dir := t.TempDir()
	mp4 := fetch(t, r["outputUrl"].(string), dir)
	var srt string
	for _, e := range r["exports"].([]any) {
		if x := e.(map[string]any); x["format"] == "srt" {
			srt = fetch(t, x["url"].(string), dir)
		}
	}
	f, err := os.Open(srt)
	if err != nil {
		t.Fatal(err)
	}
	subs, err := astisub.ReadFromSRT(f)
	_ = f.Close()
	if err != nil || len(subs.Items) < len(spans) {
		t.Fatalf("SRT: %v, %d cues for %d sentences", err, len(subs.Items), len(spans))
	}
	var text []string
	for _, it := range subs.Items {
		from, to := it.StartAt.Seconds(), it.EndAt.Seconds()
		in := slices.ContainsFunc(spans, func(sp span) bool { return from >= sp.from-0.01 && to <= sp.to+0.01 })
		if !in {
			t.Errorf("caption %q %.3f–%.3f s is not inside one sentence of %v", it.String(), from, to, spans)
		}
		text = append(text, it.String())
	}
	all := " " + strings.ToLower(strings.Join(text, " ")) + " "
	t.Logf("SRT: %s", all)
	// Spanish, not English: Apertium's words for the talk's, and none of
	// the English words it translates.
	spanish := 0
	for _, w := range []string{"primero", "por ciento", "banco", "cuenta", "dinero", "mes", "año", "hermana", "coche", "secreto", "hoy"} {
		if strings.Contains(all, w) {
			spanish++
		}
	}
	for _, w := range []string{" yourself ", " percent ", " bank ", " account ", " money ", " month ", " year ", " sister ", " secret ", " today "} {
		if strings.Contains(all, w) {
			t.Errorf("the captions keep the English %q", w)
		}
	}
	if spanish < 3 {
		t.Errorf("%d Spanish words in the captions %q", spanish, all)
	}

	// Burned in: the frame in the middle of each of three cues, its white
	// text read by tesseract, shows the cue's longest word.
	if _, err := exec.LookPath("tesseract"); err != nil {
		testkit.Missing(t, "tesseract is not installed (scripts/deps.sh unit-tools)")
	}
	read := 0
	for i, it := range subs.Items {
		if read == 3 {
			break
		}
		long := ""
		for _, w := range strings.Fields(it.String()) {
			if len([]rune(w)) > len([]rune(long)) {
				long = w
			}
		}
		if len([]rune(long)) < 5 {
			continue
		}
		at := (it.StartAt.Seconds() + it.EndAt.Seconds()) / 2
		png := filepath.Join(dir, fmt.Sprintf("cue%d.png", i))
		if out, err := exec.Command("ffmpeg", "-v", "error", "-ss", fmt.Sprintf("%.3f", at), "-i", mp4, "-frames:v", "1", png).CombinedOutput(); err != nil {
			t.Fatalf("ffmpeg: %v %s", err, out)
		}
		text := filepath.Join(dir, fmt.Sprintf("cue%d-text.png", i))
		whiteText(t, png, text)
		var stderr bytes.Buffer
		cmd := exec.Command("tesseract", text, "-", "-l", "eng", "--psm", "6")
		cmd.Stderr = &stderr
		cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("tesseract: %v %s", err, stderr.String())
		}
		read++
		// tesseract's English model reads accents loosely: the word's
		// letters without them.
		plain := strings.NewReplacer("á", "a", "é", "e", "í", "i", "ó", "o", "ú", "u", "ñ", "n")
		if got := strings.ToLower(plain.Replace(string(out))); !strings.Contains(got, strings.ToLower(plain.Replace(strings.Trim(long, ".,")))) {
			t.Errorf("frame %s at %.2f s (cue %q): tesseract read %q", png, at, it.String(), out)
		}
	}
	if read == 0 {
		t.Error("no cue with a word of five letters or more")
	}
	// To look at the frames: HOOKLINE_KEEP_FRAMES=<a directory>.
	if keep := os.Getenv("HOOKLINE_KEEP_FRAMES"); keep != "" {
		if out, err := exec.Command("cp", "-r", dir+"/.", keep).CombinedOutput(); err != nil {
			t.Errorf("keeping the frames: %v %s", err, out)
		}
	}
}

// whiteText writes the bottom third of the frame in src, where the
// captions are, as black text on white: the near-white pixels (the
// captions' letters) black, everything else (the test pattern, the
// caption box) white, which tesseract reads.
func whiteText(t *testing.T, src, dst string) {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	_ = f.Close()
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	top := b.Min.Y + b.Dy()*2/3
	out := image.NewGray(image.Rect(0, 0, b.Dx(), b.Max.Y-top))
	for y := top; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			v := uint8(255)
			if min(r, g, bl) > 215*257 {
				v = 0
			}
			out.SetGray(x-b.Min.X, y-top, color.Gray{Y: v})
		}
	}
	w, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Close() }()
	if err := png.Encode(w, out); err != nil {
		t.Fatal(err)
	}
}

// Captions by the text provider, through the gateway: with a chat model
// configured (the vendor contract's fake, which answers the translation
// requests by upper-casing each sentence, and nothing else), French,
// which no Apertium pair here has, is accepted and translated by the
// provider sentence by sentence inside the sentences' spans; when the
// provider fails, Spanish falls back to Apertium and the notes say so.
func TestCaptionsByTheTextProviderThroughTheGateway(t *testing.T) {
	if _, err := exec.LookPath("apertium"); err != nil {
		testkit.Missing(t, "apertium is not installed (scripts/deps.sh translation)")
	}
	var down atomic.Bool
	fake := chatfake.New(t, "sk-text")
	line := regexp.MustCompile(`(?m)^(\d+): (.*)$`)
	fake.Default = func(c chatfake.Call) chatfake.Reply {
		if !strings.Contains(c.System, "translate") || down.Load() {
			return chatfake.Reply{Status: 503, Content: "overloaded"}
		}
		var out []map[string]any
		for _, m := range line.FindAllStringSubmatch(c.User, -1) {
			id, _ := strconv.Atoi(m[1])
			out = append(out, map[string]any{"id": id, "text": strings.ToUpper(m[2])})
		}
		b, _ := json.Marshal(map[string]any{"sentences": out})
		return chatfake.Reply{Content: string(b)}
	}
	s := startStack(t)
	media, _ := speakTalk(t, saving)
	s.startClips("HOOKLINE_FETCH_ALLOW_HOSTS=127.0.0.1", "HOOKLINE_CLIPS_RENDER_HEIGHT=1280", "HOOKLINE_CLIPS_RENDER_PRESET=ultrafast",
		"HOOKLINE_TEXT_PROVIDER=openai", "HOOKLINE_TEXT_BASE_URL="+fake.URL, "HOOKLINE_TEXT_API_KEY=sk-text")
	_, key := s.newOrg("pro")
	s.waitTotal(key, 500)
	p := s.must(201, "POST", "/api/v1/clips/projects", key, map[string]any{"video_site_url": media.URL + "/talk.mp4", "format": "portrait"})
	id := p["id"].(string)
	if got := s.waitProject(key, id); got["downloadStatus"] != "ready" {
		t.Fatalf("project %v", got)
	}
	c := s.must(200, "GET", "/api/v1/clips/projects/"+id, key, nil)["clips"].([]any)[0].(map[string]any)
	start := c["startTime"].(float64)
	path := "/api/v1/clips/projects/" + id + "/renders"
	render := func(lang string) map[string]any {
		started := s.must(201, "POST", path, key, map[string]any{"clip_id": c["id"], "options": map[string]any{"captionLanguage": lang, "hookTitle": true}})
		r := s.waitRender(key, started["renders"].([]any)[0].(map[string]any)["id"].(string), 4*time.Minute)
		if r["status"] != "completed" {
			t.Fatalf("render %v", r)
		}
		return r
	}

	r := render("fr")
	if tr := fmt.Sprint(r["captionTranslation"]); tr != "map[engine:provider language:fr quality:fluent]" {
		t.Errorf("captionTranslation %s", tr)
	}
	// The provider was given the clip's sentences, the number to keep and
	// the hook title (the last sentence).
	var asked string
	for _, call := range fake.Calls() {
		if strings.Contains(call.System, "translate") {
			asked = call.User
		}
	}
	hook := c["hook"].(string)
	if !strings.Contains(asked, "From English into French") || !strings.Contains(asked, "keep as written: 10") ||
		!regexp.MustCompile(`(?m)^\d+: `+regexp.QuoteMeta(hook)+`$`).MatchString(asked) {
		t.Errorf("the provider was asked %q", asked)
	}
	words, _, _ := s.transcriptOf(key, id)
	dir := t.TempDir()
	var srt string
	for _, e := range r["exports"].([]any) {
		if x := e.(map[string]any); x["format"] == "srt" {
			srt = fetch(t, x["url"].(string), dir)
		}
	}
	subs, err := astisub.OpenFile(srt)
	if err != nil || len(subs.Items) < 3 {
		t.Fatalf("SRT: %v %v", err, subs)
	}
	for _, it := range subs.Items {
		text := it.String()
		if text != strings.ToUpper(text) {
			t.Errorf("cue %q is not the provider's", text)
		}
		// Inside the span of the sentence whose words it upper-cases.
		from, to := it.StartAt.Seconds()+start, it.EndAt.Seconds()+start
		first := strings.Fields(strings.ToLower(text))[0]
		var sentence []tWord
		for i, w := range words {
			if i > 0 && w.start-words[i-1].end >= 0.35 {
				if from >= sentence[0].start-0.01 && to <= sentence[len(sentence)-1].end+0.01 {
					break
				}
				sentence = nil
			}
			sentence = append(sentence, w)
		}
		if !slices.ContainsFunc(sentence, func(w tWord) bool { return w.text == first }) {
			t.Errorf("cue %q %.2f–%.2f s lies in no sentence that says %q", text, from, to, first)
		}
	}

	down.Store(true)
	r = render("es")
	if tr := fmt.Sprint(r["captionTranslation"]); tr != "map[engine:apertium language:es quality:draft]" {
		t.Errorf("with the provider down: captionTranslation %s", tr)
	}
	if notes := fmt.Sprint(r["notes"]); !strings.Contains(notes, "captionLanguage: translated by apertium") {
		t.Errorf("notes %s", notes)
	}
	s.waitTotal(key, 496)
}
