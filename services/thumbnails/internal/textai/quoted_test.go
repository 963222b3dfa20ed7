package textai

import "testing"

func TestQuotedHeadline(t *testing.T) {
	for in, want := range map[string]string{
		`YouTube thumbnail, close-up; headline "STARTER SECRETS?!"`: "STARTER SECRETS?!",
		`a poster with “Curly Quotes” in it`:                        "Curly Quotes",
		`no quotes at all`:                                          "",
		`"one two three four five six seven eight nine" then "OK"`:  "OK",
	} {
		if got := QuotedHeadline(in); got != want {
			t.Errorf("QuotedHeadline(%q) = %q, want %q", in, got, want)
		}
	}
}
