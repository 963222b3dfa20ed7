package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hookline.dev/pkg/platform/config"
	"hookline.dev/pkg/platform/safefetch"
)

// The fairness knobs have working defaults, reach the fetcher, and bad
// values stop the service at start-up naming them.
func TestConfigPreparationKnobs(t *testing.T) {
	// The speech model's files are checked for at start-up (not read).
	model := t.TempDir()
	for _, f := range []string{"encoder_model.onnx", "decoder_model_merged.onnx", "tokens.txt", "libonnxruntime.so.1"} {
		if err := os.WriteFile(filepath.Join(model, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	base := map[string]string{
		"HOOKLINE_MOONSHINE_DIR":    model,
		"HOOKLINE_ONNXRUNTIME_LIB":  filepath.Join(model, "libonnxruntime.so.1"),
		"HOOKLINE_DATABASE_URL":     "postgres://postgres@127.0.0.1:5432/postgres",
		"HOOKLINE_NATS_URL":         "nats://127.0.0.1:4222",
		"HOOKLINE_PRINCIPAL_SECRET": "config-test-secret-0123456789abcdef",
		"HOOKLINE_S3_ENDPOINT":      "http://127.0.0.1:9000",
		"HOOKLINE_S3_BUCKET":        "hookline",
	}
	load := func(over map[string]string) (Config, error) {
		var cfg Config
		err := config.Load(func(k string) string {
			if v, ok := over[k]; ok {
				return v
			}
			return base[k]
		}, &cfg)
		return cfg, err
	}
	cfg, err := load(nil)
	if err != nil {
		t.Fatalf("defaults refused: %v", err)
	}
	if cfg.Preparations != 4 || cfg.OrgPreparations != 2 || cfg.Workers != 0 || cfg.RenderThreads != 0 {
		t.Errorf("slots %d, %d per organization, %d CPU, %d threads", cfg.Preparations, cfg.OrgPreparations, cfg.Workers, cfg.RenderThreads)
	}
	if cfg.RenderPreset != "veryfast" || cfg.RenderCRF != 21 || cfg.RenderX264Params != "" {
		t.Errorf("encoder %s CRF %d params %q", cfg.RenderPreset, cfg.RenderCRF, cfg.RenderX264Params)
	}
	for _, crf := range []string{"0", "52"} {
		if _, err := load(map[string]string{"HOOKLINE_CLIPS_RENDER_CRF": crf}); err == nil || !strings.Contains(err.Error(), "HOOKLINE_CLIPS_RENDER_CRF") {
			t.Errorf("CRF %s: err = %v", crf, err)
		}
	}
	for _, tc := range []map[string]string{{"HOOKLINE_CLIPS_RENDER_PRESET": "quick"},
		{"HOOKLINE_CLIPS_RENDER_X264_PARAMS": "aq-mode"}, {"HOOKLINE_CLIPS_RENDER_X264_PARAMS": "ref=2::trellis=1"},
		{"HOOKLINE_CLIPS_RENDER_X264_PARAMS": "ref=2 -y"}, {"HOOKLINE_CLIPS_RENDER_X264_PARAMS": "ref=2;x"}} {
		for name := range tc {
			if _, err := load(tc); err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("%v: err = %v", tc, err)
			}
		}
	}
	if cfg, err := load(map[string]string{"HOOKLINE_CLIPS_RENDER_PRESET": "superfast", "HOOKLINE_CLIPS_RENDER_X264_PARAMS": "aq-mode=2:rc_lookahead=10:deblock=-1,-1:psy-rd=1.0,0.15"}); err != nil ||
		cfg.RenderPreset != "superfast" {
		t.Errorf("valid encoder settings refused: %v", err)
	}
	for _, tc := range []map[string]string{{"HOOKLINE_CLIPS_WORKERS": "-1"}, {"HOOKLINE_CLIPS_RENDER_THREADS": "-2"}} {
		if _, err := load(tc); err == nil || !strings.Contains(err.Error(), "HOOKLINE_CLIPS_WORKERS and _RENDER_THREADS") {
			t.Errorf("%v: err = %v", tc, err)
		}
	}
	if got, want := cfg.fetch().Stall, (safefetch.Stall{Idle: 30 * time.Second, MinRate: 32 << 10, Window: time.Minute}); got != want {
		t.Errorf("stall %+v, want %+v", got, want)
	}
	// A worker without its speech model stops at start-up, naming it.
	if _, err := load(map[string]string{"HOOKLINE_MOONSHINE_DIR": filepath.Join(model, "absent")}); err == nil || !strings.Contains(err.Error(), "deps.sh speech") {
		t.Errorf("no speech model: err = %v", err)
	}
	// Nor without WordNet.
	if _, err := load(map[string]string{"HOOKLINE_WORDNET_DIR": filepath.Join(model, "absent")}); err == nil || !strings.Contains(err.Error(), "HOOKLINE_WORDNET_DIR") {
		t.Errorf("no WordNet: err = %v", err)
	}
	for _, tc := range []map[string]string{
		{"HOOKLINE_CLIPS_ORG_PREPARATIONS": "4"},
		{"HOOKLINE_CLIPS_ORG_PREPARATIONS": "0"},
		{"HOOKLINE_CLIPS_PREPARATIONS": "1", "HOOKLINE_CLIPS_ORG_PREPARATIONS": "1"},
	} {
		if _, err := load(tc); err == nil || !strings.Contains(err.Error(), "HOOKLINE_CLIPS_ORG_PREPARATIONS") {
			t.Errorf("%v: err = %v", tc, err)
		}
	}
	for _, tc := range []map[string]string{
		{"HOOKLINE_CLIPS_DOWNLOAD_IDLE_TIMEOUT": "0s"},
		{"HOOKLINE_CLIPS_DOWNLOAD_RATE_WINDOW": "0s"},
		{"HOOKLINE_CLIPS_DOWNLOAD_MIN_RATE_KIB": "-1"},
	} {
		if _, err := load(tc); err == nil || !strings.Contains(err.Error(), "HOOKLINE_CLIPS_DOWNLOAD_") {
			t.Errorf("%v: err = %v", tc, err)
		}
	}
	// No minimum rate is a choice, not an error.
	if _, err := load(map[string]string{"HOOKLINE_CLIPS_DOWNLOAD_MIN_RATE_KIB": "0"}); err != nil {
		t.Errorf("no minimum rate: %v", err)
	}
}

// A worker's jobs and each render's threads come from its CPUs unless
// HOOKLINE_CLIPS_WORKERS or _RENDER_THREADS say otherwise.
func TestConfigConcurrency(t *testing.T) {
	for _, tc := range []struct {
		workers, threads int
		cpus             float64
		jobs, each       int
	}{
		{0, 0, 0.5, 1, 1}, // under a CPU: one job, one thread
		{0, 0, 1, 1, 1},
		{0, 0, 1.5, 1, 1},
		{0, 0, 2, 2, 1}, // two renders of one thread each
		{0, 0, 8, 8, 1},
		{1, 0, 2, 1, 2}, // one job at a time gets the CPUs
		{3, 0, 8, 3, 2},
		{0, 2, 4, 4, 2}, // threads set, jobs from the CPUs
		{2, 4, 2, 2, 4}, // both set: taken as they are
	} {
		c := Config{Workers: tc.workers, RenderThreads: tc.threads}
		if jobs, each := c.concurrency(tc.cpus); jobs != tc.jobs || each != tc.each {
			t.Errorf("workers %d, threads %d on %v CPUs: %d jobs of %d threads, want %d of %d", tc.workers, tc.threads, tc.cpus, jobs, each, tc.jobs, tc.each)
		}
	}
}
