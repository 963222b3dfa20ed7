package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// transcriptBody writes the body of a POST /seo/description for a
// 60-minute video to path: the three-topic test captions
// (pkg/ai/nlp/testdata) repeated, each pass numbered so that sentences
// differ, to about words words — 150 words a minute for an hour is 9,000.
func transcriptBody(source, path string, words int) error {
	raw, err := os.ReadFile(source) //nolint:gosec // G304: the operator's own -source file
	if err != nil {
		return err
	}
	var lines []string
	for _, l := range strings.Split(string(raw), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return fmt.Errorf("%s: no lines", source)
	}
	var b strings.Builder
	n := 0
	for pass := 1; n < words; pass++ {
		for _, l := range lines {
			s := fmt.Sprintf("%s Part %d. ", l, pass)
			n += len(strings.Fields(s))
			b.WriteString(s)
		}
	}
	body, err := json.Marshal(map[string]any{"title": "An hour of craft: sourdough, bike chains and Roman aqueducts", "transcript": b.String()})
	if err != nil {
		return err
	}
	return os.WriteFile(path, body, 0o600) //nolint:gosec // G703: the operator's own -body path
}
