// Package apertium is the offline caption translator: the apertium
// command of Debian's apertium package, with the language pairs
// installed beside it (apertium-eng-spa, …), found at start from its
// modes. Apertium is a rule-based, shallow-transfer translator: every
// word comes back, in order, in draft quality; a word it does not know is
// kept as spoken.
package apertium

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"hookline.dev/services/clips/internal/translate"
)

// Apertium runs one pair's mode per translation.
type Apertium struct {
	// Bin is the apertium command.
	Bin string
	// modes maps "from-to" (ISO 639-1) to the mode's name ("eng-spa").
	modes map[string]string
}

var _ translate.Engine = (*Apertium)(nil)

// iso1 are the ISO 639-3 codes of the languages Debian's pairs name, as
// ISO 639-1: pairs name their languages either way ("eng-spa", "en-gl").
var iso1 = map[string]string{
	"eng": "en", "spa": "es", "cat": "ca", "glg": "gl", "epo": "eo", "eus": "eu", "por": "pt", "fra": "fr",
	"ita": "it", "oci": "oc", "arg": "an", "ast": "ast", "isl": "is", "mkd": "mk", "hbs": "sh", "nob": "nb",
	"nno": "nn", "swe": "sv", "dan": "da", "ron": "ro", "deu": "de", "nld": "nl", "afr": "af", "bel": "be",
	"rus": "ru", "ukr": "uk", "bul": "bg", "srd": "sc", "kaz": "kk", "tat": "tt", "cym": "cy", "bre": "br",
}

// New finds the installed pairs: the modes `apertium -l` lists whose name
// is just two languages (variants such as "eng-cat_valencia" and
// debugging modes are left out). An apertium that is missing or lists
// nothing is an error: the caller runs without the offline engine.
func New(ctx context.Context, bin string) (*Apertium, error) {
	if bin == "" {
		bin = "apertium"
	}
	out, err := exec.CommandContext(ctx, bin, "-l").Output()
	if err != nil {
		return nil, fmt.Errorf("apertium: listing the pairs: %w", err)
	}
	a := &Apertium{Bin: bin, modes: map[string]string{}}
	for _, mode := range strings.Fields(string(out)) {
		from, to, ok := strings.Cut(mode, "-")
		f, fok := code(from)
		t, tok := code(to)
		if ok && fok && tok {
			a.modes[f+"-"+t] = mode
		}
	}
	if len(a.modes) == 0 {
		return nil, errors.New("apertium: no language pair is installed")
	}
	return a, nil
}

// code reads a pair's language code as ISO 639-1.
func code(s string) (string, bool) {
	if len(s) == 2 && strings.ToLower(s) == s {
		return s, true
	}
	c, ok := iso1[s]
	return c, ok && len(c) == 2
}

// Name is the engine's name in a render's captionTranslation.
func (a *Apertium) Name() string { return "apertium" }

// Quality is draft: word-for-word transfer with local reordering.
func (a *Apertium) Quality() string { return translate.Draft }

// Targets are the languages installed pairs translate from into.
func (a *Apertium) Targets(from string) []string {
	var out []string
	for p := range a.modes {
		if f, t, _ := strings.Cut(p, "-"); f == from {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// placeholder stands for a sentence's k-th kept word: a word no pair
// knows, which Apertium passes through with its unknown-word mark.
func placeholder(k int) string { return "Hlq" + strconv.Itoa(k) + "z" }

// Translate runs the pair once over every sentence, one a line (the
// text format keeps line breaks), numbers and names masked; the marks of
// unknown words are dropped so the spoken word stands.
func (a *Apertium) Translate(ctx context.Context, from, to string, sentences []translate.Sentence) ([]string, error) {
	mode, ok := a.modes[from+"-"+to]
	if !ok {
		return nil, fmt.Errorf("%w: %s→%s", translate.ErrUnsupported, from, to)
	}
	var in strings.Builder
	closed := make([]bool, len(sentences))
	for i, s := range sentences {
		// A sentence is one line: its own line breaks would split it.
		// Apertium reads a line break as a space and moves words across
		// it, so a sentence without its final stop (a transcript without
		// punctuation) gets one, taken off again after.
		line := strings.Join(strings.Fields(translate.Mask(s, placeholder)), " ")
		if closed[i] = translate.Ends(line); !closed[i] {
			line += "."
		}
		in.WriteString(line)
		in.WriteString("\n")
	}
	cmd := exec.CommandContext(ctx, a.Bin, mode) //nolint:gosec // G204: the operator's command and a mode it listed; the text goes in on stdin
	cmd.Stdin = strings.NewReader(in.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("apertium %s: %w: %s", mode, err, strings.TrimSpace(stderr.String()))
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != len(sentences) {
		return nil, fmt.Errorf("apertium %s: %d lines for %d sentences", mode, len(lines), len(sentences))
	}
	for i, l := range lines {
		l = strings.Join(strings.Fields(l), " ")
		if !closed[i] {
			l = strings.TrimSuffix(l, ".")
			// The stop made the sentence's first word a capital.
			if r, n := utf8.DecodeRuneInString(sentences[i].Text); unicode.IsLower(r) && n > 0 {
				f, m := utf8.DecodeRuneInString(l)
				l = string(unicode.ToLower(f)) + l[m:]
			}
		}
		lines[i] = translate.Unmask(translate.Unstar(l), sentences[i], placeholder)
	}
	return lines, nil
}
