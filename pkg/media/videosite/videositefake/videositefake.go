// Package videositefake is a local HTTP fake of the video site for tests
// of every service that reads videos: the player API (POST
// /youtubei/v1/player) with caption tracks, the timedtext endpoint in its
// json3 and VTT formats, and oEmbed, in the formats the site answers. A
// video can be made to fail (a status, garbage, an unplayable video), a
// track can exist in VTT only.
package videositefake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"hookline.dev/pkg/media/videosite"
)

// Track is a caption track.
type Track struct {
	Lang string
	// Kind is "asr" for an automatic track, "" for a manual one.
	Kind string
	// VTTOnly makes the json3 format fail, so readers fall back to VTT.
	VTTOnly  bool
	Segments []videosite.Segment
}

// Video is a video the fake knows.
type Video struct {
	ID, Title, Channel, Description string
	LengthSeconds                   int
	Tracks                          []Track
	// Status, when set, is the player API's answer status.
	Status int
	// Garbage makes the player API answer HTML.
	Garbage bool
	// Unplayable makes the player report the video unavailable.
	Unplayable string
}

// Server is the fake site.
type Server struct {
	*httptest.Server
	mu      sync.Mutex
	videos  map[string]Video
	players int
}

// New starts a fake, closed when t ends.
func New(t testing.TB) *Server {
	s := &Server{videos: map[string]Video{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /youtubei/v1/player", s.player)
	mux.HandleFunc("GET /api/timedtext", s.timedtext)
	mux.HandleFunc("GET /oembed", s.oembed)
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// Add registers videos.
func (s *Server) Add(vs ...Video) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range vs {
		s.videos[v.ID] = v
	}
}

// PlayerCalls counts player API requests.
func (s *Server) PlayerCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.players
}

func (s *Server) video(id string) (Video, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.videos[id]
	return v, ok
}

func (s *Server) player(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.players++
	s.mu.Unlock()
	var req struct {
		Context struct {
			Client struct {
				ClientName string `json:"clientName"`
			} `json:"client"`
		} `json:"context"`
		VideoID string `json:"videoId"`
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err := json.Unmarshal(body, &req); err != nil || req.Context.Client.ClientName == "" {
		http.Error(w, `{"error":{"code":400,"message":"Request contains an invalid argument."}}`, http.StatusBadRequest)
		return
	}
	v, ok := s.video(req.VideoID)
	switch {
	case !ok:
		writeJSON(w, map[string]any{"playabilityStatus": map[string]any{"status": "ERROR", "reason": "This video is unavailable"}})
		return
	case v.Status != 0:
		w.WriteHeader(v.Status)
		_, _ = w.Write([]byte(`{"error":{"code":` + fmt.Sprint(v.Status) + `}}`))
		return
	case v.Garbage:
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body>Our systems have detected unusual traffic</body></html>"))
		return
	case v.Unplayable != "":
		writeJSON(w, map[string]any{"playabilityStatus": map[string]any{"status": "LOGIN_REQUIRED", "reason": v.Unplayable}})
		return
	}
	var tracks []any
	for _, t := range v.Tracks {
		q := url.Values{"v": {v.ID}, "lang": {t.Lang}}
		if t.Kind != "" {
			q.Set("kind", t.Kind)
		}
		tr := map[string]any{"baseUrl": s.URL + "/api/timedtext?" + q.Encode(), "name": map[string]any{"simpleText": t.Lang}, "languageCode": t.Lang, "vssId": "." + t.Lang}
		if t.Kind != "" {
			tr["kind"] = t.Kind
		}
		tracks = append(tracks, tr)
	}
	resp := map[string]any{
		"playabilityStatus": map[string]any{"status": "OK"},
		"videoDetails": map[string]any{"videoId": v.ID, "title": v.Title, "author": v.Channel, "lengthSeconds": fmt.Sprint(v.LengthSeconds),
			"shortDescription": v.Description, "thumbnail": map[string]any{"thumbnails": []any{map[string]any{"url": s.URL + "/vi/" + v.ID + "/hqdefault.jpg"}}}},
	}
	if len(tracks) > 0 {
		resp["captions"] = map[string]any{"playerCaptionsTracklistRenderer": map[string]any{"captionTracks": tracks}}
	}
	writeJSON(w, resp)
}

func (s *Server) timedtext(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v, ok := s.video(q.Get("v"))
	if !ok {
		http.NotFound(w, r)
		return
	}
	for _, t := range v.Tracks {
		if t.Lang != q.Get("lang") || t.Kind != q.Get("kind") {
			continue
		}
		switch q.Get("fmt") {
		case "json3":
			if t.VTTOnly {
				w.Header().Set("Content-Type", "text/html")
				_, _ = w.Write([]byte("<html>not json</html>"))
				return
			}
			writeJSON(w, json3(t))
		case "vtt":
			w.Header().Set("Content-Type", "text/vtt")
			_, _ = io.WriteString(w, VTT(t.Segments))
		default:
			http.Error(w, "unknown fmt", http.StatusBadRequest)
		}
		return
	}
	http.NotFound(w, r)
}

// json3 renders a track as the site does: one event per segment, words as
// segs with tOffsetMs when the segment has word timings.
func json3(t Track) map[string]any {
	events := []any{map[string]any{"tStartMs": 0, "dDurationMs": 1000, "id": 1, "wpWinPosId": 1}} // a window event, no segs
	for _, s := range t.Segments {
		ev := map[string]any{"tStartMs": int(s.Start * 1000), "dDurationMs": int((s.End - s.Start) * 1000)}
		var segs []any
		if len(s.Words) > 0 {
			for i, w := range s.Words {
				text := w.Text
				if i > 0 {
					text = " " + text
				}
				segs = append(segs, map[string]any{"utf8": text, "tOffsetMs": int((w.Start - s.Start) * 1000)})
			}
		} else {
			segs = append(segs, map[string]any{"utf8": s.Text})
		}
		ev["segs"] = segs
		events = append(events, ev, map[string]any{"tStartMs": int(s.End * 1000), "segs": []any{map[string]any{"utf8": "\n"}}})
	}
	return map[string]any{"wireMagic": "pb3", "events": events}
}

// VTT renders segments as WebVTT.
func VTT(segs []videosite.Segment) string {
	var b strings.Builder
	b.WriteString("WEBVTT\nKind: captions\nLanguage: en\n\n")
	for _, s := range segs {
		fmt.Fprintf(&b, "%s --> %s\n%s\n\n", stamp(s.Start, '.'), stamp(s.End, '.'), s.Text)
	}
	return b.String()
}

// SRT renders segments as SubRip.
func SRT(segs []videosite.Segment) string {
	var b strings.Builder
	for i, s := range segs {
		fmt.Fprintf(&b, "%d\n%s --> %s\n%s\n\n", i+1, stamp(s.Start, ','), stamp(s.End, ','), s.Text)
	}
	return b.String()
}

func stamp(sec float64, dot byte) string {
	ms := int(sec*1000 + 0.5)
	return fmt.Sprintf("%02d:%02d:%02d%c%03d", ms/3600000, ms/60000%60, ms/1000%60, dot, ms%1000)
}

func (s *Server) oembed(w http.ResponseWriter, r *http.Request) {
	src, err := videosite.Parse(r.URL.Query().Get("url"))
	v, ok := s.video(src.VideoID)
	if err != nil || !ok {
		http.NotFound(w, r)
		return
	}
	writeJSON(w, map[string]any{"title": v.Title, "author_name": v.Channel, "type": "video", "provider_name": "YouTube",
		"thumbnail_url": s.URL + "/vi/" + v.ID + "/hqdefault.jpg"})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(v)
}
