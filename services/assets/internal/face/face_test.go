package face

import (
	"errors"
	"strings"
	"testing"

	"hookline.dev/pkg/platform/apierr"
)

func fields(t *testing.T, err error) map[string]string {
	t.Helper()
	var ae *apierr.Error
	if !apierr.Is(err, apierr.InvalidRequest) || !errors.As(err, &ae) {
		t.Fatalf("want 400, got %v", err)
	}
	fs, _ := ae.Details["fields"].(map[string]string)
	return fs
}

func TestValidate(t *testing.T) {
	d, err := Draft{Name: " Ann ", ImageURLs: []string{" https://x.example/a.png "}}.Validate()
	if err != nil || d.Name != "Ann" || d.ImageURLs[0] != "https://x.example/a.png" {
		t.Fatalf("%+v %v", d, err)
	}
	fs := fields(t, func() error {
		_, err := Draft{Name: "", ImageURLs: []string{"ftp://x/a.png", "https://ok.example/a.png", "nope", "https://x/" + strings.Repeat("a", 2048)}}.Validate()
		return err
	}())
	for _, f := range []string{"name", "imageUrls[0]", "imageUrls[2]", "imageUrls[3]"} {
		if fs[f] == "" {
			t.Errorf("no failure for %s: %v", f, fs)
		}
	}
	if fs["imageUrls[1]"] != "" {
		t.Errorf("valid URL refused: %v", fs)
	}
	if _, err := (Draft{Name: "a", ImageURLs: make([]string, 11)}).Validate(); fields(t, err)["imageUrls"] == "" {
		t.Error("11 images accepted")
	}
	if _, err := (Draft{Name: "a"}).Validate(); fields(t, err)["imageUrls"] == "" {
		t.Error("no images accepted")
	}
	if _, err := (Patch{}).Validate(); !apierr.Is(err, apierr.InvalidRequest) {
		t.Error("empty patch accepted")
	}
	empty := []string{}
	if _, err := (Patch{ImageURLs: &empty}).Validate(); fields(t, err)["imageUrls"] == "" {
		t.Error("patch with no images accepted")
	}
}

func TestNoFace(t *testing.T) {
	err := NoFace([]string{"https://a/1.png", "https://a/2.png"}, []int{1})
	if fields(t, err)["imageUrls[1]"] != NoFaceReason || !strings.Contains(err.Error(), "https://a/2.png") {
		t.Fatalf("%v", err)
	}
}
