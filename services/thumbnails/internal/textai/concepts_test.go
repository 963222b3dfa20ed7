package textai

import "testing"

func TestConceptPrompt(t *testing.T) {
	for _, c := range []struct{ prompt, hook, placement, want string }{
		{"close-up of a face", "IT BROKE?!", "top-right", `close-up of a face; headline "IT BROKE?!" at the top-right`},
		{`a face; headline "IT BROKE?!"`, "IT BROKE?!", "left", `a face; headline "IT BROKE?!"; text at the left`},
		{`a face; headline "IT BROKE?!"`, "IT BROKE?!", "", `a face; headline "IT BROKE?!"`},
		{"a quote", "“so much better…”", "bottom", `a quote; headline "so much better…" at the bottom`},
	} {
		if got := conceptPrompt(c.prompt, c.hook, c.placement); got != c.want {
			t.Errorf("conceptPrompt(%q, %q, %q) = %q, want %q", c.prompt, c.hook, c.placement, got, c.want)
		}
	}
}
