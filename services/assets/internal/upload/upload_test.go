package upload

import (
	"strings"
	"testing"

	"hookline.dev/pkg/platform/apierr"
)

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"My Photo.JPG":                     "my-photo",
		"../../etc/passwd":                 "passwd",
		`C:\Users\me\face shot (1).png`:    "face-shot-1",
		"..":                               "upload",
		"":                                 "upload",
		"été à la plage.jpeg":              "t-la-plage",
		"a__b--c.png":                      "a__b--c",
		".hidden":                          "hidden",
		"x.tar.gz":                         "x-tar",
		"日本語.png":                          "upload",
		strings.Repeat("ab", 100) + ".png": strings.Repeat("ab", 40),
		"name%00with\x00null.png":          "name-00with-null",
	} {
		got := Sanitize(in)
		if got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
		for _, c := range got {
			if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' && c != '_' || len(got) > MaxNameLength {
				t.Fatalf("Sanitize(%q) = %q has a forbidden character or is too long", in, got)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	f := apierr.Fields{}
	p := Request{FileName: "Face.png", FileType: "image/png", FileSize: 1}.Validate(f, "")
	if len(f) != 0 || p.Ext != "png" || p.ContentType != "image/png" || p.Name != "face" {
		t.Fatalf("valid request: %v %+v", f, p)
	}
	if k := Key("orgs/org/uploads/", "id", p); k != "orgs/org/uploads/id-face.png" {
		t.Fatalf("key %s", k)
	}
	p = Request{FileName: "x.png", FileType: "IMAGE/JPEG", FileSize: MaxFileSize}.Validate(f, "")
	if len(f) != 0 || p.Ext != "jpg" || p.ContentType != "image/jpeg" {
		t.Fatalf("jpeg: %v %+v", f, p)
	}
	for _, r := range []Request{
		{FileName: "a.gif", FileType: "image/gif", FileSize: 10},
		{FileName: "a.svg", FileType: "image/svg+xml", FileSize: 10},
		{FileName: "a.png", FileType: "image/png", FileSize: 0},
		{FileName: "a.png", FileType: "image/png", FileSize: MaxFileSize + 1},
		{FileName: "  ", FileType: "image/png", FileSize: 10},
		{FileName: strings.Repeat("a", 256), FileType: "image/png", FileSize: 10},
	} {
		f := apierr.Fields{}
		r.Validate(f, "files[1].")
		if len(f) != 1 {
			t.Errorf("%+v: want one failure, got %v", r, f)
		}
		for k := range f {
			if !strings.HasPrefix(k, "files[1].") {
				t.Errorf("field %q lacks the prefix", k)
			}
		}
	}
}
