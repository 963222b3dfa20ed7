package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	hookline "hookline.dev/sdk/go"
)

func clips(ctx context.Context, e *env, args []string) error {
	return sub(ctx, e, "clips", args, map[string]command{
		"create":  createProject,
		"get":     getProject,
		"render":  render,
		"renders": listRenders,
		"censor-words": func(ctx context.Context, e *env, args []string) error {
			return sub(ctx, e, "clips censor-words", args, map[string]command{"get": getCensorWords, "set": setCensorWords})
		},
		"transcript": transcript,
	})
}

// waitProject waits for a project's source, a line per preparation step.
func waitProject(ctx context.Context, e *env, id string) (*hookline.ClipProject, error) {
	return e.c.WaitForProject(ctx, id, &hookline.WaitOptions[hookline.ClipProject]{Progress: func(p *hookline.ClipProject) {
		e.out.note("project %s: %s (%s)", short(p.ID), p.DownloadStatus, p.PreparationStep)
	}})
}

func projectLines(w io.Writer, p *hookline.ClipProject) {
	_, _ = fmt.Fprintf(w, "%s  %s  %s  %s\n", p.ID, p.DownloadStatus, p.Format, p.VideoTitle)
	if p.Analysis.Prompt != nil {
		_, _ = fmt.Fprintf(w, "prompt: %s\n", *p.Analysis.Prompt)
	}
	for i, c := range p.Clips {
		_, _ = fmt.Fprintf(w, "%2d. %s  %5.1f–%5.1f s  score %3d  %s\n", i+1, c.ID, c.StartTime, c.EndTime, c.ViralScore, c.Title)
		if s := c.Scores; s != nil {
			_, _ = fmt.Fprintf(w, "    hook %d  flow %d  value %d  trend %d\n", s.Hook, s.Flow, s.Value, s.Trend)
		}
		if m := c.Match; m != nil && m.Matched {
			_, _ = fmt.Fprintf(w, "    matches: %s  %q\n", strings.Join(m.Terms, ", "), orNone(m.Quote))
		} else if m != nil {
			_, _ = fmt.Fprintln(w, "    does not match the prompt")
		}
		for _, r := range c.Reasons {
			_, _ = fmt.Fprintf(w, "    - %s\n", r)
		}
	}
}

func createProject(ctx context.Context, e *env, args []string) error {
	fs := newFlags("clips create")
	format := fs.String("format", "", "portrait or landscape")
	wait := fs.Bool("wait", false, "wait until the source is prepared")
	prompt := fs.String("prompt", "", `what to find ("the part where she explains pricing"): matching moments first`)
	var terms list
	fs.Var(&terms, "term", "a custom vocabulary term (repeatable)")
	pos, err := parse(fs, args, 1, 1)
	if err != nil {
		return err
	}
	p, err := e.c.CreateClipProject(ctx, &hookline.ClipProjectCreate{VideoSiteURL: pos[0], Format: *format, Vocabulary: terms, Prompt: *prompt})
	if err != nil {
		return err
	}
	if *wait && p.DownloadStatus == hookline.ProjectDownloading {
		if p, err = waitProject(ctx, e, p.ID); err != nil {
			return err
		}
	}
	return e.out.result(p, func(w io.Writer) { projectLines(w, p) })
}

func getProject(ctx context.Context, e *env, args []string) error {
	fs := newFlags("clips get")
	wait := fs.Bool("wait", false, "wait until the source is prepared")
	pos, err := parse(fs, args, 1, 1)
	if err != nil {
		return err
	}
	var p *hookline.ClipProject
	if *wait {
		p, err = waitProject(ctx, e, pos[0])
	} else {
		p, err = e.c.GetClipProject(ctx, pos[0])
	}
	if err != nil {
		return err
	}
	return e.out.result(p, func(w io.Writer) { projectLines(w, p) })
}

func listRenders(ctx context.Context, e *env, args []string) error {
	pos, err := parse(newFlags("clips renders"), args, 1, 1)
	if err != nil {
		return err
	}
	var jobs []hookline.RenderJob
	for r, err := range e.c.AllRenders(ctx, pos[0], &hookline.ListParams{Limit: 100}) {
		if err != nil {
			return err
		}
		jobs = append(jobs, r)
	}
	return e.out.result(jobs, func(w io.Writer) {
		for _, r := range jobs {
			_, _ = fmt.Fprintf(w, "%s  %-9s %3.0f%%  clip %s  %s\n", r.ID, r.Status, r.Progress, r.ClipID, orNone(r.OutputURL))
		}
	})
}

func render(ctx context.Context, e *env, args []string) error {
	fs := newFlags("clips render")
	style := fs.String("style", "", "subtitle style: bold, clean, minimal, energetic or glow")
	format := fs.String("format", "", "portrait or landscape")
	brand := fs.String("brand", "", "a brand id (logo, --brand-frame)")
	var opts hookline.RenderOptions
	fs.BoolVar(&opts.HookTitle, "hook-title", false, "show the hook as a title")
	fs.BoolVar(&opts.ProgressBar, "progress-bar", false, "draw a progress bar")
	fs.BoolVar(&opts.KeywordEmphasis, "keywords", false, "colour the keywords")
	fs.BoolVar(&opts.Broll, "broll", false, "insert b-roll")
	fs.BoolVar(&opts.Music, "music", false, "background music")
	fs.BoolVar(&opts.BrandFrame, "brand-frame", false, "a frame in the brand's colour")
	fs.StringVar(&opts.EndCardText, "end-card", "", "a call to action on an end card")
	fs.BoolVar(&opts.RemoveSilences, "remove-silences", false, "shorten pauses over 0.4 s to 0.15 s")
	fs.BoolVar(&opts.RemoveFillers, "remove-fillers", false, "cut um, uh and lone \"you know\"s")
	fs.BoolVar(&opts.AutoZoom, "auto-zoom", false, "punch in on the emphasised lines")
	fs.StringVar(&opts.Layout, "layout", "", "two people: auto, speaker, split or fill")
	fs.StringVar(&opts.Censor, "censor", "", "listed words: none, bleep or mute (masked in the captions)")
	fs.StringVar(&opts.CaptionLanguage, "caption-language", "", "translate the captions and hook title into this ISO 639-1 language (es)")
	wait := fs.Bool("wait", false, "wait until the renders end")
	download := fs.String("download", "", "save the MP4s in this directory (implies --wait)")
	pos, err := parse(fs, args, 2, -1)
	if err != nil {
		return err
	}
	req := &hookline.RenderRequest{ClipIDs: pos[1:], Format: *format, SubtitleStyle: *style, BrandID: *brand}
	if len(req.ClipIDs) == 1 {
		req.ClipID, req.ClipIDs = req.ClipIDs[0], nil
	}
	if opts != (hookline.RenderOptions{}) {
		req.Options = &opts
	}
	created, err := e.c.StartRenders(ctx, pos[0], req)
	if err != nil {
		return err
	}
	if !*wait && *download == "" {
		return e.out.result(created, func(w io.Writer) {
			for _, r := range created.Renders {
				_, _ = fmt.Fprintf(w, "%s  clip %s  %s\n", r.ID, r.ClipID, r.Status)
			}
			_, _ = fmt.Fprintf(w, "%d credits charged\n", created.CreditsCharged)
		})
	}
	jobs, err := waitRenders(ctx, e, created.Renders)
	if *download != "" {
		for _, j := range jobs {
			if j == nil || j.OutputURL == nil {
				continue
			}
			files := map[string]string{j.ID + ".mp4": *j.OutputURL}
			for _, x := range j.Exports {
				files[j.ID+"."+x.Format] = x.URL
			}
			for name, url := range files {
				path := filepath.Join(*download, name)
				n, derr := save(ctx, e.c, url, path)
				if derr != nil {
					err = errors.Join(err, derr)
					continue
				}
				e.out.note("saved %s (%d bytes)", path, n)
			}
		}
	}
	if perr := e.out.result(jobs, func(w io.Writer) {
		for _, j := range jobs {
			if j != nil {
				_, _ = fmt.Fprintf(w, "%s  %s  clip %s  %s\n", j.ID, j.Status, j.ClipID, orNone(j.OutputURL))
				if t := j.CaptionTranslation; t != nil {
					_, _ = fmt.Fprintf(w, "  captions in %s by %s (%s)\n", t.Language, t.Engine, t.Quality)
				}
			}
		}
	}); perr != nil {
		return perr
	}
	return err
}

// waitRenders waits for every render at once, with one progress display.
func waitRenders(ctx context.Context, e *env, started []hookline.RenderStarted) ([]*hookline.RenderJob, error) {
	ids := make([]string, len(started))
	for i, r := range started {
		ids[i] = r.ID
	}
	bar := newProgress(e.out.stderr, ids)
	jobs := make([]*hookline.RenderJob, len(ids))
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() {
			jobs[i], errs[i] = e.c.WaitForRender(ctx, id, &hookline.WaitOptions[hookline.RenderJob]{Progress: func(r *hookline.RenderJob) {
				bar.update(r.ID, r.CurrentStep, r.Progress)
			}})
		})
	}
	wg.Wait()
	bar.done()
	return jobs, errors.Join(errs...)
}

func censorLines(w io.Writer, l *hookline.CensorWords) {
	_, _ = fmt.Fprintf(w, "built in: %s, %d words and phrases\n", l.BuiltIn.Source, l.BuiltIn.Count)
	_, _ = fmt.Fprintf(w, "your own: %d\n", len(l.Words))
	for _, word := range l.Words {
		_, _ = fmt.Fprintf(w, "  %s\n", word)
	}
}

func getCensorWords(ctx context.Context, e *env, args []string) error {
	if _, err := parse(newFlags("clips censor-words get"), args, 0, 0); err != nil {
		return err
	}
	l, err := e.c.GetCensorWords(ctx)
	if err != nil {
		return err
	}
	return e.out.result(l, func(w io.Writer) { censorLines(w, l) })
}

func setCensorWords(ctx context.Context, e *env, args []string) error {
	words, err := parse(newFlags("clips censor-words set"), args, 0, -1)
	if err != nil {
		return err
	}
	l, err := e.c.SetCensorWords(ctx, &hookline.CensorWordsUpdate{Words: append([]string{}, words...)})
	if err != nil {
		return err
	}
	return e.out.result(l, func(w io.Writer) { censorLines(w, l) })
}
