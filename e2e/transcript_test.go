package e2e

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// brand is a made-up name the talk says; nothing spells it without the
// vocabulary.
const brand = "Brixley"

// talkLines are the talk: each sentence has a marker noun no other says,
// so what a caption file holds tells which sentences it kept.
var talkLines = []struct{ text, marker string }{
	{"Welcome back to the channel, today we are testing Brixley on a long trip.", "channel"},
	{"The first thing I noticed was the elephants painted on the box.", "elephants"},
	{"Brixley promised that the battery would last for a whole week.", "battery"},
	{"I packed it next to my bicycle and rode to the old lighthouse.", "lighthouse"},
	{"On the way a volcano tour guide asked me what it was.", "volcano"},
	{"I told him Brixley is a small speaker that floats on water.", "speaker"},
	{"We tried it in the harbour and the pancakes stall played music from it.", "pancakes"},
	{"The sound was clear even next to the noisy fishing boats.", "fishing"},
	{"By the evening the umbrella shop owner wanted one for herself.", "umbrella"},
	{"So here is my verdict on Brixley after seven long days.", "verdict"},
	{"It is loud, it is tough, and the battery really did last.", "tough"},
	{"The only problem is the price, which is far too high for most people.", "price"},
	{"Thanks for watching, and tell me in the comments what I should test next.", "comments"},
}

// speechTalk speaks talkLines with espeak-ng, each followed by 0.45 s of
// silence, over a plain 1280x720 picture, into an MP4 served with no
// captions: its words come from the worker's speech recogniser.
func speechTalk(t *testing.T) *httptest.Server {
	t.Helper()
	dir := t.TempDir()
	rate := 22050
	var pcm []byte
	for i, l := range talkLines {
		part := filepath.Join(dir, fmt.Sprintf("line-%02d.wav", i))
		if out, err := exec.Command("espeak-ng", "-v", "en-us", "-s", "160", "-w", part, l.text).CombinedOutput(); err != nil {
			t.Fatalf("espeak-ng: %v %s", err, out)
		}
		pcm = append(pcm, trimSilence(wavPCM(t, part))...)
		pcm = append(pcm, make([]byte, 2*int(0.45*float64(rate)))...)
	}
	wav := filepath.Join(dir, "talk.wav")
	writeWAV16(t, wav, pcm, rate)
	video := filepath.Join(dir, "talk.mp4")
	ff := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "color=c=0x304050:s=1280x720:r=25", "-i", wav,
		"-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "128k", "-shortest", video)
	if out, err := ff.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v %s", err, out)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	return srv
}

// wavPCM is the 16-bit mono samples of a WAV file (its data chunk).
func wavPCM(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path) //nolint:gosec // the test's own file
	if err != nil {
		t.Fatal(err)
	}
	for i := 12; i+8 <= len(b); {
		size := int(binary.LittleEndian.Uint32(b[i+4:]))
		if string(b[i:i+4]) == "data" {
			return b[i+8 : min(len(b), i+8+size)]
		}
		i += 8 + size + size%2
	}
	t.Fatalf("%s: no data chunk", path)
	return nil
}

// trimSilence cuts espeak's lead-in and tail: samples under 300 of 32767.
func trimSilence(pcm []byte) []byte {
	loud := func(i int) bool {
		v := int16(binary.LittleEndian.Uint16(pcm[i:])) //nolint:gosec // G115: a sample's bits
		return v > 300 || v < -300
	}
	from, to := 0, len(pcm)/2*2
	for from < to && !loud(from) {
		from += 2
	}
	for to > from && !loud(to-2) {
		to -= 2
	}
	return pcm[from:to]
}

func writeWAV16(t *testing.T, path string, pcm []byte, rate int) {
	t.Helper()
	h := make([]byte, 44)
	copy(h, "RIFF")
	binary.LittleEndian.PutUint32(h[4:], uint32(36+len(pcm))) //nolint:gosec // G115: a test file's size
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1)
	binary.LittleEndian.PutUint16(h[22:], 1)
	binary.LittleEndian.PutUint32(h[24:], uint32(rate))   //nolint:gosec // G115: 22050
	binary.LittleEndian.PutUint32(h[28:], uint32(rate*2)) //nolint:gosec // G115: 44100
	binary.LittleEndian.PutUint16(h[32:], 2)
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], uint32(len(pcm))) //nolint:gosec // G115: a test file's size
	if err := os.WriteFile(path, append(h, pcm...), 0o600); err != nil {
		t.Fatal(err)
	}
}

// tWord and tSegment are a transcript's words and segments as the API
// answers them.
type tWord struct {
	id         int
	text       string
	start, end float64
	deleted    bool
	confidence float64
}

type tSegment struct {
	start, end  float64
	text        string
	first, last int
}

// transcriptOf reads every page of a project's transcript and its ETag.
func (s *stack) transcriptOf(key, id string) (words []tWord, segs []tSegment, etag string) {
	s.t.Helper()
	seen := map[int]bool{}
	for page := 1; ; page++ {
		resp, raw := s.send("GET", fmt.Sprintf("/api/v1/clips/projects/%s/transcript?page=%d&limit=100", id, page), key, nil, nil)
		if resp.StatusCode != 200 {
			s.t.Fatalf("transcript page %d: %d %s", page, resp.StatusCode, raw)
		}
		etag = resp.Header.Get("ETag")
		var body struct {
			Data map[string]any `json:"data"`
		}
		if err := json.Unmarshal(raw, &body); err != nil {
			s.t.Fatalf("transcript: %q", raw)
		}
		d := body.Data
		for _, w := range d["words"].([]any) {
			m := w.(map[string]any)
			words = append(words, tWord{id: int(m["id"].(float64)), text: m["text"].(string), start: m["start"].(float64),
				end: m["end"].(float64), deleted: m["deleted"].(bool), confidence: m["confidence"].(float64)})
		}
		for _, sg := range d["segments"].([]any) {
			m := sg.(map[string]any)
			first := int(m["firstWordId"].(float64))
			if !seen[first] {
				seen[first] = true
				segs = append(segs, tSegment{start: m["start"].(float64), end: m["end"].(float64), text: m["text"].(string),
					first: first, last: int(m["lastWordId"].(float64))})
			}
		}
		if !d["pagination"].(map[string]any)["hasMore"].(bool) {
			return words, segs, etag
		}
	}
}

// patchTranscript sends a PATCH with If-Match (none when etag is "").
func (s *stack) patchTranscript(key, id, etag string, body string) (int, map[string]any, string) {
	s.t.Helper()
	h := map[string]string{"Content-Type": "application/json"}
	if etag != "" {
		h["If-Match"] = etag
	}
	resp, raw := s.send("PATCH", "/api/v1/clips/projects/"+id+"/transcript", key, h, []byte(body))
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		s.t.Fatalf("PATCH transcript: %d %q", resp.StatusCode, raw)
	}
	return resp.StatusCode, m, resp.Header.Get("ETag")
}

// renderCaptions is the caption text a completed render shipped (its SRT
// file), cue text only, one line per cue.
func renderCaptions(t *testing.T, r map[string]any, dir string) string {
	t.Helper()
	url, _ := r["captionsUrl"].(string)
	if url == "" {
		t.Fatalf("render without captions: %v", r)
	}
	raw, err := os.ReadFile(fetch(t, url, dir)) //nolint:gosec // the test's own download
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	timing := regexp.MustCompile(`^\d+$|-->`)
	for _, l := range strings.Split(strings.ReplaceAll(string(raw), "\r", ""), "\n") {
		if l = strings.TrimSpace(l); l != "" && !timing.MatchString(l) {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// rmsWindow is the RMS level (dBFS) of file's audio over [from, to] s.
func rmsWindow(t *testing.T, file string, from, to float64) float64 {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", file, "-ss", fmt.Sprintf("%.3f", from), "-t", fmt.Sprintf("%.3f", to-from),
		"-ac", "1", "-ar", "16000", "-f", "s16le", "-").Output()
	if err != nil || len(out) < 2 {
		t.Fatalf("audio %s %.2f–%.2f: %v", file, from, to, err)
	}
	sum := 0.0
	for i := 0; i+1 < len(out); i += 2 {
		v := float64(int16(binary.LittleEndian.Uint16(out[i:]))) / 32768 //nolint:gosec // G115: a sample's bits
		sum += v * v
	}
	return 10 * math.Log10(sum/float64(len(out)/2)+1e-12)
}

// Editing a clip by editing its words, through the gateway, on a talk the
// worker's speech recogniser transcribes: the recogniser misspells a
// made-up brand until the project's vocabulary names it; two words are
// corrected and one sentence deleted through PATCH; the render after the
// edit captions the corrections, leaves the sentence out of its captions
// and its MP4 (shorter by the sentence, onset to the next sentence's
// onset, ±0.2 s) with silence at the cut. A stale If-Match is 412, none
// 428, another organization's project 404, a range past the end 400.
func TestTranscriptEditsThroughTheGateway(t *testing.T) {
	s := startStack(t)
	media := speechTalk(t)
	s.startClips("HOOKLINE_FETCH_ALLOW_HOSTS=127.0.0.1", "HOOKLINE_CLIPS_RENDER_HEIGHT=1280", "HOOKLINE_CLIPS_RENDER_PRESET=ultrafast")
	_, key := s.newOrg("pro")
	_, other := s.newOrg("free")
	url := media.URL + "/talk.mp4"

	// Without the vocabulary: what the recogniser makes of the brand.
	plain := s.must(201, "POST", "/api/v1/clips/projects", key, map[string]any{"video_site_url": url, "format": "landscape"})
	if st, b := s.do("GET", "/api/v1/clips/projects/"+plain["id"].(string)+"/transcript", key, nil); st != 409 || b["code"] != "source_not_ready" {
		t.Errorf("transcript while preparing: %d %v", st, b)
	}
	if p := s.waitProject(key, plain["id"].(string)); p["downloadStatus"] != "ready" || p["transcriptSource"] != "recognition" {
		t.Fatalf("project %v", p)
	}
	heard, _, _ := s.transcriptOf(key, plain["id"].(string))
	var said []string
	for _, w := range heard {
		said = append(said, w.text)
	}
	t.Logf("recognised: %s", strings.Join(said, " "))
	if strings.Contains(strings.ToLower(strings.Join(said, " ")), strings.ToLower(brand)) {
		t.Fatalf("the recogniser spells %s by itself; the vocabulary test would prove nothing", brand)
	}

	// With it, on the same (already prepared) source.
	for field, body := range map[string]map[string]any{
		"vocabulary":    {"video_site_url": url, "vocabulary": make([]string, 101)},
		"vocabulary[0]": {"video_site_url": url, "vocabulary": []string{strings.Repeat("x", 51)}},
	} {
		if st, b := s.do("POST", "/api/v1/clips/projects", key, body); st != 400 || fieldOf(b, field) == nil {
			t.Errorf("%s: %d %v", field, st, b)
		}
	}
	p := s.must(201, "POST", "/api/v1/clips/projects", key, map[string]any{"video_site_url": url, "format": "landscape", "vocabulary": []string{brand}})
	id := p["id"].(string)
	p = s.waitProject(key, id)
	words, segs, etag := s.transcriptOf(key, id)
	if etag != `"1"` || len(words) == 0 {
		t.Fatalf("transcript: etag %s, %d words", etag, len(words))
	}
	byID := map[int]tWord{}
	branded := 0
	for _, w := range words {
		byID[w.id] = w
		if strings.Trim(w.text, ".,!?") == brand {
			branded++
		}
	}
	if branded < 3 {
		t.Fatalf("%s captioned %d times of the talk's 4", brand, branded)
	}

	// The term is a keyword of every clip that says it.
	for _, c := range p["clips"].([]any) {
		c := c.(map[string]any)
		for _, w := range words {
			if strings.Contains(w.text, brand) && w.start >= c["startTime"].(float64) && w.end <= c["endTime"].(float64) {
				if kw := fmt.Sprint(c["keywords"]); !strings.Contains(kw, brand) {
					t.Errorf("clip %v says %s; keywords %s", c["id"], brand, kw)
				}
				break
			}
		}
	}

	// The clip to edit: one with a sentence strictly inside it (neither
	// its first nor its last) that names no brand, and two other words.
	var clip map[string]any
	var cut tSegment
	for _, c := range p["clips"].([]any) {
		c := c.(map[string]any)
		start, end := c["startTime"].(float64), c["endTime"].(float64)
		var inside []tSegment
		for _, sg := range segs {
			if sg.start >= start && sg.end <= end {
				inside = append(inside, sg)
			}
		}
		for k := 1; k+1 < len(inside); k++ {
			if !strings.Contains(inside[k].text, brand) && markerOf(inside[k].text) != "" {
				clip, cut = c, inside[k]
				break
			}
		}
		if clip != nil {
			break
		}
	}
	if clip == nil {
		t.Fatalf("no clip holds three sentences: clips %v, segments %v", p["clips"], segs)
	}
	clipID := clip["id"].(string)
	start, end := clip["startTime"].(float64), clip["endTime"].(float64)
	marker := markerOf(cut.text)
	next, ok := byID[cut.last+1]
	if !ok {
		t.Fatalf("no word after the sentence %q", cut.text)
	}
	sentence := next.start - byID[cut.first].start
	// Two words to correct: content words of the clip outside the cut.
	var fixes []tWord
	for _, w := range words {
		if w.start >= start && w.end <= end && (w.id < cut.first || w.id > cut.last) && len(w.text) >= 5 && !strings.Contains(w.text, brand) && len(fixes) < 2 {
			fixes = append(fixes, w)
		}
	}
	if len(fixes) < 2 {
		t.Fatalf("no two words to correct in %v", clip)
	}

	// The clip as it was said, for the caption and length comparison.
	dir := t.TempDir()
	before := s.must(201, "POST", "/api/v1/clips/projects/"+id+"/renders", key, map[string]any{"clip_id": clipID})
	r0 := s.waitRender(key, before["renders"].([]any)[0].(map[string]any)["id"].(string), 4*time.Minute)
	if r0["status"] != "completed" {
		t.Fatalf("render %v", r0)
	}
	caps0 := renderCaptions(t, r0, dir)
	if !strings.Contains(caps0, brand) || !strings.Contains(strings.ToLower(caps0), marker) {
		t.Fatalf("captions before the edit lack %s or %q:\n%s", brand, marker, caps0)
	}
	_, _, _, _, d0 := probe(t, fetch(t, r0["outputUrl"].(string), t.TempDir()))

	// Refused edits: nothing changes.
	total := len(words)
	path := "/api/v1/clips/projects/" + id + "/transcript"
	if st, b, _ := s.patchTranscript(key, id, "", `{"operations":[{"op":"delete","from":0,"to":0}]}`); st != 428 || b["code"] != "precondition_required" {
		t.Errorf("no If-Match: %d %v", st, b)
	}
	for field, body := range map[string]string{
		"operations[0].to":     fmt.Sprintf(`{"operations":[{"op":"delete","from":%d,"to":%d}]}`, total-2, total+5),
		"operations[1].wordId": fmt.Sprintf(`{"operations":[{"op":"delete","from":0,"to":1},{"op":"replace","wordId":%d,"text":"x"}]}`, total),
		"operations[0].op":     `{"operations":[{"op":"split"}]}`,
		"operations[0].text":   `{"operations":[{"op":"replace","wordId":1,"text":""}]}`,
	} {
		if st, b, _ := s.patchTranscript(key, id, etag, body); st != 400 || fieldOf(b, field) == nil {
			t.Errorf("%s: %d %v", field, st, b)
		}
	}
	if st, b, _ := s.patchTranscript(other, id, etag, `{"operations":[{"op":"delete","from":0,"to":0}]}`); st != 404 {
		t.Errorf("another organization's PATCH: %d %v", st, b)
	}
	if st, _ := s.do("GET", path, other, nil); st != 404 {
		t.Errorf("another organization's GET: %d", st)
	}

	// The edit: two corrections and the sentence deleted.
	edit := fmt.Sprintf(`{"operations":[{"op":"replace","wordId":%d,"text":"Kubernetes"},{"op":"replace","wordId":%d,"text":"Grafana"},`+
		`{"op":"delete","from":%d,"to":%d}],"rerank":true}`, fixes[0].id, fixes[1].id, cut.first, cut.last)
	st, b, etag2 := s.patchTranscript(key, id, etag, edit)
	if st != 200 || etag2 != `"2"` {
		t.Fatalf("edit: %d %v etag %s", st, b, etag2)
	}
	if st, b, _ := s.patchTranscript(key, id, etag, `{"operations":[{"op":"restore","from":0,"to":0}]}`); st != 412 || b["code"] != "precondition_failed" {
		t.Errorf("stale If-Match: %d %v", st, b)
	}
	edited, _, _ := s.transcriptOf(key, id)
	for _, w := range edited {
		switch {
		case w.id == fixes[0].id && w.text != "Kubernetes", w.id == fixes[1].id && w.text != "Grafana":
			t.Errorf("word %d: %q", w.id, w.text)
		case (w.id >= cut.first && w.id <= cut.last) != w.deleted:
			t.Errorf("word %d %q deleted %v", w.id, w.text, w.deleted)
		}
	}
	if got := s.must(200, "GET", "/api/v1/clips/projects/"+id, key, nil); !hasClip(got, clipID) {
		t.Fatalf("rerank lost the clip %s: %v", clipID, got["clips"])
	}
	if _, b := s.do("GET", path, other, nil); b["data"] != nil {
		t.Errorf("another organization reads the edits: %v", b)
	}

	// The render after the edit.
	after := s.must(201, "POST", "/api/v1/clips/projects/"+id+"/renders", key, map[string]any{"clip_id": clipID})
	r1 := s.waitRender(key, after["renders"].([]any)[0].(map[string]any)["id"].(string), 4*time.Minute)
	if r1["status"] != "completed" {
		t.Fatalf("render %v", r1)
	}
	caps1 := renderCaptions(t, r1, t.TempDir())
	if !strings.Contains(caps1, "Kubernetes") || !strings.Contains(caps1, "Grafana") || strings.Contains(strings.ToLower(caps1), marker) {
		t.Errorf("captions after the edit: want Kubernetes and Grafana, not %q:\n%s", marker, caps1)
	}
	mp4 := fetch(t, r1["outputUrl"].(string), t.TempDir())
	_, _, _, _, d1 := probe(t, mp4)
	t.Logf("clip %.2f–%.2f s: %.3f s before, %.3f s after; the sentence %q runs %.3f s to the next", start, end, d0, d1, cut.text, sentence)
	if math.Abs((d0-d1)-sentence) > 0.2 {
		t.Errorf("the render is %.3f s shorter, the sentence %.3f s", d0-d1, sentence)
	}
	// Around the cut the sound is the pause before the sentence, cut
	// inside, running into the pause before the next: in the MP4 that is
	// from the end of the word before the sentence to where the next
	// sentence now starts (where the deleted one started). It is silence:
	// no fragment of a deleted word, nor of a kept one.
	prev, ok := byID[cut.first-1]
	if !ok {
		t.Fatalf("no word before the sentence %q", cut.text)
	}
	from, to := prev.end-start+0.03, byID[cut.first].start-start-0.03
	speech := rmsWindow(t, mp4, 0, d1)
	gap := rmsWindow(t, mp4, from, to)
	t.Logf("RMS %.1f dBFS at the cut (%.2f–%.2f s of the MP4), %.1f dBFS over the clip", gap, from, to, speech)
	if to-from < 0.1 || gap > speech-25 {
		t.Errorf("the cut at %.2f–%.2f s holds sound: %.1f dBFS against the clip's %.1f", from, to, gap, speech)
	}
}

// markerOf is the marker noun of a talk sentence in text, "" for none.
func markerOf(text string) string {
	for _, l := range talkLines {
		if strings.Contains(strings.ToLower(text), l.marker) {
			return l.marker
		}
	}
	return ""
}

func hasClip(p map[string]any, id string) bool {
	for _, c := range p["clips"].([]any) {
		if c.(map[string]any)["id"] == id {
			return true
		}
	}
	return false
}
