// Package videotext holds the rules of the requests about a video's text:
// thumbnail concept analysis (POST /thumbnails/analyze), SEO titles and a
// video description (POST /seo/titles, /seo/description). Each names its
// video by exactly one of a hosted video's address or a transcript; this
// package checks the bodies and says which fields are wrong, before
// anything is fetched. The text itself is measured and written by
// services/thumbnails/internal/textai.
package videotext

import (
	"fmt"
	"net/url"
	"strings"

	"hookline.dev/pkg/media/videosite"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/textcheck"
	"hookline.dev/services/thumbnails/internal/textai"
)

// Limits (README, "Limits"). Lengths are Unicode code points after
// trimming white space.
const (
	MinTranscript = 50
	// MaxTranscript holds a three-hour video's captions with room to spare.
	MaxTranscript = 200_000
	MaxVideoTitle = 100 // the video site's own title limit
	MaxURL        = 2048
	MaxKeywords   = 10
	// MaxKeyword keeps the keyword rule satisfiable: every title holds
	// the main keyword within textai.MaxTitle.
	MaxKeyword   = 40
	MaxLinks     = 10
	MaxLinkTitle = 100
	// DefaultVideoTitle is an analysis's title when a transcript comes
	// without one.
	DefaultVideoTitle = "Your Video"
)

// NoTranscript is the reason given for a video address whose captions
// cannot be had.
const NoTranscript = "no transcript available; send transcript"

// Video is a validated choice of source: a parsed address, or a
// transcript. Exactly one is set, or neither where that is allowed.
type Video struct {
	Site       *videosite.Source
	Transcript string
}

// AnalyzeInput is the body of POST /thumbnails/analyze.
type AnalyzeInput struct {
	VideoSiteURL *string
	Transcript   *string
	VideoTitle   *string
}

// Analyze is a validated analyze request.
type Analyze struct {
	Video Video
	Title string
}

// ValidateAnalyze checks an analyze body: exactly one of videoSiteUrl and
// transcript; a transcript of at least MinTranscript characters.
func ValidateAnalyze(in AnalyzeInput) (Analyze, error) {
	f := apierr.Fields{}
	var a Analyze
	a.Video = video(f, in.VideoSiteURL, in.Transcript, true, MinTranscript)
	a.Title = DefaultVideoTitle
	if in.VideoTitle != nil {
		if t := line(f, "videoTitle", *in.VideoTitle, MaxVideoTitle); t != "" {
			a.Title = t
		}
	}
	return a, f.Err()
}

// TitlesInput is the body of POST /seo/titles.
type TitlesInput struct {
	VideoTitle   *string
	Transcript   *string
	VideoSiteURL *string
	Keywords     []string
	Count        *int
}

// Titles is a validated titles request.
type Titles struct {
	Video    Video
	Title    string
	Keywords []string
	Count    int
}

// ValidateTitles checks a titles body: at least one of videoTitle,
// transcript, videoSiteUrl and keywords; transcript and videoSiteUrl not
// both; count 1..textai.MaxTitles (default textai.DefaultTitles).
func ValidateTitles(in TitlesInput) (Titles, error) {
	f := apierr.Fields{}
	var t Titles
	if in.VideoTitle == nil && in.Transcript == nil && in.VideoSiteURL == nil && len(in.Keywords) == 0 {
		f.Add("videoTitle", "send at least one of videoTitle, transcript, videoSiteUrl and keywords")
		return t, f.Err()
	}
	t.Video = video(f, in.VideoSiteURL, in.Transcript, false, 1)
	if in.VideoTitle != nil {
		t.Title = line(f, "videoTitle", *in.VideoTitle, MaxVideoTitle)
		f.Check(t.Title != "", "videoTitle", "must not be empty")
	}
	t.Keywords = keywords(f, in.Keywords)
	t.Count = textai.DefaultTitles
	if in.Count != nil {
		t.Count = *in.Count
		f.Check(t.Count >= 1 && t.Count <= textai.MaxTitles, "count", fmt.Sprintf("must be between 1 and %d", textai.MaxTitles))
	}
	return t, f.Err()
}

// DescriptionInput is the body of POST /seo/description.
type DescriptionInput struct {
	Title        *string
	Transcript   *string
	VideoSiteURL *string
	Keywords     []string
	Links        []LinkInput
}

// LinkInput is one entry of links.
type LinkInput struct {
	Title *string
	URL   *string
}

// Description is a validated description request.
type Description struct {
	Video    Video
	Title    string
	Keywords []string
	Links    []textai.Link
}

// ValidateDescription checks a description body: title required;
// transcript and videoSiteUrl not both (neither is allowed: the title and
// keywords are then all there is).
func ValidateDescription(in DescriptionInput) (Description, error) {
	f := apierr.Fields{}
	var d Description
	if in.Title == nil {
		f.Add("title", "is required")
	} else if d.Title = line(f, "title", *in.Title, MaxVideoTitle); d.Title == "" {
		f.Add("title", "must not be empty")
	}
	d.Video = video(f, in.VideoSiteURL, in.Transcript, false, 1)
	d.Keywords = keywords(f, in.Keywords)
	if len(in.Links) > MaxLinks {
		f.Add("links", fmt.Sprintf("at most %d links", MaxLinks))
	}
	for i, l := range in.Links[:min(len(in.Links), MaxLinks)] {
		field := fmt.Sprintf("links[%d]", i)
		var out textai.Link
		if l.Title != nil {
			out.Title = line(f, field+".title", *l.Title, MaxLinkTitle)
		}
		if l.URL == nil {
			f.Add(field+".url", "is required")
		} else if u := strings.TrimSpace(*l.URL); !httpURL(u) {
			f.Add(field+".url", "must be an absolute http or https URL of at most 2048 characters")
		} else {
			out.URL = u
		}
		d.Links = append(d.Links, out)
	}
	return d, f.Err()
}

// video checks the either/or pair. required: one must be sent.
func video(f apierr.Fields, site, transcript *string, required bool, minTranscript int) Video {
	var v Video
	switch {
	case site != nil && transcript != nil:
		f.Add("videoSiteUrl", "send either videoSiteUrl or transcript, not both")
		f.Add("transcript", "send either videoSiteUrl or transcript, not both")
		return v
	case site == nil && transcript == nil:
		if required {
			f.Add("videoSiteUrl", "send one of videoSiteUrl and transcript")
		}
		return v
	case site != nil:
		raw := strings.TrimSpace(*site)
		if !textcheck.Check(f, "videoSiteUrl", raw, false) {
			return v
		}
		if len(raw) > MaxURL {
			f.Add("videoSiteUrl", fmt.Sprintf("must be at most %d characters", MaxURL))
			return v
		}
		src, err := videosite.Parse(raw)
		if err != nil {
			f.Add("videoSiteUrl", "not a video address: want a video-site link (watch, youtu.be, shorts, embed, live) or a direct MP4/WebM/MOV URL")
			return v
		}
		v.Site = &src
	default:
		t := strings.TrimSpace(*transcript)
		if !textcheck.Check(f, "transcript", t, true) {
			return v
		}
		switch n := textai.CodePoints(t); {
		case n < minTranscript && minTranscript > 1:
			f.Add("transcript", fmt.Sprintf("must be at least %d characters, got %d", minTranscript, n))
		case n == 0:
			f.Add("transcript", "must not be empty")
		case n > MaxTranscript:
			f.Add("transcript", fmt.Sprintf("must be at most %d characters, got %d", MaxTranscript, n))
		}
		v.Transcript = t
	}
	return v
}

func line(f apierr.Fields, field, s string, limit int) string {
	s = strings.TrimSpace(s)
	if !textcheck.Check(f, field, s, false) {
		return s
	}
	if n := textai.CodePoints(s); n > limit {
		f.Add(field, fmt.Sprintf("must be at most %d characters, got %d", limit, n))
	}
	return s
}

func keywords(f apierr.Fields, in []string) []string {
	if len(in) > MaxKeywords {
		f.Add("keywords", fmt.Sprintf("at most %d keywords", MaxKeywords))
		return nil
	}
	out := make([]string, 0, len(in))
	for i, k := range in {
		field := fmt.Sprintf("keywords[%d]", i)
		k = line(f, field, k, MaxKeyword)
		f.Check(k != "", field, "must not be empty")
		out = append(out, k)
	}
	return out
}

func httpURL(s string) bool {
	if len(s) > MaxURL {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil
}
