package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// thumbnails generates thumbnails through the gateway with workers
// callers in a closed loop for d (each POST /thumbnails reserves a credit,
// composes a 1280×720 JPEG, stores it and settles), and reports latency,
// throughput and, when pid is set, the thumbnails process's peak RSS.
func thumbnails(ctx context.Context, out io.Writer, gateway, key string, workers int, d time.Duration, pid int) error {
	body := func(w, i int) []byte {
		return fmt.Appendf(nil, `{"prompt":"I tested the %d cheapest gaming laptops so you don't have to (worker %d)"}`, i%9+2, w)
	}
	return post(ctx, out, postLoad{name: "thumbnails", gateway: gateway, path: "/api/v1/thumbnails", key: key, want: http.StatusCreated,
		workers: workers, d: d, pid: pid, body: body})
}

// postLoad is a closed-loop POST load through the gateway.
type postLoad struct {
	name, gateway, path, key string
	want                     int // the status of a success
	workers                  int
	d                        time.Duration
	pid                      int // sampled for RSS when set
	body                     func(worker, i int) []byte
}

// post runs l: workers callers each POST in a loop for l.d, and reports
// latency of the successes, throughput, failures by status and, when
// l.pid is set, the process's peak RSS.
func post(ctx context.Context, out io.Writer, l postLoad) error {
	gateway, key, workers, d, pid := l.gateway, l.key, l.workers, l.d, l.pid
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 2 * time.Minute}
	var mu sync.Mutex
	var lat []time.Duration
	failed := map[int]int{}
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := 0; time.Now().Before(deadline) && ctx.Err() == nil; i++ {
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, gateway+l.path, bytes.NewReader(l.body(w, i))) //nolint:gosec // G704: the operator's own -gateway origin
				if err != nil {
					return
				}
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Content-Type", "application/json")
				start := time.Now()
				resp, err := client.Do(req) //nolint:gosec // G704: the operator's own -gateway origin
				status := 0
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
					status = resp.StatusCode
				}
				took := time.Since(start)
				mu.Lock()
				if status == l.want {
					lat = append(lat, took)
				} else {
					failed[status]++
				}
				mu.Unlock()
			}
		})
	}
	peak := int64(0)
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if kb := rssKB(pid); kb > peak {
				peak = kb
			}
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	wg.Wait()
	close(stop)
	<-sampled
	if len(lat) == 0 {
		return fmt.Errorf("%s: no request succeeded; failures by status: %v", l.name, failed)
	}
	_, _ = fmt.Fprintf(out, "%s c=%d %s: %d succeeded (%.1f/s), failures by status %v; latency %s", l.name, workers, d,
		len(lat), float64(len(lat))/d.Seconds(), failed, summary(lat))
	if pid > 0 {
		_, _ = fmt.Fprintf(out, "; service RSS peak %d MiB (sampled every 200 ms), VmHWM %d MiB", peak/1024, hwmKB(pid)/1024)
	}
	_, _ = fmt.Fprintln(out)
	return nil
}

// sampleRSS reads pid's RSS every interval, from now until the returned
// function is called, which returns the largest reading in KiB.
func sampleRSS(pid int, every time.Duration) (stop func() int64) {
	var peak atomic.Int64
	peak.Store(rssKB(pid))
	done, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			peak.Store(max(peak.Load(), rssKB(pid)))
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() int64 {
		close(done)
		<-sampled
		return peak.Load()
	}
}

// rssKB and hwmKB read /proc/<pid>/status (Linux): the resident set now
// and its high-water mark, in KiB; 0 when unknown.
func rssKB(pid int) int64 { return procStatus(pid, "VmRSS:") }
func hwmKB(pid int) int64 { return procStatus(pid, "VmHWM:") }

func procStatus(pid int, field string) int64 {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status") //nolint:gosec // G703: an integer pid, not a path from input
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte(field)); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(string(rest)), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
