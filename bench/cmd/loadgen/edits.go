package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // the sizes of the edits' JPEG results are checked
	_ "image/png"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// An editOp is one edit of the benchmark: the endpoint and body of ours,
// and how it scales the source's sides (which is how both sides' results
// are checked before the load).
type editOp struct {
	path  string
	body  func(imageURL string) any
	scale int
}

var editOps = map[string]editOp{
	"upscale2x": {"/api/v1/thumbnails/edit/upscale", func(u string) any {
		return map[string]string{"imageUrl": u, "scale": "2x"}
	}, 2},
	"upscale4x": {"/api/v1/thumbnails/edit/upscale", func(u string) any {
		return map[string]string{"imageUrl": u, "scale": "4x"}
	}, 4},
	"color-enhance": {"/api/v1/thumbnails/edit/color-enhance", func(u string) any {
		return map[string]string{"imageUrl": u, "preset": "vibrant", "intensity": "medium"}
	}, 1},
}

// editWarmup is run, unrecorded, before each measurement: the first
// requests of a side pay for its connections, libvips' first use and heap
// growth, which neither side pays in its steady state.
const editWarmup = 3 * time.Second

// editLoad is one measured side of the edits benchmark.
type editLoad struct {
	op      string // a key of editOps
	label   string // the side, as printed: "hookline", "imgproxy sh:1"...
	image   string // the source's URL (our request's imageUrl)
	peer    string // when set, the peer's URL, fetched with GET instead of our edit
	gateway string
	key     string
	workers int
	d       time.Duration
	pid     int    // sampled for RSS when set
	record  string // when set, the result is appended to this file as a JSON line
}

// editResult is what a measurement records (one JSON line of -record).
type editResult struct {
	Op         string         `json:"op"`
	Label      string         `json:"label"`
	Peer       bool           `json:"peer"`
	Workers    int            `json:"workers"`
	Seconds    float64        `json:"seconds"`
	OK         int            `json:"ok"`
	PerSecond  float64        `json:"perSecond"`
	P50ms      float64        `json:"p50ms"`
	P95ms      float64        `json:"p95ms"`
	P99ms      float64        `json:"p99ms"`
	MaxMs      float64        `json:"maxMs"`
	Failures   map[string]int `json:"failures"`
	RSSPeakMiB int64          `json:"rssPeakMiB,omitempty"`
	HWMMiB     int64          `json:"hwmMiB,omitempty"`
	// CPUmsPerOK is the CPU time of the -pid process (user + system)
	// during the measurement per successful request: unlike throughput,
	// it hardly moves when other work shares the cores.
	CPUmsPerOK float64 `json:"cpuMsPerOk,omitempty"`
	// Load1 is the machine's 1-minute load average at the start and the
	// end: how contended the cores were (the measurement itself adds
	// about its concurrency).
	Load1 [2]float64 `json:"load1"`
}

// edits measures one side of the edits benchmark with the same client
// for both sides: l.workers callers in a closed loop for l.d, either
// POSTing our edit through the gateway (auth, fetch of l.image, edit,
// store) or GETting the peer's URL. Before the load it checks, once, that
// the side's result is an image of the size the edit makes; then it warms
// up, measures, and prints (and with l.record appends) throughput, latency
// percentiles, failures and, with l.pid, the process's RSS.
func edits(ctx context.Context, out io.Writer, l editLoad) error {
	op, ok := editOps[l.op]
	if !ok {
		return fmt.Errorf("edits: unknown -op %q (upscale2x, upscale4x, color-enhance)", l.op)
	}
	if l.image == "" {
		return errors.New("edits: -image (the source's URL) is required")
	}
	if l.label == "" {
		l.label = "hookline"
		if l.peer != "" {
			l.label = "peer"
		}
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 2 * time.Minute}
	body, err := json.Marshal(op.body(l.image))
	if err != nil {
		return err
	}
	newRequest := func(ctx context.Context) (*http.Request, error) {
		if l.peer != "" {
			return http.NewRequestWithContext(ctx, http.MethodGet, l.peer, nil)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.gateway+op.path, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+l.key)
		req.Header.Set("Content-Type", "application/json")
		return req, nil
	}

	src, err := imageSize(ctx, client, l.image)
	if err != nil {
		return fmt.Errorf("edits: the source: %w", err)
	}
	want := image.Pt(src.X*op.scale, src.Y*op.scale)
	got, err := resultSize(ctx, client, newRequest, l.peer != "")
	if err != nil {
		return fmt.Errorf("edits: %s %s: %w", l.op, l.label, err)
	}
	if got != want {
		return fmt.Errorf("edits: %s %s made a %d×%d image of the %d×%d source, want %d×%d", l.op, l.label, got.X, got.Y, src.X, src.Y, want.X, want.Y)
	}

	closedLoop(ctx, client, newRequest, l.workers, editWarmup)
	r := editResult{Op: l.op, Label: l.label, Peer: l.peer != "", Workers: l.workers}
	peak := int64(0)
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			peak = max(peak, rssKB(l.pid))
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	r.Load1[0] = loadAverage()
	cpu0 := cpuTicks(l.pid)
	start := time.Now()
	lat, failures := closedLoop(ctx, client, newRequest, l.workers, l.d)
	r.Seconds = time.Since(start).Seconds()
	cpu := cpuTicks(l.pid) - cpu0
	r.Load1[1] = loadAverage()
	close(stop)
	<-sampled
	r.Failures = failures
	r.OK = len(lat)
	if r.OK == 0 {
		return fmt.Errorf("edits: %s %s: no request succeeded; failures: %v", l.op, l.label, failures)
	}
	r.PerSecond = float64(r.OK) / r.Seconds
	slices.Sort(lat)
	ms := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	r.P50ms, r.P95ms, r.P99ms, r.MaxMs = ms(0.50), ms(0.95), ms(0.99), ms(1)
	if l.pid > 0 {
		r.RSSPeakMiB, r.HWMMiB = peak/1024, hwmKB(l.pid)/1024
		r.CPUmsPerOK = float64(cpu) * 1000 / clockTicks / float64(r.OK)
	}

	_, _ = fmt.Fprintf(out, "%s %s c=%d %.1fs: %d ok (%.1f/s), failures %v; latency p50 %.1fms p95 %.1fms p99 %.1fms max %.1fms; load %.1f→%.1f",
		l.op, l.label, l.workers, r.Seconds, r.OK, r.PerSecond, r.Failures, r.P50ms, r.P95ms, r.P99ms, r.MaxMs, r.Load1[0], r.Load1[1])
	if l.pid > 0 {
		_, _ = fmt.Fprintf(out, "; process CPU %.1f ms a request, RSS peak %d MiB (sampled every 200 ms), VmHWM %d MiB", r.CPUmsPerOK, r.RSSPeakMiB, r.HWMMiB)
	}
	_, _ = fmt.Fprintln(out)
	if l.record == "" {
		return nil
	}
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(l.record, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600) //nolint:gosec // G304: the operator's own -record file
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	return errors.Join(err, f.Close())
}

// closedLoop runs workers callers, each sending newRequest's request and
// reading the whole answer in a loop until d has passed, and returns the
// latencies of the 2xx answers and the count of the others by cause.
func closedLoop(ctx context.Context, client *http.Client, newRequest func(context.Context) (*http.Request, error), workers int, d time.Duration) ([]time.Duration, map[string]int) {
	var mu sync.Mutex
	var lat []time.Duration
	failures := map[string]int{}
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for time.Now().Before(deadline) && ctx.Err() == nil {
				req, err := newRequest(ctx)
				if err != nil {
					mu.Lock()
					failures["request: "+err.Error()]++
					mu.Unlock()
					return
				}
				start := time.Now()
				resp, err := client.Do(req) //nolint:gosec // G704: the operator's own -gateway / -peer origin
				cause := ""
				if err != nil {
					cause = "transport"
				} else {
					_, err = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
					switch {
					case resp.StatusCode/100 != 2:
						cause = fmt.Sprintf("status %d", resp.StatusCode)
					case err != nil:
						cause = "body"
					}
				}
				took := time.Since(start)
				mu.Lock()
				if cause == "" {
					lat = append(lat, took)
				} else {
					failures[cause]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return lat, failures
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's CPU times: 100
// on every Linux architecture the bench runs on.
const clockTicks = 100

// cpuTicks is the CPU time (user + system, in clock ticks) the process
// pid has used so far; 0 when unknown.
func cpuTicks(pid int) int64 {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces; the fields after its
	// closing parenthesis start at field 3, so utime and stime (14, 15)
	// are the 12th and 13th.
	_, rest, _ := bytes.Cut(b, []byte(") "))
	f := strings.Fields(string(rest))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

// loadAverage is the machine's 1-minute load average; 0 when unknown.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// resultSize sends one request and returns the size of the image it made:
// the peer answers with the image; our edit answers with the edit result,
// whose data.imageUrl is fetched.
func resultSize(ctx context.Context, client *http.Client, newRequest func(context.Context) (*http.Request, error), peer bool) (image.Point, error) {
	req, err := newRequest(ctx)
	if err != nil {
		return image.Point{}, err
	}
	resp, err := client.Do(req) //nolint:gosec // G704: the operator's own -gateway / -peer origin
	if err != nil {
		return image.Point{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return image.Point{}, err
	}
	if resp.StatusCode/100 != 2 {
		return image.Point{}, fmt.Errorf("status %d: %.300s", resp.StatusCode, raw)
	}
	if peer {
		return decodedSize(raw)
	}
	var env struct {
		Data struct {
			ImageURL string `json:"imageUrl"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil || env.Data.ImageURL == "" {
		return image.Point{}, fmt.Errorf("no data.imageUrl in the answer: %.300s", raw)
	}
	return imageSize(ctx, client, env.Data.ImageURL)
}

// imageSize fetches the image at url and returns its size.
func imageSize(ctx context.Context, client *http.Client, url string) (image.Point, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return image.Point{}, err
	}
	resp, err := client.Do(req) //nolint:gosec // G704: an address of the operator's own stack
	if err != nil {
		return image.Point{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return image.Point{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return image.Point{}, fmt.Errorf("GET %s: status %d", url, resp.StatusCode)
	}
	return decodedSize(raw)
}

func decodedSize(raw []byte) (image.Point, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		return image.Point{}, fmt.Errorf("not a JPEG or PNG: %w", err)
	}
	return image.Pt(cfg.Width, cfg.Height), nil
}

// upload stores the file at path in our bucket as a client would
// (POST /uploads/presigned-url, then PUT of the bytes to its uploadUrl) and
// prints its publicUrl, which the edits then fetch from the bucket.
func upload(ctx context.Context, out io.Writer, a api, path string) error {
	data, err := os.ReadFile(path) //nolint:gosec // G304: the operator's own -file
	if err != nil {
		return err
	}
	contentType := http.DetectContentType(data)
	var p struct {
		UploadURL string `json:"uploadUrl"`
		PublicURL string `json:"publicUrl"`
	}
	in := map[string]any{"fileName": filepath.Base(path), "fileType": contentType, "fileSize": len(data)}
	if err := a.call(ctx, http.MethodPost, "/api/v1/uploads/presigned-url", in, http.StatusOK, &p); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, p.UploadURL, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := a.client.Do(req) //nolint:gosec // G704: the upload address our own API handed out
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("PUT to the upload URL: status %d: %.300s", resp.StatusCode, b)
	}
	_, _ = fmt.Fprintln(out, p.PublicURL)
	return nil
}

// editsTable prints the measurements recorded in path as a table: per
// edit, ours and each peer's throughput and latency, and ours as a
// fraction of each peer's throughput.
func editsTable(out io.Writer, path string) error {
	f, err := os.Open(path) //nolint:gosec // G304: the operator's own -record file
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	var rs []editResult
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r editResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		rs = append(rs, r)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	_, _ = fmt.Fprintf(out, "| edit | side | c | req/s | p50 ms | p95 ms | p99 ms | failures | process CPU ms/req | RSS peak / VmHWM MiB | load | ours ÷ this peer |\n")
	_, _ = fmt.Fprintf(out, "|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		ratio := ""
		if r.Peer {
			for _, o := range rs {
				if o.Op == r.Op && !o.Peer && o.Workers == r.Workers {
					ratio = fmt.Sprintf("%.2f×", o.PerSecond/r.PerSecond)
				}
			}
		}
		rss, cpu := "", ""
		if r.HWMMiB > 0 {
			rss, cpu = fmt.Sprintf("%d / %d", r.RSSPeakMiB, r.HWMMiB), fmt.Sprintf("%.1f", r.CPUmsPerOK)
		}
		fails := make([]string, 0, len(r.Failures))
		for _, k := range slices.Sorted(maps.Keys(r.Failures)) {
			fails = append(fails, fmt.Sprintf("%s: %d", k, r.Failures[k]))
		}
		_, _ = fmt.Fprintf(out, "| %s | %s | %d | %.1f | %.0f | %.0f | %.0f | %s | %s | %s | %.1f→%.1f | %s |\n", r.Op, r.Label, r.Workers, r.PerSecond,
			r.P50ms, r.P95ms, r.P99ms, strings.Join(fails, ", "), cpu, rss, r.Load1[0], r.Load1[1], ratio)
	}
	return nil
}
