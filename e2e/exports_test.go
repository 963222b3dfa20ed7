package e2e

import (
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/asticode/go-astisub"
)

// spokenWord is a word of a synthesised talk and where it is in the
// source, seconds.
type spokenWord struct {
	start, end float64
	text       string
}

// swearing is a talk with four words of the built-in profanity list
// (LDNOOBW: shit, bastard, bitch, fuck) and one made-up word (zorbly)
// an organization adds, spread so that any 15 s window holds two or more;
// the 1.2 s pauses give removeSilences something to cut.
var swearing = []talkLine{
	{"welcome back everyone this is the unboxing", 0.4},
	{"we opened the box and found nothing but shit inside", 1.2},
	{"the courier was a bastard about the whole refund", 0.4},
	{"honestly what a bitch of a week it has been", 1.2},
	{"so we wrote to zorbly the company and waited", 0.4},
	{"they admitted the fuck up was theirs", 0.4},
	{"and they sent a new one the next day", 0.4},
	{"that is the story of the broken camera", 0.5},
}

// listedWords are the talk's words the render must censor, and their
// masks.
var listedWords = map[string]string{"shit": "s***", "bastard": "b******", "bitch": "b****", "fuck": "f***", "zorbly": "z*****"}

const talkRate = 16000

// talkLine is a line of a synthesised talk and the pause after it.
type talkLine struct {
	text  string
	pause float64
}

// swearTalk is the swearing talk (speakTalk).
func swearTalk(t *testing.T) (*httptest.Server, []spokenWord) { return speakTalk(t, swearing) }

// speakTalk speaks lines with espeak-ng a word at a time (each word
// cut to its sound), so that every word's timing is known exactly, over a
// plain 1280x720 picture, and serves it with a WebVTT sidecar whose cues
// carry those timings as inline word timestamps (as automatic captions
// do).
func speakTalk(t *testing.T, lines []talkLine) (*httptest.Server, []spokenWord) {
	t.Helper()
	dir := t.TempDir()
	cache := map[string][]int16{}
	speak := func(word string) []int16 {
		if pcm, ok := cache[word]; ok {
			return pcm
		}
		wav := filepath.Join(dir, "word.wav")
		if out, err := exec.Command("espeak-ng", "-v", "en-us", "-s", "165", "-w", wav, word).CombinedOutput(); err != nil {
			t.Fatalf("espeak-ng: %v %s", err, out)
		}
		raw, err := exec.Command("ffmpeg", "-v", "error", "-i", wav, "-ac", "1", "-ar", strconv.Itoa(talkRate), "-f", "s16le", "-").Output()
		if err != nil {
			t.Fatalf("ffmpeg: %v", err)
		}
		pcm := make([]int16, len(raw)/2)
		for i := range pcm {
			pcm[i] = int16(binary.LittleEndian.Uint16(raw[2*i:])) //nolint:gosec // G115: a sample's bits
		}
		from, to := 0, len(pcm)
		quiet := func(v int16) bool { return v > -300 && v < 300 }
		for from < to && quiet(pcm[from]) {
			from++
		}
		for to > from && quiet(pcm[to-1]) {
			to--
		}
		cache[word] = pcm[from:to]
		return cache[word]
	}
	var pcm []int16
	var words []spokenWord
	var vtt strings.Builder
	vtt.WriteString("WEBVTT\n\n")
	stamp := func(s float64) string {
		ms := int(math.Round(s * 1000))
		return fmt.Sprintf("%02d:%02d:%02d.%03d", ms/3600000, ms/60000%60, ms/1000%60, ms%1000)
	}
	pcm = append(pcm, make([]int16, talkRate/2)...)
	for _, p := range lines {
		first := len(words)
		for k, w := range strings.Fields(p.text) {
			if k > 0 {
				pcm = append(pcm, make([]int16, talkRate*5/100)...)
			}
			start := float64(len(pcm)) / talkRate
			pcm = append(pcm, speak(w)...)
			words = append(words, spokenWord{start: start, end: float64(len(pcm)) / talkRate, text: w})
		}
		line := words[first:]
		fmt.Fprintf(&vtt, "%s --> %s\n%s", stamp(line[0].start), stamp(line[len(line)-1].end), line[0].text)
		for _, w := range line[1:] {
			fmt.Fprintf(&vtt, "<%s><c> %s</c>", stamp(w.start), w.text)
		}
		vtt.WriteString("\n\n")
		pcm = append(pcm, make([]int16, int(p.pause*talkRate))...)
	}
	raw := filepath.Join(dir, "talk.pcm")
	buf := new(bytes.Buffer)
	if err := binary.Write(buf, binary.LittleEndian, pcm); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(raw, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	length := fmt.Sprintf("%.3f", float64(len(pcm))/talkRate)
	ff := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=25:d="+length,
		"-f", "s16le", "-ar", strconv.Itoa(talkRate), "-ac", "1", "-i", raw,
		"-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-t", length, filepath.Join(dir, "talk.mp4"))
	if out, err := ff.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "talk.vtt"), []byte(vtt.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	return srv, words
}

// edlEvent is a cut event of a CMX 3600 list, in frames.
type edlEvent struct{ srcIn, srcOut, recIn, recOut int }

var edlLine = regexp.MustCompile(`^(\d{3})\s+(\S+)\s+(\S+)\s+C\s+(\d\d:\d\d:\d\d:\d\d) (\d\d:\d\d:\d\d:\d\d) (\d\d:\d\d:\d\d:\d\d) (\d\d:\d\d:\d\d:\d\d)\s*$`)

// readEDL reads the cut events of a CMX 3600 list at fps (no published
// Go reader of the format is available to this project: this reads the
// fixed columns the standard defines).
func readEDL(t *testing.T, file string, fps int) []edlEvent {
	t.Helper()
	b, err := os.ReadFile(file) //nolint:gosec // G304: the test's own download
	if err != nil {
		t.Fatal(err)
	}
	tc := func(s string) int {
		var h, m, sec, f int
		if _, err := fmt.Sscanf(s, "%d:%d:%d:%d", &h, &m, &sec, &f); err != nil || f >= fps {
			t.Fatalf("EDL timecode %q", s)
		}
		return ((h*60+m)*60+sec)*fps + f
	}
	var out []edlEvent
	for _, line := range strings.Split(string(b), "\n") {
		if m := edlLine.FindStringSubmatch(line); m != nil {
			out = append(out, edlEvent{srcIn: tc(m[4]), srcOut: tc(m[5]), recIn: tc(m[6]), recOut: tc(m[7])})
		}
	}
	return out
}

// videoSeconds is the duration of file's video stream.
func videoSeconds(t *testing.T, file string) float64 {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=duration", "-of", "csv=p=0", file).Output()
	if err != nil {
		t.Fatal(err)
	}
	d, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil {
		t.Fatalf("duration %q: %v", out, err)
	}
	return d
}

// audio16k is the audio of file, mono at talkRate, in [-1, 1].
func audio16k(t *testing.T, file string) []float64 {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", file, "-ac", "1", "-ar", strconv.Itoa(talkRate), "-f", "s16le", "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	pcm := make([]float64, len(out)/2)
	for i := range pcm {
		pcm[i] = float64(int16(binary.LittleEndian.Uint16(out[2*i:]))) / 32768 //nolint:gosec // G115: a sample's bits
	}
	return pcm
}

// toneShare is the share of the energy of pcm's from..to at 1 kHz (the
// Goertzel filter's power against the stretch's energy; 1 for a pure
// 1 kHz sine).
func toneShare(pcm []float64, from, to float64) float64 {
	a, b := max(0, int(from*talkRate)), min(len(pcm), int(to*talkRate))
	if b <= a {
		return 0
	}
	coeff := 2 * math.Cos(2*math.Pi*1000/talkRate)
	var s1, s2, energy float64
	for _, v := range pcm[a:b] {
		s1, s2 = v+coeff*s1-s2, s1
		energy += v * v
	}
	if energy == 0 {
		return 0
	}
	return (s1*s1 + s2*s2 - coeff*s1*s2) * 2 / (float64(b-a) * energy)
}

// A render with censor bleep and jump cuts, through the gateway: the
// organization's own word joins the built-in list (another organization
// does not see it); the render lists its exports beside the MP4, served
// the same way; the SRT and WebVTT parse with go-astisub and with
// ffmpeg, agree, fit in the MP4 and mask every listed word; the EDL's
// pieces add up to the MP4's length (±1 frame) and the FCPXML, read with
// encoding/xml, holds the same pieces and the crop path's keyframes; and,
// finding each word in the MP4 through the EDL's source-to-record
// mapping, every listed word is a 1 kHz tone and the others are not.
func TestRenderExportsAndCensorThroughTheGateway(t *testing.T) {
	s := startStack(t)
	media, words := swearTalk(t)
	s.startClips("HOOKLINE_FETCH_ALLOW_HOSTS=127.0.0.1", "HOOKLINE_CLIPS_RENDER_HEIGHT=1280", "HOOKLINE_CLIPS_RENDER_PRESET=ultrafast")
	_, key := s.newOrg("pro")
	_, other := s.newOrg("pro")
	s.waitTotal(key, 500)

	set := s.must(200, "PUT", "/api/v1/clips/censor-words", key, map[string]any{"words": []string{"Zorbly"}})
	if w, _ := set["words"].([]any); len(w) != 1 || w[0] != "zorbly" {
		t.Fatalf("PUT censor-words: %v", set)
	}
	if got := s.must(200, "GET", "/api/v1/clips/censor-words", other, nil); len(got["words"].([]any)) != 0 {
		t.Errorf("another organization sees %v", got["words"])
	}
	if st, b := s.do("PUT", "/api/v1/clips/censor-words", key, map[string]any{"words": []string{"a b c d e f"}}); st != 400 || fieldOf(b, "words") == nil {
		t.Errorf("a six-word entry: %d %v", st, b)
	}

	p := s.must(201, "POST", "/api/v1/clips/projects", key, map[string]any{"video_site_url": media.URL + "/talk.mp4", "format": "portrait"})
	id := p["id"].(string)
	if got := s.waitProject(key, id); got["downloadStatus"] != "ready" {
		t.Fatalf("project %v", got)
	}
	c := p["clips"].([]any)[0].(map[string]any)
	start, end := c["startTime"].(float64), c["endTime"].(float64)
	var inClip []spokenWord
	listedIn := 0
	for _, w := range words {
		if w.start >= start && w.end <= end {
			inClip = append(inClip, w)
			if listedWords[w.text] != "" {
				listedIn++
			}
		}
	}
	if listedIn < 2 {
		t.Fatalf("the clip %.2f–%.2f s holds %d listed words, want 2 or more", start, end, listedIn)
	}
	path := "/api/v1/clips/projects/" + id + "/renders"
	if st, b := s.do("POST", path, key, map[string]any{"clip_id": c["id"], "options": map[string]any{"censor": "beep"}}); st != 400 || fieldOf(b, "options.censor") == nil {
		t.Errorf("censor beep: %d %v", st, b)
	}
	started := s.must(201, "POST", path, key, map[string]any{"clip_id": c["id"], "subtitle_style": "clean",
		"options": map[string]any{"censor": "bleep", "removeSilences": true}})
	rid := started["renders"].([]any)[0].(map[string]any)["id"].(string)
	r := s.waitRender(key, rid, 4*time.Minute)
	if r["status"] != "completed" {
		t.Fatalf("render %v", r)
	}
	if o := r["options"].(map[string]any); o["censor"] != "bleep" {
		t.Errorf("options %v", o)
	}
	if st, _ := s.do("GET", "/api/v1/clips/renders/"+rid, other, nil); st != 404 {
		t.Errorf("another organization's render: %d", st)
	}

	dir := t.TempDir()
	mp4 := fetch(t, r["outputUrl"].(string), dir)
	files := map[string]string{}
	for _, e := range r["exports"].([]any) {
		x := e.(map[string]any)
		url := x["url"].(string)
		resp, err := http.Head(url) //nolint:gosec,noctx // the test's own MinIO
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != x["contentType"] {
			t.Errorf("%s: %d %q, want the contentType %q", url, resp.StatusCode, ct, x["contentType"])
		}
		if filepath.Dir(url) != filepath.Dir(r["outputUrl"].(string)) {
			t.Errorf("%s is not beside the MP4 %s", url, r["outputUrl"])
		}
		files[x["format"].(string)] = fetch(t, url, dir)
	}
	for _, f := range []string{"srt", "vtt", "fcpxml", "edl"} {
		if files[f] == "" {
			t.Fatalf("exports %v lack %s", r["exports"], f)
		}
	}
	duration := videoSeconds(t, mp4)
	const fps = 30

	// The captions, by a published parser of both formats and by ffmpeg.
	read := func(format string, parse func(*os.File) (*astisub.Subtitles, error)) *astisub.Subtitles {
		f, err := os.Open(files[format])
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = f.Close() }()
		subs, err := parse(f)
		if err != nil || len(subs.Items) == 0 {
			t.Fatalf("go-astisub reading the %s: %v (%d items)", format, err, len(subs.Items))
		}
		// ffmpeg reads it too: converted to SubRip, the same cues.
		var stderr bytes.Buffer
		cmd := exec.Command("ffmpeg", "-v", "error", "-i", files[format], "-f", "srt", "-")
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || stderr.Len() > 0 {
			t.Fatalf("ffmpeg reading the %s: %v %s", format, err, stderr.String())
		}
		again, err := astisub.ReadFromSRT(bytes.NewReader(out))
		if err != nil || len(again.Items) != len(subs.Items) || again.Items[len(again.Items)-1].EndAt != subs.Items[len(subs.Items)-1].EndAt {
			t.Errorf("ffmpeg read the %s as %d cues (%v), go-astisub as %d", format, len(again.Items), err, len(subs.Items))
		}
		return subs
	}
	srt := read("srt", func(f *os.File) (*astisub.Subtitles, error) { return astisub.ReadFromSRT(f) })
	vtt := read("vtt", func(f *os.File) (*astisub.Subtitles, error) { return astisub.ReadFromWebVTT(f) })
	if len(srt.Items) != len(vtt.Items) {
		t.Errorf("SRT %d cues, WebVTT %d", len(srt.Items), len(vtt.Items))
	}
	// A cue's text: its lines (go-astisub reads the blank line that ends
	// an SRT file as a last, empty line).
	cueText := func(it *astisub.Item) string {
		var lines []string
		for _, l := range it.Lines {
			if s := l.String(); strings.TrimSpace(s) != "" {
				lines = append(lines, s)
			}
		}
		return strings.Join(lines, "\n")
	}
	var masks []string
	for i, it := range srt.Items {
		text := cueText(it)
		if i < len(vtt.Items) && (vtt.Items[i].StartAt != it.StartAt || vtt.Items[i].EndAt != it.EndAt || cueText(vtt.Items[i]) != text) {
			t.Errorf("cue %d: SRT %v–%v %q, WebVTT %v–%v %q", i+1, it.StartAt, it.EndAt, text, vtt.Items[i].StartAt, vtt.Items[i].EndAt, cueText(vtt.Items[i]))
		}
		for _, tok := range strings.Fields(text) {
			if listedWords[strings.ToLower(tok)] != "" {
				t.Errorf("cue %d shows %q unmasked: %q", i+1, tok, text)
			}
			for _, m := range listedWords {
				if tok == m {
					masks = append(masks, tok)
				}
			}
		}
	}
	if last := srt.Items[len(srt.Items)-1].EndAt.Seconds(); last > duration+0.001 {
		t.Errorf("the last caption ends at %.3f s, after the MP4's %.3f s", last, duration)
	}
	if len(masks) != listedIn {
		t.Errorf("the SRT masks %v, want the clip's %d listed words", masks, listedIn)
	}

	// The cut: the EDL's pieces fill the MP4.
	events := readEDL(t, files["edl"], fps)
	if len(events) < 2 {
		t.Fatalf("the EDL has %d events; removeSilences should have cut the 1.2 s pauses", len(events))
	}
	rec := 0
	for i, e := range events {
		if e.recIn != rec || e.recOut-e.recIn != e.srcOut-e.srcIn || e.srcOut <= e.srcIn {
			t.Errorf("EDL event %d %+v does not follow on from %d or has unequal sides", i+1, e, rec)
		}
		rec = e.recOut
	}
	if d := float64(rec) / fps; math.Abs(d-duration) > 1.0/fps+1e-6 {
		t.Errorf("the EDL's pieces last %.3f s, the MP4 %.3f s (want ±1 frame)", d, duration)
	}
	removed := (end - start) - float64(rec)/fps
	if want := r["secondsRemoved"].(float64); math.Abs(removed-want) > 0.05 {
		t.Errorf("the EDL removes %.2f s of the clip, the render says %.2f", removed, want)
	}

	// The FCPXML, read with encoding/xml: the same pieces, and the crop
	// path of the portrait reframing as position keyframes.
	var doc struct {
		Version string `xml:"version,attr"`
		Seq     struct {
			Duration string `xml:"duration,attr"`
			Clips    []struct {
				Offset   string `xml:"offset,attr"`
				Start    string `xml:"start,attr"`
				Duration string `xml:"duration,attr"`
				Keys     []struct {
					Time  string `xml:"time,attr"`
					Value string `xml:"value,attr"`
				} `xml:"adjust-transform>param>keyframeAnimation>keyframe"`
			} `xml:"spine>asset-clip"`
		} `xml:"library>event>project>sequence"`
	}
	b, err := os.ReadFile(files["fcpxml"])
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("the FCPXML: %v", err)
	}
	frames := func(v string) int {
		if v == "0s" {
			return 0
		}
		var n, d int
		if _, err := fmt.Sscanf(v, "%d/%ds", &n, &d); err != nil || d != fps {
			t.Fatalf("FCPXML time %q", v)
		}
		return n
	}
	if doc.Version != "1.10" || frames(doc.Seq.Duration) != rec || len(doc.Seq.Clips) != len(events) {
		t.Fatalf("the FCPXML's sequence (version %s, %s, %d clips) is not the EDL's (%d frames, %d events)", doc.Version, doc.Seq.Duration, len(doc.Seq.Clips), rec, len(events))
	}
	keys := 0
	for i, cl := range doc.Seq.Clips {
		e := events[i]
		if frames(cl.Offset) != e.recIn || frames(cl.Start) != e.srcIn || frames(cl.Duration) != e.srcOut-e.srcIn {
			t.Errorf("FCPXML clip %d (%s, %s, %s) is not EDL event %+v", i+1, cl.Offset, cl.Start, cl.Duration, e)
		}
		for _, k := range cl.Keys {
			if f := frames(k.Time); f < e.srcIn || f >= e.srcOut {
				t.Errorf("clip %d's keyframe at %s is outside its source %d–%d", i+1, k.Time, e.srcIn, e.srcOut)
			}
			keys++
		}
	}
	if keys == 0 || r["cropPathUrl"] == nil {
		t.Errorf("a portrait render of a landscape source: %d crop keyframes, cropPathUrl %v", keys, r["cropPathUrl"])
	}

	// The bleeps, where the EDL says each word went.
	at := func(src float64) (float64, bool) {
		f := src * fps
		for _, e := range events {
			if f >= float64(e.srcIn) && f < float64(e.srcOut) {
				return (float64(e.recIn) + f - float64(e.srcIn)) / fps, true
			}
		}
		return 0, false
	}
	pcm := audio16k(t, mp4)
	for _, w := range inClip {
		from, ok1 := at(w.start + 0.03)
		to, ok2 := at(w.end - 0.03)
		if !ok1 || !ok2 || w.end-w.start < 0.2 {
			continue // cut, or too short to measure
		}
		share := toneShare(pcm, from, to)
		switch listed := listedWords[w.text] != ""; {
		case listed && share < 0.8:
			t.Errorf("%q (%.2f–%.2f s of the MP4): %.0f%% of its energy at 1 kHz, want the bleep", w.text, from, to, 100*share)
		case !listed && share > 0.3:
			t.Errorf("%q (%.2f–%.2f s of the MP4): %.0f%% of its energy at 1 kHz, not a listed word", w.text, from, to, 100*share)
		case listed:
			t.Logf("%q at %.2f–%.2f s of the MP4: %.0f%% of the energy at 1 kHz", w.text, from, to, 100*share)
		}
	}
	t.Logf("clip %.2f–%.2f s, MP4 %.3f s, %d pieces, %.2f s cut, masks %v", start, end, duration, len(events), removed, masks)
}
