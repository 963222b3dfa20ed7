package app_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// BenchmarkPrepare60MinTalk prepares a 60-minute 1280×720 talk end to
// end: real speech (Asterisk's recorded prompts, looped) over a still
// photo, served as a direct address, prepared by `clips worker` as a
// process of its own (download, probe, Moonshine recognition, audio,
// scenes and faces, storing). The talk is made once into the system's
// temporary directory and reused (HOOKLINE_BENCH_TALK_MINUTES sets
// another length). Reported: wall_s from creating the project to
// ready, x_length (wall over the talk's length), worker_cpu_s (the
// processor time of the worker and the processes it ran and waited for:
// ffmpeg, pocketsphinx) and worker_vmhwm_MiB, the worker's peak resident
// set.
//
//	go test -run '^$' -bench Prepare60MinTalk -benchtime 1x -timeout 60m ./internal/app
func BenchmarkPrepare60MinTalk(b *testing.B) {
	minutes := 60.0
	if v := os.Getenv("HOOKLINE_BENCH_TALK_MINUTES"); v != "" {
		var err error
		if minutes, err = strconv.ParseFloat(v, 64); err != nil {
			b.Fatal(err)
		}
	}
	benchPrepareTalk(b, minutes)
}

// BenchmarkPrepare10MinTalk is the same preparation of a 10-minute talk:
// issue 36's figure for preparing 10 minutes of 720p with face sampling
// and speech recognition (goal ≤ 0.1× its length).
//
//	go test -run '^$' -bench Prepare10MinTalk -benchtime 1x -timeout 20m ./internal/app
func BenchmarkPrepare10MinTalk(b *testing.B) { benchPrepareTalk(b, 10) }

// benchPrepareTalk prepares a talk of minutes as BenchmarkPrepare60MinTalk
// describes.
func benchPrepareTalk(b *testing.B, minutes float64) {
	h := newHarness(b, "HOOKLINE_TIERS", `{"tiers": [{"name": "pro", "monthlyCredits": 10, "billingCycle": "monthly", "rateLimit": {"perSecond": 100, "burst": 100}, "quotas": {"sourceMinutes": 120}}]}`)
	dir := filepath.Join(os.TempDir(), "hookline-bench")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(dir, "talk-"+strconv.FormatFloat(minutes, 'f', -1, 64)+"min-720p.mp4")
	if _, err := os.Stat(file); err != nil {
		made := recordedTalkVideo(b, b.TempDir(), minutes*60, 1280, 720)
		if err := os.Rename(made, file); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.Symlink(file, filepath.Join(h.media.dir, "talk.mp4")); err != nil {
		b.Fatal(err)
	}
	worker := h.workerProcess("worker")
	var took time.Duration
	var cpu float64
	b.ResetTimer()
	for range b.N {
		org := uuid.NewString()
		start, cpu0 := time.Now(), processCPU(b, worker.Process.Pid)
		p := h.create(org, h.media.URL+"/talk.mp4")
		ready, seen := h.watch(org, p.ID, time.Duration(minutes)*time.Minute)
		took += time.Since(start)
		cpu += processCPU(b, worker.Process.Pid) - cpu0
		if ready.DownloadStatus != "ready" || len(ready.Clips) == 0 {
			b.Fatalf("prepared %+v", ready)
		}
		b.Logf("steps and progress seen: %v", seen)
	}
	b.StopTimer()
	b.ReportMetric(took.Seconds()/float64(b.N), "wall_s")
	b.ReportMetric(took.Seconds()/float64(b.N)/(minutes*60), "x_length")
	b.ReportMetric(cpu/float64(b.N), "worker_cpu_s")
	status, err := os.ReadFile("/proc/" + strconv.Itoa(worker.Process.Pid) + "/status")
	if err != nil {
		b.Fatal(err)
	}
	for line := range bytes.Lines(status) {
		if v, ok := strings.CutPrefix(string(line), "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(kb/1024, "worker_vmhwm_MiB")
		}
	}
}

// processCPU is the processor time, in seconds, of process pid and of
// the children it has waited for (/proc/<pid>/stat: utime, stime,
// cutime, cstime, in USER_HZ ticks, 100 a second on Linux).
func processCPU(b *testing.B, pid int) float64 {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		b.Fatal(err)
	}
	// The command name, in parentheses, may hold spaces: count after it.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	var ticks float64
	for _, f := range fields[11:15] {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			b.Fatal(err)
		}
		ticks += v
	}
	return ticks / 100
}
