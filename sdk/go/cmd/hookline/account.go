package main

import (
	"context"
	"fmt"
	"io"

	hookline "hookline.dev/sdk/go"
)

func credits(ctx context.Context, e *env, args []string) error {
	if _, err := parse(newFlags("credits"), args, 0, 0); err != nil {
		return err
	}
	cr, err := e.c.GetCredits(ctx)
	if err != nil {
		return err
	}
	return e.out.result(cr, func(w io.Writer) {
		_, _ = fmt.Fprintf(w, "%d credits (subscription %d, purchased %d), tier %s, billed %s\n",
			cr.Credits.Total, cr.Credits.Subscription, cr.Credits.Purchased, cr.Tier, cr.BillingCycle)
	})
}

func usageHistory(ctx context.Context, e *env, args []string) error {
	fs := newFlags("usage")
	limit := fs.Int("limit", 20, "how many records")
	if _, err := parse(fs, args, 0, 0); err != nil {
		return err
	}
	page, err := e.c.ListUsage(ctx, &hookline.ListParams{Limit: *limit})
	if err != nil {
		return err
	}
	return e.out.result(page, func(w io.Writer) {
		for _, u := range page.Data {
			_, _ = fmt.Fprintf(w, "%s  %-9s %3d  %s  %s %s\n", u.CreatedAt.Format("2006-01-02 15:04:05"), u.Status, u.Credits, u.Operation, u.ResourceType, u.ResourceID)
		}
	})
}

func faces(ctx context.Context, e *env, args []string) error {
	return sub(ctx, e, "faces", args, map[string]command{
		"list": func(ctx context.Context, e *env, args []string) error {
			if _, err := parse(newFlags("faces list"), args, 0, 0); err != nil {
				return err
			}
			var all []hookline.Face
			for f, err := range e.c.AllFaces(ctx, &hookline.ListParams{Limit: 100}) {
				if err != nil {
					return err
				}
				all = append(all, f)
			}
			return e.out.result(all, func(w io.Writer) {
				for _, f := range all {
					_, _ = fmt.Fprintf(w, "%s  %s  (%d photos)\n", f.ID, f.Name, len(f.ImageURLs))
				}
			})
		},
		"create": func(ctx context.Context, e *env, args []string) error {
			fs := newFlags("faces create")
			name := fs.String("name", "", "the person's name")
			var photos list
			fs.Var(&photos, "photo", "a photo (URL or file); repeat for more")
			if _, err := parse(fs, args, 0, 0); err != nil {
				return err
			}
			if err := required(fs, "name", "photo"); err != nil {
				return err
			}
			urls, err := images(ctx, e.c, photos)
			if err != nil {
				return err
			}
			f, err := e.c.CreateFace(ctx, &hookline.FaceCreate{Name: *name, ImageURLs: urls})
			if err != nil {
				return err
			}
			return e.out.result(f, func(w io.Writer) { _, _ = fmt.Fprintf(w, "%s  %s\n  %s\n", f.ID, f.Name, f.ThumbnailURL) })
		},
	})
}
