package service

import (
	"context"
	"errors"
	"fmt"
	"time"

	"hookline.dev/pkg/ai/nlp"
	"hookline.dev/pkg/media/videosite"
	"hookline.dev/pkg/platform/apierr"
	"hookline.dev/pkg/platform/principal"
	"hookline.dev/services/thumbnails/internal/textai"
	"hookline.dev/services/thumbnails/internal/thumbnail"
	"hookline.dev/services/thumbnails/internal/videotext"
)

// Videos reads a hosted video's metadata and captions (*videosite.Client).
// Errors: videosite.ErrNoCaptions, ErrUnavailable, ErrForbidden, ctx's.
type Videos interface {
	Metadata(ctx context.Context, src videosite.Source) (videosite.Metadata, error)
	Captions(ctx context.Context, src videosite.Source) (videosite.Captions, error)
	Thumbnail(ctx context.Context, id string) (videosite.Thumbnail, error)
}

// OpOptimize names optimize in billing's usage history.
const OpOptimize = "thumbnails.optimize"

// videoDeadline bounds fetching one video's metadata and captions: these
// endpoints answer at once, so a slow video site is a 503, not a hang.
const videoDeadline = 20 * time.Second

// Analyze answers three thumbnail concepts for a video. Free.
func (s *Service) Analyze(ctx context.Context, in videotext.AnalyzeInput) (textai.Analysis, error) {
	a, err := videotext.ValidateAnalyze(in)
	if err != nil {
		return textai.Analysis{}, err
	}
	title := a.Title
	if in.VideoTitle == nil {
		title = "" // the video's own title, when it has one
	}
	src, err := s.textSource(ctx, a.Video, title)
	if err != nil {
		return textai.Analysis{}, err
	}
	if src.Title == "" {
		src.Title = videotext.DefaultVideoTitle
	}
	return s.Text.Concepts(ctx, src)
}

// Titles suggests SEO titles. Free.
func (s *Service) Titles(ctx context.Context, in videotext.TitlesInput) (textai.Titles, error) {
	t, err := videotext.ValidateTitles(in)
	if err != nil {
		return textai.Titles{}, err
	}
	src, err := s.textSource(ctx, t.Video, t.Title)
	if err != nil {
		return textai.Titles{}, err
	}
	return s.Text.Titles(ctx, textai.TitlesInput{Source: src, Keywords: t.Keywords, Count: t.Count})
}

// Description writes a video description. Free.
func (s *Service) Description(ctx context.Context, in videotext.DescriptionInput) (textai.Description, error) {
	d, err := videotext.ValidateDescription(in)
	if err != nil {
		return textai.Description{}, err
	}
	src, err := s.textSource(ctx, d.Video, d.Title)
	if err != nil {
		return textai.Description{}, err
	}
	return s.Text.Description(ctx, textai.DescriptionInput{Title: d.Title, Source: src, Keywords: d.Keywords, Links: d.Links})
}

// Optimized is an optimize result: the thumbnail drawn from the prompt.
type Optimized struct {
	Thumbnail thumbnail.Thumbnail
	Prompt    string
	Headline  string
	Engine    string
}

// Optimize rewrites a rough idea into a prompt and headline and draws it,
// for 1 credit: the generate saga with the optimized prompt. A retry of
// the same request (Idempotency-Key) returns the thumbnail it made.
func (s *Service) Optimize(ctx context.Context, p principal.Principal, in thumbnail.OptimizeInput) (Optimized, error) {
	spec, err := thumbnail.ValidateOptimize(in)
	if err != nil {
		return Optimized{}, err
	}
	res, err := s.resolve(ctx, p.OrgID, refsOfSpec(spec), true)
	if err != nil {
		return Optimized{}, err
	}
	pd := newPaid(p, OpOptimize, 1)
	if done, err := s.replay(ctx, pd); err != nil || len(done) > 0 {
		t, err := first(done, err)
		// The prompt is the optimized one; its quoted headline is what was set.
		return Optimized{Thumbnail: t, Prompt: t.Prompt, Headline: textai.QuotedHeadline(t.Prompt), Engine: "replay"}, err
	}
	// The wording is free and never fails (a model that does falls back to
	// the local engine), so it runs before the reservation: a request the
	// organization cannot pay for is refused before any model is asked.
	o, err := s.Text.Optimize(ctx, spec.Prompt)
	if err != nil {
		return Optimized{}, err
	}
	j := &pd.jobs[0]
	fill(j, thumbnail.Optimized, spec, o.Prompt, res)
	j.req.Headline = o.Headline
	t, err := first(s.run(ctx, pd))
	if err != nil {
		return Optimized{}, err
	}
	return Optimized{Thumbnail: t, Prompt: o.Prompt, Headline: o.Headline, Engine: o.Engine}, nil
}

// textSource is the text of a validated video choice: the transcript as
// sent, or a hosted video's captions and metadata.
func (s *Service) textSource(ctx context.Context, v videotext.Video, title string) (textai.Source, error) {
	src := textai.Source{Title: title, Text: v.Transcript}
	if v.Site == nil {
		return src, nil
	}
	ctx, cancel := context.WithTimeout(ctx, videoDeadline)
	defer cancel()
	caps, err := s.Videos.Captions(ctx, *v.Site)
	if err != nil {
		return src, videoError(err)
	}
	for _, seg := range caps.Segments {
		src.Segments = append(src.Segments, nlp.Timed{Start: seg.Start, End: seg.End, Text: seg.Text})
		if src.Text != "" {
			src.Text += " "
		}
		src.Text += seg.Text
	}
	if textai.CodePoints(src.Text) < videotext.MinTranscript {
		return src, apierr.Field("videoSiteUrl", videotext.NoTranscript)
	}
	// Metadata adds the title, length and chapters; captions are what
	// matter, so a metadata failure only costs those.
	if md, err := s.Videos.Metadata(ctx, *v.Site); err == nil {
		if src.Title == "" {
			src.Title = md.Title
		}
		src.Duration = md.Duration
		for _, c := range md.Chapters {
			src.Chapters = append(src.Chapters, textai.Chapter{Start: c.Start, Title: c.Title})
		}
	} else if ctx.Err() != nil {
		return src, videoError(err)
	} else {
		s.log().WarnContext(ctx, "video metadata", "video", v.Site.URL, "err", err)
	}
	if src.Duration == 0 && len(src.Segments) > 0 {
		src.Duration = src.Segments[len(src.Segments)-1].End
	}
	return src, nil
}

// videoError maps a video site failure onto the API's errors.
func videoError(err error) error {
	switch {
	case errors.Is(err, videosite.ErrNoCaptions):
		return apierr.Field("videoSiteUrl", videotext.NoTranscript)
	case errors.Is(err, videosite.ErrForbidden):
		return apierr.Field("videoSiteUrl", "this address may not be fetched")
	case errors.Is(err, videosite.ErrInvalidURL):
		return apierr.Field("videoSiteUrl", "not a reachable video")
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, videosite.ErrUnavailable):
		return apierr.Wrap(apierr.Unavailable, "the video site could not be reached; try again, or send transcript", err).
			With("source", "videoSite")
	}
	return fmt.Errorf("reading the video: %w", err)
}
