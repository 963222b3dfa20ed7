package testkit

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the checkout this package lives in (tests run in its
// directory).
const repoRoot = "../.."

// imageRef matches a NATS or MinIO image reference with its tag.
var imageRef = regexp.MustCompile(`(?:^|[\s"'/])(nats|minio/minio):([A-Za-z0-9._-]+)`)

// TestPinnedVersionsAgree: one NATS and one MinIO version for make up
// (scripts/deps.sh builds them), compose, the testcontainers path and the
// manifests under deploy/ (Kubernetes, Helm): every image reference must
// carry the version deps.sh pins (an image variant suffix such as -alpine
// is allowed).
func TestPinnedVersionsAgree(t *testing.T) {
	deps := read(t, filepath.Join(repoRoot, "scripts/deps.sh"))
	natsVersion := shellVar(t, deps, "NATS_VERSION")
	minioRelease := shellVar(t, deps, "MINIO_RELEASE")
	minioModule := shellVar(t, deps, "MINIO_VERSION")
	want := map[string]string{"nats": strings.TrimPrefix(natsVersion, "v"), "minio/minio": minioRelease}

	// The module version deps.sh builds is the release's commit: its
	// pseudo-version carries the release's timestamp.
	m := regexp.MustCompile(`^RELEASE\.(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})Z$`).FindStringSubmatch(minioRelease)
	if m == nil {
		t.Fatalf("MINIO_RELEASE %q is not a RELEASE tag", minioRelease)
	}
	if stamp := strings.Join(m[1:], ""); !strings.HasPrefix(minioModule, "v0.0.0-"+stamp+"-") {
		t.Errorf("MINIO_VERSION %s is not the commit of %s (want v0.0.0-%s-<commit>)", minioModule, minioRelease, stamp)
	}

	check := func(where, image, tag string) {
		t.Helper()
		v := want[image]
		if tag != v && !strings.HasPrefix(tag, v+"-") {
			t.Errorf("%s: %s:%s, want %s:%s (scripts/deps.sh)", where, image, tag, image, v)
		}
	}
	for _, ref := range []string{NATSImage, MinIOImage} {
		sm := imageRef.FindStringSubmatch(ref)
		if sm == nil {
			t.Fatalf("testkit image %q is not a nats or minio reference", ref)
		}
		check("pkg/testkit/images.go", sm[1], sm[2])
	}

	seen := map[string]int{}
	files := []string{filepath.Join(repoRoot, "docker-compose.yml")}
	_ = filepath.WalkDir(filepath.Join(repoRoot, "deploy"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			files = append(files, p)
		}
		return nil
	})
	for _, f := range files {
		rel, _ := filepath.Rel(repoRoot, f)
		lines := strings.Split(read(t, f), "\n")
		for i, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), "#") {
				continue
			}
			if sm := imageRef.FindStringSubmatch(l); sm != nil && strings.Contains(l, "image") {
				check(rel, sm[1], sm[2])
				seen[sm[1]]++
				continue
			}
			// Helm values: repository: <…/nats> with its tag: on a
			// neighbouring line.
			if image, ok := helmRepository(l); ok {
				tag := helmTag(lines, i)
				if tag == "" {
					t.Errorf("%s:%d: %s without a pinned tag", rel, i+1, image)
					continue
				}
				check(rel, image, tag)
				seen[image]++
			}
		}
	}
	if seen["nats"] == 0 || seen["minio/minio"] == 0 {
		t.Errorf("found %v image references; docker-compose.yml runs both NATS and MinIO", seen)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path) //nolint:gosec // G304: files of this repository
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// shellVar returns the value of NAME=value in a shell script.
func shellVar(t *testing.T, script, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + `=([^\s#]+)`).FindStringSubmatch(script)
	if m == nil {
		t.Fatalf("scripts/deps.sh sets no %s", name)
	}
	return strings.Trim(m[1], `"'`)
}

// helmRepository reports whether l is a Helm repository: line of a NATS or
// MinIO image, and which.
func helmRepository(l string) (string, bool) {
	k, v, ok := strings.Cut(strings.TrimSpace(l), ":")
	if !ok || strings.TrimSpace(k) != "repository" {
		return "", false
	}
	v = strings.Trim(strings.TrimSpace(v), `"'`)
	switch {
	case v == "nats" || strings.HasSuffix(v, "/nats"):
		return "nats", true
	case v == "minio/minio" || strings.HasSuffix(v, "/minio/minio"):
		return "minio/minio", true
	}
	return "", false
}

// helmTag returns the tag: within three lines of line i, or "".
func helmTag(lines []string, i int) string {
	for j := max(i-3, 0); j < min(i+4, len(lines)); j++ {
		k, v, ok := strings.Cut(strings.TrimSpace(lines[j]), ":")
		if ok && strings.TrimSpace(k) == "tag" {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}
