package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	hookline "hookline.dev/sdk/go"
)

func webhookLines(w io.Writer, h *hookline.Webhook) {
	state := "enabled"
	if !h.Enabled {
		state = "disabled"
	}
	events := "all events"
	if len(h.EventTypes) > 0 {
		events = strings.Join(h.EventTypes, ", ")
	}
	_, _ = fmt.Fprintf(w, "%s  %s  %s  %s\n", h.ID, state, h.URL, events)
	if h.DisabledReason != nil {
		_, _ = fmt.Fprintf(w, "  disabled: %s\n", *h.DisabledReason)
	}
}

func deliveryLines(w io.Writer, d *hookline.WebhookDelivery) {
	code, latency := "-", "-"
	if d.ResponseCode != nil {
		code = fmt.Sprint(*d.ResponseCode)
	}
	if d.LatencyMS != nil {
		latency = fmt.Sprintf("%.0f ms", *d.LatencyMS)
	}
	_, _ = fmt.Fprintf(w, "%s  %-26s %-9s attempts %d  HTTP %s  %s\n", d.ID, d.EventType, d.Status, d.Attempts, code, latency)
}

func webhooks(ctx context.Context, e *env, args []string) error {
	byID := func(name string, do func(ctx context.Context, id string) (any, func(io.Writer), error)) command {
		return func(ctx context.Context, e *env, args []string) error {
			pos, err := parse(newFlags("webhooks "+name), args, 1, 1)
			if err != nil {
				return err
			}
			v, human, err := do(ctx, pos[0])
			if err != nil {
				return err
			}
			return e.out.result(v, human)
		}
	}
	return sub(ctx, e, "webhooks", args, map[string]command{
		"list": func(ctx context.Context, e *env, args []string) error {
			if _, err := parse(newFlags("webhooks list"), args, 0, 0); err != nil {
				return err
			}
			var hooks []hookline.Webhook
			for h, err := range e.c.AllWebhooks(ctx, &hookline.ListParams{Limit: 100}) {
				if err != nil {
					return err
				}
				hooks = append(hooks, h)
			}
			return e.out.result(hooks, func(w io.Writer) {
				for i := range hooks {
					webhookLines(w, &hooks[i])
				}
			})
		},
		"create": func(ctx context.Context, e *env, args []string) error {
			fs := newFlags("webhooks create")
			var req hookline.WebhookCreate
			var events list
			fs.StringVar(&req.URL, "url", "", "where to deliver")
			fs.Var(&events, "event", "an event type; repeat for more (none: all)")
			fs.StringVar(&req.Description, "description", "", "")
			threshold := fs.Int("credits-low", 0, "send credits.low below this balance")
			disabled := fs.Bool("disabled", false, "create it disabled")
			if _, err := parse(fs, args, 0, 0); err != nil {
				return err
			}
			if err := required(fs, "url"); err != nil {
				return err
			}
			req.EventTypes = events
			if *threshold > 0 {
				req.CreditsLowThreshold = threshold
			}
			if *disabled {
				f := false
				req.Enabled = &f
			}
			h, err := e.c.CreateWebhook(ctx, &req)
			if err != nil {
				return err
			}
			return e.out.result(h, func(w io.Writer) {
				webhookLines(w, &h.Webhook)
				_, _ = fmt.Fprintf(w, "  secret %s (shown once: keep it)\n", h.Secret)
			})
		},
		"update": func(ctx context.Context, e *env, args []string) error {
			fs := newFlags("webhooks update")
			var req hookline.WebhookUpdate
			var events list
			fs.StringVar(&req.URL, "url", "", "")
			fs.Var(&events, "event", "")
			description := fs.String("description", "", "")
			enable, disable := fs.Bool("enable", false, ""), fs.Bool("disable", false, "")
			pos, err := parse(fs, args, 1, 1)
			if err != nil {
				return err
			}
			req.EventTypes = events
			fs.Visit(func(f *flag.Flag) {
				if f.Name == "description" {
					req.Description = description
				}
			})
			if *enable || *disable {
				on := *enable && !*disable
				req.Enabled = &on
			}
			h, err := e.c.UpdateWebhook(ctx, pos[0], &req)
			if err != nil {
				return err
			}
			return e.out.result(h, func(w io.Writer) { webhookLines(w, h) })
		},
		"get": byID("get", func(ctx context.Context, id string) (any, func(io.Writer), error) {
			h, err := e.c.GetWebhook(ctx, id)
			return h, func(w io.Writer) { webhookLines(w, h) }, err
		}),
		"delete": byID("delete", func(ctx context.Context, id string) (any, func(io.Writer), error) {
			err := e.c.DeleteWebhook(ctx, id)
			return map[string]string{"deleted": id}, func(w io.Writer) { _, _ = fmt.Fprintf(w, "deleted %s\n", id) }, err
		}),
		"rotate-secret": byID("rotate-secret", func(ctx context.Context, id string) (any, func(io.Writer), error) {
			s, err := e.c.RotateWebhookSecret(ctx, id)
			return s, func(w io.Writer) {
				_, _ = fmt.Fprintf(w, "secret %s (shown once: keep it)\n", s.Secret)
				if s.PreviousSecretExpiresAt != nil {
					_, _ = fmt.Fprintf(w, "the previous secret stays valid until %s\n", s.PreviousSecretExpiresAt.Format("2006-01-02 15:04 MST"))
				}
			}, err
		}),
		"test": byID("test", func(ctx context.Context, id string) (any, func(io.Writer), error) {
			d, err := e.c.TestWebhook(ctx, id)
			return d, func(w io.Writer) { deliveryLines(w, d) }, err
		}),
		"deliveries": byID("deliveries", func(ctx context.Context, id string) (any, func(io.Writer), error) {
			page, err := e.c.ListWebhookDeliveries(ctx, id, &hookline.ListParams{Limit: 50})
			if err != nil {
				return nil, nil, err
			}
			return page, func(w io.Writer) {
				for i := range page.Data {
					deliveryLines(w, &page.Data[i])
				}
			}, nil
		}),
		"retry": func(ctx context.Context, e *env, args []string) error {
			pos, err := parse(newFlags("webhooks retry"), args, 2, 2)
			if err != nil {
				return err
			}
			d, err := e.c.RetryWebhookDelivery(ctx, pos[0], pos[1])
			if err != nil {
				return err
			}
			return e.out.result(d, func(w io.Writer) { deliveryLines(w, d) })
		},
	})
}
