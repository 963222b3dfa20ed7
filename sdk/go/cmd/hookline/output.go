package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	hookline "hookline.dev/sdk/go"
)

// out prints results: the API's data as JSON with --json, else lines for
// people.
type out struct {
	stdout, stderr io.Writer
	json           bool
}

// result prints v as JSON, or calls human.
func (o *out) result(v any, human func(w io.Writer)) error {
	if o.json {
		enc := json.NewEncoder(o.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	human(o.stdout)
	return nil
}

// note prints a line for people on stderr (progress, saved files), so
// stdout stays the result.
func (o *out) note(format string, args ...any) {
	_, _ = fmt.Fprintf(o.stderr, format+"\n", args...)
}

// terminal says whether w is an interactive terminal.
func terminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progress shows the progress of several jobs: one redrawn bar on a
// terminal, a plain line per change otherwise.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	order []string
	state map[string]string
	pct   map[string]float64
}

func newProgress(w io.Writer, ids []string) *progress {
	return &progress{w: w, tty: terminal(w), order: ids, state: map[string]string{}, pct: map[string]float64{}}
}

// update records a job's state and shows it.
func (p *progress) update(id, state string, pct float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.state[id], p.pct[id] = state, pct
	if !p.tty {
		_, _ = fmt.Fprintf(p.w, "%s: %3.0f%% %s\n", short(id), pct, state)
		return
	}
	var sum float64
	var parts []string
	for _, j := range p.order {
		sum += p.pct[j]
		if s := p.state[j]; s != "" {
			parts = append(parts, short(j)+" "+s)
		}
	}
	mean := sum / float64(len(p.order))
	const width = 30
	filled := int(mean / 100 * width)
	_, _ = fmt.Fprintf(p.w, "\r\033[K[%s%s] %3.0f%%  %s", strings.Repeat("#", filled), strings.Repeat("-", width-filled), mean, strings.Join(parts, ", "))
}

// done ends the bar's line.
func (p *progress) done() {
	if p.tty {
		_, _ = fmt.Fprintln(p.w)
	}
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// save downloads url into path.
func save(ctx context.Context, c *hookline.Client, url, path string) (int64, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return 0, err
		}
	}
	f, err := os.Create(path) //nolint:gosec // G304: the caller names where to save
	if err != nil {
		return 0, err
	}
	n, err := c.Download(ctx, url, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
	}
	return n, err
}

func orNone(s *string) string {
	if s == nil || *s == "" {
		return "-"
	}
	return *s
}

// thumbnailLines prints a thumbnail for people.
func thumbnailLines(w io.Writer, t *hookline.Thumbnail) {
	_, _ = fmt.Fprintf(w, "%s  %s  %dx%d  %s\n  %s\n", t.ID, t.Kind, t.Width, t.Height, t.Engine, t.ImageURL)
	if len(t.Applied) > 0 {
		_, _ = fmt.Fprintf(w, "  applied: %s\n", strings.Join(t.Applied, ", "))
	}
}
