package textcheck

import (
	"testing"

	"hookline.dev/pkg/platform/apierr"
)

func TestReason(t *testing.T) {
	for _, tc := range []struct {
		in        string
		multiline bool
		want      string
	}{
		{"Acme Studio", false, ""},
		{"Ünïcødé 名前 🎨", false, ""},
		{"", false, ""},
		{"two\nlines\r\n\tindented", true, ""},
		{"two\nlines", false, ReasonLines},
		{"tab\there", false, ReasonLines},
		{"nul\x00", true, ReasonNUL},
		{"line\nthen nul\x00", false, ReasonNUL},
		{"bell\a", true, ReasonControl},
		{"escape\x1b[31m", true, ReasonControl},
		{"del\x7f", true, ReasonControl},
		{"c1 \u0085 next line", true, ReasonControl},
		{"c1 \u009b csi", false, ReasonControl},
		{"bad \xff byte", true, ReasonUTF8},
		{"surrogate \xed\xa0\x80", true, ReasonUTF8},
		{"truncated \xe2\x82", false, ReasonUTF8},
		{"line separator \u2028 is not a control", false, ""},
	} {
		if got := Reason(tc.in, tc.multiline); got != tc.want {
			t.Errorf("Reason(%q, %v) = %q, want %q", tc.in, tc.multiline, got, tc.want)
		}
	}
}

func TestCheck(t *testing.T) {
	f := apierr.Fields{}
	if !Check(f, "ok", "fine", false) || Check(f, "name", "a\x00b", false) {
		t.Fatal("Check result")
	}
	if len(f) != 1 || f["name"] != ReasonNUL {
		t.Fatalf("fields %v", f)
	}
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"Acme\x00 Inc\x1b":      "Acme Inc",
		"Acme\tStudio\nLtd":     "Acme Studio Ltd",
		"bad \xff byte":         "bad \uFFFD byte",
		"c1\u0085 gone, é kept": "c1 gone, é kept",
	} {
		if got := Clean(in, false); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
		if Reason(Clean(in, false), false) != "" {
			t.Errorf("Clean(%q) does not pass Reason", in)
		}
	}
	if got := Clean("a\nb\x00", true); got != "a\nb" {
		t.Errorf("multiline Clean = %q", got)
	}
}
