// Package videosite is the one way Hookline reads a user's video address
// (ARCHITECTURE §7): it parses every form of a video-site link into a
// video id (anything else that is http(s) is direct media), reads the
// video's metadata and captions, and downloads it.
//
// The video site is read the way its own player does: POST
// {SiteBase}/youtubei/v1/player with the video id answers the video's
// details (title, author, length, description) and its caption tracks;
// a track's baseUrl with &fmt=json3 (else &fmt=vtt) answers the timed
// captions. oEmbed ({SiteBase}/oembed) backs up the title and channel.
// Manual tracks are preferred over automatic ones, in the video's
// language first. Direct media's captions are its sidecar: the URL with
// its extension replaced by .vtt, by .srt, or with .vtt appended, tried in
// that order. Downloads of direct media stream through the safe fetcher;
// site videos go through yt-dlp.
//
// Every request goes through pkg/platform/safefetch, so HOOKLINE_FETCH_ALLOW_HOSTS
// and _DENY_HOSTS apply to the configured bases too. Every text it hands
// out (titles, descriptions, captions) is sanitised on the way out
// (sanitize.go): callers store and draw it as it is.
package videosite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"hookline.dev/pkg/platform/safefetch"
)

// Errors the client returns, wrapped with detail.
var (
	// ErrNoCaptions: the video has no caption track (or no sidecar).
	ErrNoCaptions = errors.New("videosite: no captions available")
	// ErrUnavailable: the site failed (429, 5xx, garbage), the video is
	// private or removed, or yt-dlp is missing.
	ErrUnavailable = errors.New("videosite: source unavailable")
	// ErrForbidden: the safe fetcher refused the address (private
	// address, deny list, scheme).
	ErrForbidden = errors.New("videosite: address refused")
)

// Defaults.
const (
	DefaultSiteBase         = "https://www.youtube.com"
	DefaultMaxDownloadBytes = 2 << 30
	DefaultDownloadTimeout  = 30 * time.Minute
	// playerClientVersion is what the player API expects of a web client.
	playerClientVersion = "2.20240101.00.00"
)

// Config configures a Client.
type Config struct {
	// SiteBase is the site's origin (tests: a fake).
	SiteBase string
	// TimedTextBase, when set, replaces the scheme and host of caption
	// track URLs.
	TimedTextBase string
	// ImageBase is the site's image host (tests: a fake; "" is
	// DefaultImageBase).
	ImageBase string
	// YTDLP is the yt-dlp binary; "" looks up "yt-dlp" on PATH.
	YTDLP            string
	MaxDownloadBytes int64
	DownloadTimeout  time.Duration
	// Fetch configures the safe fetcher (allow/deny lists, timeout).
	Fetch safefetch.Config
}

// Metadata describes a video.
type Metadata struct {
	Title, Channel, Description, Language string
	// Duration is in seconds, 0 when unknown (direct media before probing).
	Duration     float64
	Chapters     []Chapter
	ThumbnailURL string
}

// Captions are a video's timed captions.
type Captions struct {
	Language  string
	Automatic bool
	Segments  []Segment
}

// Client reads videos. It is safe for concurrent use.
type Client struct {
	cfg   Config
	fetch *safefetch.Fetcher

	// players keeps the player API's good answers for playerTTL: a request
	// reads a video's metadata and captions from one answer, not two.
	mu      sync.Mutex
	players map[string]cachedPlayer
}

type cachedPlayer struct {
	p  player
	at time.Time
}

// How long, and how many, player answers are kept.
const (
	playerTTL   = time.Minute
	playerCache = 256
)

// New returns a client for cfg.
func New(cfg Config) *Client {
	if cfg.SiteBase == "" {
		cfg.SiteBase = DefaultSiteBase
	}
	cfg.SiteBase = strings.TrimRight(cfg.SiteBase, "/")
	if cfg.MaxDownloadBytes <= 0 {
		cfg.MaxDownloadBytes = DefaultMaxDownloadBytes
	}
	if cfg.DownloadTimeout <= 0 {
		cfg.DownloadTimeout = DefaultDownloadTimeout
	}
	return &Client{cfg: cfg, fetch: safefetch.New(cfg.Fetch), players: map[string]cachedPlayer{}}
}

// player is the part of the player response read here.
type player struct {
	PlayabilityStatus struct {
		Status string `json:"status"`
		Reason string `json:"reason"`
	} `json:"playabilityStatus"`
	VideoDetails *struct {
		VideoID          string `json:"videoId"`
		Title            string `json:"title"`
		Author           string `json:"author"`
		LengthSeconds    string `json:"lengthSeconds"`
		ShortDescription string `json:"shortDescription"`
		Thumbnail        struct {
			Thumbnails []struct {
				URL string `json:"url"`
			} `json:"thumbnails"`
		} `json:"thumbnail"`
	} `json:"videoDetails"`
	Captions struct {
		Renderer struct {
			Tracks []track `json:"captionTracks"`
		} `json:"playerCaptionsTracklistRenderer"`
	} `json:"captions"`
}

type track struct {
	BaseURL      string `json:"baseUrl"`
	LanguageCode string `json:"languageCode"`
	Kind         string `json:"kind"`
}

// fetchErr classifies a safe-fetcher error.
func fetchErr(what string, err error) error {
	switch {
	case errors.Is(err, safefetch.ErrForbiddenAddress), errors.Is(err, safefetch.ErrScheme), errors.Is(err, safefetch.ErrInvalidURL):
		return fmt.Errorf("%w: %s: %w", ErrForbidden, what, err)
	case errors.Is(err, context.Canceled):
		return err
	}
	return fmt.Errorf("%w: %s: %w", ErrUnavailable, what, err)
}

// player is the player API's answer for id, from the cache when fresh.
// Failures are not kept: a retry asks again.
func (c *Client) player(ctx context.Context, id string) (player, error) {
	now := time.Now()
	c.mu.Lock()
	cp, ok := c.players[id]
	c.mu.Unlock()
	if ok && now.Sub(cp.at) < playerTTL {
		return cp.p, nil
	}
	p, err := c.askPlayer(ctx, id)
	if err != nil {
		return p, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.players) >= playerCache {
		for k, v := range c.players {
			if now.Sub(v.at) >= playerTTL || len(c.players) >= playerCache {
				delete(c.players, k)
			}
		}
	}
	c.players[id] = cachedPlayer{p: p, at: now}
	return p, nil
}

func (c *Client) askPlayer(ctx context.Context, id string) (player, error) {
	body, _ := json.Marshal(map[string]any{
		"context": map[string]any{"client": map[string]any{"clientName": "WEB", "clientVersion": playerClientVersion, "hl": "en"}},
		"videoId": id,
	})
	resp, err := c.fetch.Post(ctx, c.cfg.SiteBase+"/youtubei/v1/player", "application/json", body)
	if err != nil {
		return player{}, fetchErr("player API", err)
	}
	var p player
	if err := json.Unmarshal(resp.Body, &p); err != nil {
		return player{}, fmt.Errorf("%w: the player API answered something that is not its JSON", ErrUnavailable)
	}
	if p.PlayabilityStatus.Status != "OK" {
		reason := SanitizeLine(p.PlayabilityStatus.Reason)
		if reason == "" {
			reason = strings.ToLower(p.PlayabilityStatus.Status)
		}
		if reason == "" {
			reason = "no playability status"
		}
		return player{}, fmt.Errorf("%w: video unavailable: %s", ErrUnavailable, reason)
	}
	if p.VideoDetails == nil {
		return player{}, fmt.Errorf("%w: the player API answered no video details", ErrUnavailable)
	}
	return p, nil
}

// Metadata reads a video's title, channel, length, description and
// chapters, sanitised. Errors: ErrUnavailable, ErrForbidden, ctx's.
func (c *Client) Metadata(ctx context.Context, src Source) (Metadata, error) {
	md, err := c.metadata(ctx, src)
	return md.sanitized(), err
}

func (c *Client) metadata(ctx context.Context, src Source) (Metadata, error) {
	if src.Kind == KindDirect {
		u, err := url.Parse(src.URL)
		if err != nil {
			return Metadata{}, fmt.Errorf("%w: %w", ErrInvalidURL, err)
		}
		name := path.Base(u.Path)
		if uname, err := url.PathUnescape(name); err == nil {
			name = uname
		}
		name = strings.TrimSuffix(name, path.Ext(name))
		if name == "/" || name == "." {
			name = ""
		}
		return Metadata{Title: name}, nil
	}
	p, err := c.player(ctx, src.VideoID)
	if err != nil {
		if errors.Is(err, ErrUnavailable) && ctx.Err() == nil {
			if md, oerr := c.oembed(ctx, src); oerr == nil {
				return md, nil
			}
		}
		return Metadata{}, err
	}
	d := p.VideoDetails
	secs, _ := strconv.ParseFloat(d.LengthSeconds, 64)
	md := Metadata{Title: d.Title, Channel: d.Author, Description: d.ShortDescription, Duration: secs, Chapters: ParseChapters(d.ShortDescription),
		Language: videoLanguage(p.Captions.Renderer.Tracks)}
	if n := len(d.Thumbnail.Thumbnails); n > 0 {
		md.ThumbnailURL = d.Thumbnail.Thumbnails[n-1].URL
	}
	return md, nil
}

func (c *Client) oembed(ctx context.Context, src Source) (Metadata, error) {
	resp, err := c.fetch.Get(ctx, c.cfg.SiteBase+"/oembed?format=json&url="+url.QueryEscape(src.URL))
	if err != nil {
		return Metadata{}, fetchErr("oEmbed", err)
	}
	var o struct {
		Title        string `json:"title"`
		AuthorName   string `json:"author_name"`
		ThumbnailURL string `json:"thumbnail_url"`
	}
	if err := json.Unmarshal(resp.Body, &o); err != nil || o.Title == "" {
		return Metadata{}, fmt.Errorf("%w: oEmbed answered no title", ErrUnavailable)
	}
	return Metadata{Title: o.Title, Channel: o.AuthorName, ThumbnailURL: o.ThumbnailURL}, nil
}

// videoLanguage is the language of the first manual track, else of the
// first track.
func videoLanguage(ts []track) string {
	for _, t := range ts {
		if t.Kind != "asr" {
			return t.LanguageCode
		}
	}
	if len(ts) > 0 {
		return ts[0].LanguageCode
	}
	return ""
}

// pickTrack prefers a manual track in the video's language, then any
// manual track, then an automatic one in the language, then any.
func pickTrack(ts []track, lang string) (track, bool) {
	base := func(l string) string { return strings.ToLower(strings.SplitN(l, "-", 2)[0]) }
	for _, pass := range []func(track) bool{
		func(t track) bool { return t.Kind != "asr" && base(t.LanguageCode) == base(lang) },
		func(t track) bool { return t.Kind != "asr" },
		func(t track) bool { return base(t.LanguageCode) == base(lang) },
		func(track) bool { return true },
	} {
		for _, t := range ts {
			if t.BaseURL != "" && pass(t) {
				return t, true
			}
		}
	}
	return track{}, false
}

// Captions reads a video's captions. Errors: ErrNoCaptions,
// ErrUnavailable, ErrForbidden, ctx's.
func (c *Client) Captions(ctx context.Context, src Source) (Captions, error) {
	if src.Kind == KindDirect {
		return c.sidecar(ctx, src.URL)
	}
	p, err := c.player(ctx, src.VideoID)
	if err != nil {
		return Captions{}, err
	}
	lang := videoLanguage(p.Captions.Renderer.Tracks)
	t, ok := pickTrack(p.Captions.Renderer.Tracks, lang)
	if !ok {
		return Captions{}, fmt.Errorf("%w: the video has no caption track", ErrNoCaptions)
	}
	base := c.trackURL(t.BaseURL)
	out := Captions{Language: SanitizeLine(t.LanguageCode), Automatic: t.Kind == "asr"}
	var lastErr error
	for _, f := range []struct {
		fmt   string
		parse func([]byte) ([]Segment, error)
	}{{"json3", parseJSON3}, {"vtt", ParseVTT}} {
		resp, err := c.fetch.Get(ctx, withParam(base, "fmt", f.fmt))
		if err != nil {
			lastErr = fetchErr("captions", err)
			if errors.Is(lastErr, ErrForbidden) || ctx.Err() != nil {
				return Captions{}, lastErr
			}
			continue
		}
		segs, err := f.parse(resp.Body)
		if err != nil {
			lastErr = fmt.Errorf("%w: the %s captions could not be read", ErrUnavailable, f.fmt)
			continue
		}
		if len(segs) == 0 {
			return Captions{}, fmt.Errorf("%w: the caption track is empty", ErrNoCaptions)
		}
		out.Segments = segs
		return out, nil
	}
	return Captions{}, lastErr
}

// trackURL applies TimedTextBase to a caption track URL.
func (c *Client) trackURL(raw string) string {
	if c.cfg.TimedTextBase == "" {
		return raw
	}
	u, err := url.Parse(raw)
	b, berr := url.Parse(c.cfg.TimedTextBase)
	if err != nil || berr != nil {
		return raw
	}
	u.Scheme, u.Host = b.Scheme, b.Host
	return u.String()
}

func withParam(raw, k, v string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	q := u.Query()
	q.Set(k, v)
	u.RawQuery = q.Encode()
	return u.String()
}

// SidecarURLs are the caption files tried for direct media, in order.
func SidecarURLs(media string) []string {
	u, err := url.Parse(media)
	if err != nil {
		return nil
	}
	ext := path.Ext(u.Path)
	stem := strings.TrimSuffix(u.Path, ext)
	var out []string
	for _, p := range []string{stem + ".vtt", stem + ".srt", u.Path + ".vtt"} {
		v := *u
		v.Path, v.RawPath = p, ""
		if s := v.String(); len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out
}

func (c *Client) sidecar(ctx context.Context, media string) (Captions, error) {
	for _, u := range SidecarURLs(media) {
		resp, err := c.fetch.Get(ctx, u)
		if err != nil {
			if errors.Is(err, safefetch.ErrForbiddenAddress) || ctx.Err() != nil {
				return Captions{}, fetchErr("captions", err)
			}
			continue
		}
		segs, err := ParseVTT(resp.Body)
		if err != nil || len(segs) == 0 {
			continue
		}
		return Captions{Segments: segs}, nil
	}
	return Captions{}, fmt.Errorf("%w: no sidecar caption file (.vtt or .srt) beside the media", ErrNoCaptions)
}

// Probe checks that direct media is reachable and looks like video (a
// video/* or application/octet-stream type, or a media extension). Errors
// wrap ErrInvalidURL with a reason a user can read, or ErrForbidden.
func (c *Client) Probe(ctx context.Context, src Source) error {
	if src.Kind != KindDirect {
		return nil
	}
	_, ct, _, err := c.fetch.Head(ctx, src.URL)
	if err != nil {
		if e := fetchErr("media", err); errors.Is(e, ErrForbidden) {
			return e
		}
		var se *safefetch.StatusError
		if errors.As(err, &se) {
			return fmt.Errorf("%w: the address answered HTTP %d", ErrInvalidURL, se.Code)
		}
		return fmt.Errorf("%w: the address could not be reached", ErrInvalidURL)
	}
	mt := strings.ToLower(strings.TrimSpace(strings.SplitN(ct, ";", 2)[0]))
	if strings.HasPrefix(mt, "video/") || mt == "application/octet-stream" || mt == "" && mediaExt(src.URL) {
		return nil
	}
	return fmt.Errorf("%w: the address serves %q, not a video", ErrInvalidURL, mt)
}

func mediaExt(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	switch strings.ToLower(path.Ext(u.Path)) {
	case ".mp4", ".webm", ".mov", ".m4v", ".mkv":
		return true
	}
	return false
}

// Download writes the video to dst (atomically: a temporary file renamed
// into place). Direct media keeps the fetcher's Stall pace; yt-dlp gives
// up on a site that sends nothing for Stall.Idle. Errors: ErrUnavailable
// (yt-dlp missing or failing), ErrForbidden, safefetch.ErrTooLarge,
// safefetch.ErrStalled, safefetch.ErrTruncated (the body ended before
// its declared length), ctx's.
func (c *Client) Download(ctx context.Context, src Source, dst string) error {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.DownloadTimeout)
	defer cancel()
	tmp := dst + ".part"
	if src.Kind == KindSite {
		tmp = dst + ".download.mp4" // yt-dlp keeps its own ".part" files and names the result as told
	}
	defer func() { _ = os.Remove(tmp) }()
	if src.Kind == KindDirect {
		f, err := os.Create(tmp) //nolint:gosec // G304: a path the service chose
		if err != nil {
			return err
		}
		_, _, err = c.fetch.Stream(ctx, src.URL, f, c.cfg.MaxDownloadBytes)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			if errors.Is(err, safefetch.ErrTooLarge) || errors.Is(err, safefetch.ErrStalled) || errors.Is(err, safefetch.ErrTruncated) {
				return err
			}
			return fetchErr("download", err)
		}
		return os.Rename(tmp, dst)
	}
	bin := c.cfg.YTDLP
	if bin == "" {
		bin = "yt-dlp"
	}
	resolved, err := exec.LookPath(bin)
	if err != nil {
		return fmt.Errorf("%w: yt-dlp not installed (%s)", ErrUnavailable, bin)
	}
	cmd := exec.CommandContext(ctx, resolved, YTDLPArgs(src.URL, tmp, c.cfg.MaxDownloadBytes, c.cfg.Fetch.Stall.Idle)...) //nolint:gosec // G204: fixed arguments; the URL is canonical and after "--"
	out, err := cmd.CombinedOutput()
	if err != nil {
		msg := SanitizeLine(string(out))
		if len(msg) > 300 {
			msg = strings.ToValidUTF8(msg[len(msg)-300:], "")
		}
		return fmt.Errorf("%w: yt-dlp: %w: %s", ErrUnavailable, err, msg)
	}
	if _, err := os.Stat(tmp); err != nil {
		return fmt.Errorf("%w: yt-dlp wrote no file", ErrUnavailable)
	}
	return os.Rename(tmp, filepath.Clean(dst))
}

// YTDLPArgs is yt-dlp's argument list for one download: the best stream
// up to 1080p merged to MP4, no playlist, capped in size, giving up on a
// connection idle for idle (when positive, in whole seconds, at least
// one), the URL after "--" so it is never read as an option.
func YTDLPArgs(watchURL, out string, maxBytes int64, idle time.Duration) []string {
	args := []string{"-f", "bv*[height<=1080]+ba/b[height<=1080]/b", "--merge-output-format", "mp4", "--no-playlist", "--no-progress",
		"--max-filesize", strconv.FormatInt(maxBytes, 10)}
	if idle > 0 {
		args = append(args, "--socket-timeout", strconv.FormatInt(int64(max(idle.Round(time.Second), time.Second)/time.Second), 10))
	}
	return append(args, "-o", out, "--", watchURL)
}
