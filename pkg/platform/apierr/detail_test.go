package apierr

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDetail(t *testing.T) {
	if got := Detail("bad key sk-123\n  try\tagain", "sk-123"); got != "bad key [key] try again" {
		t.Errorf("got %q", got)
	}
	if got := Detail(strings.Repeat("é", 400), ""); utf8.RuneCountInString(got) != 301 || !strings.HasSuffix(got, "…") {
		t.Errorf("not cut: %d runes", utf8.RuneCountInString(got))
	}
	if Detail(" \n", "k") != "no detail" {
		t.Error("empty message")
	}
}
