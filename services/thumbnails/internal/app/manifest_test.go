package app

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"hookline.dev/pkg/platform/config"
)

// container is the part of a Kubernetes container this test reads.
type container struct {
	Name string `yaml:"name"`
	Env  []struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom any    `yaml:"valueFrom"`
	} `yaml:"env"`
	Resources struct {
		Limits map[string]string `yaml:"limits"`
	} `yaml:"resources"`
}

// deployed returns the thumbnails container of deploy/k8s/thumbnails.yaml.
func deployed(t *testing.T) container {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "..", "..", "deploy", "k8s", "thumbnails.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	dec := yaml.NewDecoder(f)
	for {
		var doc struct {
			Kind string `yaml:"kind"`
			Spec struct {
				Template struct {
					Spec struct {
						Containers []container `yaml:"containers"`
					} `yaml:"spec"`
				} `yaml:"template"`
			} `yaml:"spec"`
		}
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			t.Fatal("no Deployment with a thumbnails container")
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range doc.Spec.Template.Spec.Containers {
			if doc.Kind == "Deployment" && c.Name == "thumbnails" {
				return c
			}
		}
	}
}

// bytesOf parses a Kubernetes memory quantity in binary units (512Mi,
// 1Gi) or plain bytes.
func bytesOf(t *testing.T, q string) int64 {
	t.Helper()
	shift := 0
	for suffix, s := range map[string]int{"Ki": 10, "Mi": 20, "Gi": 30} {
		if n, ok := strings.CutSuffix(q, suffix); ok {
			q, shift = n, s
		}
	}
	n, err := strconv.ParseInt(q, 10, 64)
	if err != nil {
		t.Fatalf("memory quantity %q: %v", q, err)
	}
	return n << shift
}

// TestManifestFitsTheImageMemory: the configuration the manifest gives the
// container (its literal settings, its memory limit as the downward API
// passes it) is one the service starts with: the image budget and the
// rest of the process fit the container's limit. A larger budget than the
// limit leaves room for would not.
func TestManifestFitsTheImageMemory(t *testing.T) {
	c := deployed(t)
	limit := c.Resources.Limits["memory"]
	if limit == "" {
		t.Fatal("the thumbnails container has no memory limit")
	}
	env := map[string]string{
		"HOOKLINE_MEMORY_LIMIT":     strconv.FormatInt(bytesOf(t, limit), 10),
		"HOOKLINE_DATABASE_URL":     "postgres://db/hookline",
		"HOOKLINE_NATS_URL":         "nats://nats:4222",
		"HOOKLINE_PRINCIPAL_SECRET": "a-principal-secret-of-32-bytes-or-more",
		"HOOKLINE_S3_ACCESS_KEY":    "key",
		"HOOKLINE_S3_SECRET_KEY":    "secret",
		"HOOKLINE_NATS_PASSWORD":    "password",
	}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			env[e.Name] = e.Value
		}
	}
	var cfg Config
	if err := config.Load(func(k string) string { return env[k] }, &cfg); err != nil {
		t.Fatalf("the manifest's configuration is refused: %v", err)
	}
	if got := cfg.imageMemory() + processOverhead; got != bytesOf(t, limit) {
		t.Fatalf("limit %s, but the image budget (%d MiB) and the process's overhead (%d MiB) make %d MiB: the two must agree",
			limit, cfg.ImageMemoryMiB, processOverhead>>20, got>>20)
	}
	env["HOOKLINE_IMAGE_MEMORY_MIB"] = strconv.FormatInt(bytesOf(t, limit)>>20, 10)
	if err := config.Load(func(k string) string { return env[k] }, &Config{}); err == nil || !strings.Contains(err.Error(), "HOOKLINE_MEMORY_LIMIT") {
		t.Fatalf("an image budget as large as the container was accepted: %v", err)
	}
}

// TestChartFitsTheImageMemory: the Helm chart's thumbnails memory limit is
// the default image budget plus the process's overhead, like the
// manifest's.
func TestChartFitsTheImageMemory(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "deploy", "helm", "hookline", "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var values struct {
		Thumbnails struct {
			Resources struct {
				Limits map[string]string `yaml:"limits"`
			} `yaml:"resources"`
		} `yaml:"thumbnails"`
	}
	if err := yaml.Unmarshal(raw, &values); err != nil {
		t.Fatal(err)
	}
	var cfg Config
	env := map[string]string{
		"HOOKLINE_DATABASE_URL": "postgres://db/hookline", "HOOKLINE_NATS_URL": "nats://nats:4222",
		"HOOKLINE_PRINCIPAL_SECRET": "a-principal-secret-of-32-bytes-or-more", "HOOKLINE_S3_ACCESS_KEY": "key", "HOOKLINE_S3_SECRET_KEY": "secret",
	}
	if err := config.Load(func(k string) string { return env[k] }, &cfg); err != nil {
		t.Fatal(err)
	}
	limit := values.Thumbnails.Resources.Limits["memory"]
	if got := cfg.imageMemory() + processOverhead; limit == "" || got != bytesOf(t, limit) {
		t.Fatalf("chart limit %q, but the default image budget and the overhead make %d MiB", limit, got>>20)
	}
}
