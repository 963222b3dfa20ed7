package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	hookline "hookline.dev/sdk/go"
)

func thumbnails(ctx context.Context, e *env, args []string) error {
	table := map[string]command{
		"generate": generate,
		"critique": critique,
		"list":     listThumbnails,
		"get": func(ctx context.Context, e *env, args []string) error {
			pos, err := parse(newFlags("thumbnails get"), args, 1, 1)
			if err != nil {
				return err
			}
			t, err := e.c.GetThumbnail(ctx, pos[0])
			if err != nil {
				return err
			}
			return e.out.result(t, func(w io.Writer) { thumbnailLines(w, t) })
		},
		"delete": func(ctx context.Context, e *env, args []string) error {
			pos, err := parse(newFlags("thumbnails delete"), args, 1, 1)
			if err != nil {
				return err
			}
			if err := e.c.DeleteThumbnail(ctx, pos[0]); err != nil {
				return err
			}
			e.out.note("deleted %s", pos[0])
			return nil
		},
	}
	for name, ed := range editCommands {
		table[name] = ed.command(name)
	}
	return sub(ctx, e, "thumbnails", args, table)
}

// finish prints a thumbnail and saves its image when --out names a file.
func finish(ctx context.Context, e *env, outFile string, t *hookline.Thumbnail, v any) error {
	if outFile != "" {
		n, err := save(ctx, e.c, t.ImageURL, outFile)
		if err != nil {
			return err
		}
		e.out.note("saved %s (%d bytes)", outFile, n)
	}
	return e.out.result(v, func(w io.Writer) { thumbnailLines(w, t) })
}

func generate(ctx context.Context, e *env, args []string) error {
	fs := newFlags("thumbnails generate")
	prompt := fs.String("prompt", "", "what to draw")
	var faceArgs, refs list
	fs.Var(&faceArgs, "face", "a saved face, by id or name; repeat for more")
	fs.Var(&refs, "reference", "a style reference (URL or file); repeat for more")
	style := fs.String("style", "", "a style id")
	brand := fs.String("brand", "", "a brand id")
	aspect := fs.String("aspect", "", "16:9 or 9:16")
	collection := fs.String("collection", "", "a collection id")
	outFile := fs.String("out", "", "save the image here")
	if _, err := parse(fs, args, 0, 0); err != nil {
		return err
	}
	if err := required(fs, "prompt"); err != nil {
		return err
	}
	req := &hookline.ThumbnailCreate{Prompt: *prompt, StyleID: *style, BrandID: *brand, AspectRatio: *aspect, CollectionID: *collection}
	for _, f := range faceArgs {
		id, err := faceID(ctx, e.c, f)
		if err != nil {
			return err
		}
		req.FaceIDs = append(req.FaceIDs, id)
	}
	var err error
	if req.ReferenceImageURLs, err = images(ctx, e.c, refs); err != nil {
		return err
	}
	t, err := e.c.CreateThumbnail(ctx, req)
	if err != nil {
		return err
	}
	return finish(ctx, e, *outFile, t, t)
}

// edit is one edit's command line: its flags and the call they make.
type edit struct {
	flags func(fs *flag.FlagSet) func(ctx context.Context, e *env) (*hookline.EditResult, error)
	need  []string
}

func (ed edit) command(name string) command {
	return func(ctx context.Context, e *env, args []string) error {
		fs := newFlags("thumbnails " + name)
		outFile := fs.String("out", "", "save the image here")
		do := ed.flags(fs)
		if _, err := parse(fs, args, 0, 0); err != nil {
			return err
		}
		if err := required(fs, ed.need...); err != nil {
			return err
		}
		r, err := do(ctx, e)
		if err != nil {
			return err
		}
		return finish(ctx, e, *outFile, &r.Thumbnail, r)
	}
}

// editCommands are the eight edits, each named as its path.
var editCommands = map[string]edit{
	"edit": {need: []string{"image", "prompt"}, flags: func(fs *flag.FlagSet) func(context.Context, *env) (*hookline.EditResult, error) {
		img, prompt, aspect := fs.String("image", "", ""), fs.String("prompt", "", ""), fs.String("aspect", "", "")
		var refs list
		fs.Var(&refs, "reference", "")
		return func(ctx context.Context, e *env) (*hookline.EditResult, error) {
			u, err := image(ctx, e.c, *img)
			if err != nil {
				return nil, err
			}
			r, err := images(ctx, e.c, refs)
			if err != nil {
				return nil, err
			}
			return e.c.EditImage(ctx, &hookline.EditRequest{ImageURL: u, Prompt: *prompt, ReferenceImageURLs: r, AspectRatio: *aspect})
		}
	}},
	"face-swap": {need: []string{"image"}, flags: func(fs *flag.FlagSet) func(context.Context, *env) (*hookline.EditResult, error) {
		img, faceImg, face := fs.String("image", "", ""), fs.String("face-image", "", ""), fs.String("face", "", "")
		return func(ctx context.Context, e *env) (*hookline.EditResult, error) {
			if (*faceImg == "") == (*face == "") {
				return nil, usagef("thumbnails face-swap: give one of --face-image and --face")
			}
			u, err := image(ctx, e.c, *img)
			if err != nil {
				return nil, err
			}
			fu, err := image(ctx, e.c, *faceImg)
			if err != nil {
				return nil, err
			}
			id, err := faceID(ctx, e.c, *face)
			if err != nil {
				return nil, err
			}
			return e.c.FaceSwap(ctx, &hookline.FaceSwapRequest{ImageURL: u, FaceImageURL: fu, FaceID: id})
		}
	}},
	"background-remove": {need: []string{"image"}, flags: func(fs *flag.FlagSet) func(context.Context, *env) (*hookline.EditResult, error) {
		img := fs.String("image", "", "")
		return func(ctx context.Context, e *env) (*hookline.EditResult, error) {
			u, err := image(ctx, e.c, *img)
			if err != nil {
				return nil, err
			}
			return e.c.RemoveBackground(ctx, &hookline.BackgroundRemoveRequest{ImageURL: u})
		}
	}},
	"background-replace": {need: []string{"image", "background"}, flags: func(fs *flag.FlagSet) func(context.Context, *env) (*hookline.EditResult, error) {
		img, bg, aspect := fs.String("image", "", ""), fs.String("background", "", ""), fs.String("aspect", "", "")
		return func(ctx context.Context, e *env) (*hookline.EditResult, error) {
			u, err := image(ctx, e.c, *img)
			if err != nil {
				return nil, err
			}
			return e.c.ReplaceBackground(ctx, &hookline.BackgroundReplaceRequest{ImageURL: u, BackgroundPrompt: *bg, AspectRatio: *aspect})
		}
	}},
	"color-enhance": {need: []string{"image", "preset"}, flags: func(fs *flag.FlagSet) func(context.Context, *env) (*hookline.EditResult, error) {
		img, preset, intensity := fs.String("image", "", ""), fs.String("preset", "", ""), fs.String("intensity", "", "")
		return func(ctx context.Context, e *env) (*hookline.EditResult, error) {
			u, err := image(ctx, e.c, *img)
			if err != nil {
				return nil, err
			}
			return e.c.EnhanceColor(ctx, &hookline.ColorEnhanceRequest{ImageURL: u, Preset: *preset, Intensity: *intensity})
		}
	}},
	"upscale": {need: []string{"image", "scale"}, flags: func(fs *flag.FlagSet) func(context.Context, *env) (*hookline.EditResult, error) {
		img, scale := fs.String("image", "", ""), fs.String("scale", "2x", "")
		return func(ctx context.Context, e *env) (*hookline.EditResult, error) {
			u, err := image(ctx, e.c, *img)
			if err != nil {
				return nil, err
			}
			return e.c.UpscaleImage(ctx, &hookline.UpscaleRequest{ImageURL: u, Scale: *scale})
		}
	}},
	"filter": {need: []string{"image", "filter"}, flags: func(fs *flag.FlagSet) func(context.Context, *env) (*hookline.EditResult, error) {
		img, filter := fs.String("image", "", ""), fs.String("filter", "", "")
		return func(ctx context.Context, e *env) (*hookline.EditResult, error) {
			u, err := image(ctx, e.c, *img)
			if err != nil {
				return nil, err
			}
			return e.c.FilterImage(ctx, &hookline.FilterRequest{ImageURL: u, FilterPrompt: *filter})
		}
	}},
	"combine": {need: []string{"image", "image2", "prompt"}, flags: func(fs *flag.FlagSet) func(context.Context, *env) (*hookline.EditResult, error) {
		img1, img2, prompt, aspect := fs.String("image", "", ""), fs.String("image2", "", ""), fs.String("prompt", "", ""), fs.String("aspect", "", "")
		return func(ctx context.Context, e *env) (*hookline.EditResult, error) {
			urls, err := images(ctx, e.c, []string{*img1, *img2})
			if err != nil {
				return nil, err
			}
			return e.c.CombineImages(ctx, &hookline.CombineRequest{ImageURL1: urls[0], ImageURL2: urls[1], Prompt: *prompt, AspectRatio: *aspect})
		}
	}},
}

func critique(ctx context.Context, e *env, args []string) error {
	fs := newFlags("thumbnails critique")
	img, niche := fs.String("image", "", "the thumbnail (URL or file)"), fs.String("niche", "", "gaming, finance, …")
	if _, err := parse(fs, args, 0, 0); err != nil {
		return err
	}
	if err := required(fs, "image"); err != nil {
		return err
	}
	u, err := image(ctx, e.c, *img)
	if err != nil {
		return err
	}
	cr, err := e.c.CritiqueThumbnail(ctx, &hookline.CritiqueRequest{ImageURL: u, Niche: *niche})
	if err != nil {
		return err
	}
	return e.out.result(cr, func(w io.Writer) {
		s := cr.Scores
		_, _ = fmt.Fprintf(w, "overall %.1f  contrast %.1f  composition %.1f  text %.1f  faces %.1f  colour %.1f  click %.1f  emotion %.1f\n%s\n",
			cr.OverallScore, s.Contrast, s.Composition, s.TextReadability, s.FaceVisibility, s.ColorAppeal, s.Clickability, s.EmotionalImpact, cr.Summary)
		for _, imp := range cr.Improvements {
			_, _ = fmt.Fprintf(w, "  - %s\n", imp)
		}
	})
}

func listThumbnails(ctx context.Context, e *env, args []string) error {
	fs := newFlags("thumbnails list")
	kind := fs.String("kind", "", "generated, variation, remix, optimized or edit")
	limit := fs.Int("limit", 20, "how many")
	if _, err := parse(fs, args, 0, 0); err != nil {
		return err
	}
	page, err := e.c.ListThumbnails(ctx, &hookline.ListThumbnailsParams{ListParams: hookline.ListParams{Limit: *limit}, Kind: *kind})
	if err != nil {
		return err
	}
	return e.out.result(page, func(w io.Writer) {
		for _, t := range page.Data {
			_, _ = fmt.Fprintf(w, "%s  %-9s %s  %s\n", t.ID, t.Kind, t.CreatedAt.Format("2006-01-02 15:04"), strings.TrimSpace(firstLine(t.Prompt)))
		}
	})
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}
