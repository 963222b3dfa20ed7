package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// waitArgument is the argument added to tools that start long work.
const waitArgument = "wait"

// waiter lets a tool that starts long work (a render, a project's
// preparation) poll it until it ends, reporting MCP progress.
type waiter struct {
	describe string
	// poll reads one item; its path parameter pollParam takes the id.
	poll      *operation
	pollParam string
	// ids lists the items the start call created, from its body.
	ids func(body map[string]any) []string
	// done reports whether an item (the data of a poll) has ended.
	done func(item map[string]any) bool
	// progress says how far an item is, 0 to 100, and in what step.
	progress func(item map[string]any) (float64, string)
	// assemble puts the last polled items into the start call's body.
	assemble func(body map[string]any, items []map[string]any)
}

func newWaiters(ops map[string]*operation) (map[string]*waiter, error) {
	out := map[string]*waiter{}
	if getRender, ok := ops["getRender"]; ok {
		out["startRenders"] = &waiter{
			describe: "With wait (the default) the tool polls every render until it is completed or failed, " +
				"sending MCP progress notifications (0 to 100) when the call carries a progressToken, and returns the " +
				"render jobs with their outputUrl; wait false returns at once with the jobs pending.",
			poll: getRender, pollParam: "renderId",
			ids: func(body map[string]any) []string {
				var ids []string
				for _, r := range list(object(body["data"])["renders"]) {
					if id, ok := object(r)["id"].(string); ok {
						ids = append(ids, id)
					}
				}
				return ids
			},
			done: func(item map[string]any) bool {
				return item["status"] == "completed" || item["status"] == "failed"
			},
			progress: func(item map[string]any) (float64, string) {
				p, _ := item["progress"].(float64)
				step, _ := item["currentStep"].(string)
				return p, fmt.Sprintf("%v %s", item["status"], step)
			},
			assemble: func(body map[string]any, items []map[string]any) {
				data := object(body["data"])
				renders := make([]any, len(items))
				for i, it := range items {
					renders[i] = it
				}
				data["renders"] = renders
			},
		}
	}
	if getProject, ok := ops["getClipProject"]; ok {
		steps, err := enumAt(getProject.Output, "data", "preparationStep")
		if err != nil {
			return nil, fmt.Errorf("mcp: getClipProject: %w", err)
		}
		out["createClipProject"] = &waiter{
			describe: "With wait (the default) the tool polls the project until its downloadStatus is ready or failed, " +
				"sending MCP progress notifications by preparation step when the call carries a progressToken; " +
				"wait false returns the analysis at once, while the video is still being prepared.",
			poll: getProject, pollParam: "projectId",
			ids: func(body map[string]any) []string {
				if id, ok := object(body["data"])["id"].(string); ok {
					return []string{id}
				}
				return nil
			},
			done: func(item map[string]any) bool { return item["downloadStatus"] != "downloading" },
			progress: func(item map[string]any) (float64, string) {
				step, _ := item["preparationStep"].(string)
				i := slices.Index(steps, step)
				if i < 0 || len(steps) < 2 {
					return 0, step
				}
				return float64(100*i) / float64(len(steps)-1), step
			},
			assemble: func(body map[string]any, items []map[string]any) {
				if len(items) == 1 {
					body["data"] = items[0]
				}
			},
		}
	}
	return out, nil
}

// enumAt returns the string enum of the property at path in schema.
func enumAt(schema map[string]any, path ...string) ([]string, error) {
	s := schema
	for _, name := range path {
		s = object(object(s["properties"])[name])
	}
	var out []string
	for _, v := range list(s["enum"]) {
		if str, ok := v.(string); ok {
			out = append(out, str)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no enum at %s", strings.Join(path, "."))
	}
	return out, nil
}

// await polls the items the start call created until all have ended, the
// wait limit passes or ctx ends, notifying progress on the way. It
// returns the body to answer with and whether every item ended.
func (s *server) await(ctx context.Context, req *sdk.CallToolRequest, t *tool, body map[string]any) (map[string]any, bool, error) {
	w := t.wait
	ids := w.ids(body)
	if len(ids) == 0 {
		return body, true, nil
	}
	token := req.Params.GetProgressToken()
	deadline := time.Now().Add(s.cfg.MaxWait)
	items := make([]map[string]any, len(ids))
	last := -1.0
	for {
		ended := 0
		sum := 0.0
		var steps []string
		for i, id := range ids {
			if items[i] != nil && w.done(items[i]) {
				ended++
				sum += 100
				continue
			}
			got, err := s.call(ctx, req, w.poll, map[string]any{w.pollParam: id}, false)
			if err != nil {
				return nil, false, err
			}
			if got.apiErr != nil {
				return nil, false, got.apiErr
			}
			items[i] = object(got.body["data"])
			p, step := w.progress(items[i])
			if w.done(items[i]) {
				ended++
				p = 100
			}
			sum += p
			steps = append(steps, step)
		}
		progress := sum / float64(len(ids))
		if token != nil && progress > last {
			last = progress
			msg := fmt.Sprintf("%d of %d ended", ended, len(ids))
			if len(steps) > 0 {
				msg += "; " + strings.Join(steps, ", ")
			}
			if err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
				ProgressToken: token, Progress: progress, Total: 100, Message: msg,
			}); err != nil && ctx.Err() == nil {
				s.cfg.Logger.Warn("mcp: progress notification", "err", err)
			}
		}
		if ended == len(ids) {
			w.assemble(body, items)
			return body, true, nil
		}
		if time.Now().After(deadline) {
			w.assemble(body, items)
			return body, false, nil
		}
		select {
		case <-ctx.Done():
			return nil, false, ctx.Err()
		case <-time.After(s.cfg.PollInterval):
		}
	}
}

func object(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}
