package transcribe

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"hookline.dev/services/clips/internal/mediatest"
)

// The recogniser's tests run the installed model on real speech:
// scripts/deps.sh speech installs Moonshine tiny, ONNX Runtime and
// Asterisk's English prompts (a woman's recorded voice, with the text of
// every prompt). Where they are missing the tests skip, unless a
// HOOKLINE_TEST_* variable says this is a full test run (make test), where
// a skip would hide that the install step broke.
const (
	envMoonshineDir = "HOOKLINE_MOONSHINE_DIR"
	envONNXRuntime  = "HOOKLINE_ONNXRUNTIME_LIB"
)

type speechSetup struct{ model, library, eval string }

func requireSpeech(t testing.TB) speechSetup {
	t.Helper()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(home, ".cache", "hookline")
	pick := func(env, def string) string {
		if v := os.Getenv(env); v != "" {
			return v
		}
		return filepath.Join(cache, def)
	}
	s := speechSetup{
		model:   pick(envMoonshineDir, "moonshine-js-0.1.29/tiny"),
		library: pick(envONNXRuntime, "onnxruntime-1.24.1/libonnxruntime.so.1"),
		eval:    pick(mediatest.EnvSpeechEval, "speech-eval/asterisk-core-sounds-en-1.6.1-1"),
	}
	var missing []string
	for _, p := range []string{filepath.Join(s.model, moonshineEncoder), filepath.Join(s.model, moonshineDecoder),
		filepath.Join(s.model, moonshineTokens), s.library, filepath.Join(s.eval, "core-sounds-en.txt")} {
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, p)
		}
	}
	for _, bin := range []string{"ffmpeg", "pocketsphinx_continuous"} {
		if _, err := exec.LookPath(bin); err != nil {
			missing = append(missing, bin)
		}
	}
	if len(missing) == 0 {
		return s
	}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "HOOKLINE_TEST_") {
			t.Fatalf("speech model or recordings missing in a full test run (scripts/deps.sh speech installs them): %v", missing)
		}
	}
	t.Skipf("speech model or recordings not installed (run scripts/deps.sh speech): %v", missing)
	return s
}

// prompt is one of the recordings and what it says.
type prompt struct{ name, text string }

// prompts are the recorded prompts of at least minWords words
// (mediatest.Prompts).
func prompts(t testing.TB, dir string, minWords int) []prompt {
	t.Helper()
	var out []prompt
	for _, p := range mediatest.Prompts(t, dir, minWords) {
		out = append(out, prompt{p.Name, p.Text})
	}
	return out
}

// promptWAV decodes a prompt into the 16-bit mono WAV the engines read,
// in dir.
func promptWAV(t testing.TB, eval, dir, name string) string {
	t.Helper()
	return mediatest.PromptWAV(t, eval, dir, name)
}

// normalWords are a text's words for scoring: lower case, punctuation
// gone, hyphenated words split, numbers in digits spelt out, so that "press
// 1" and "Press one." score the same.
func normalWords(text string) []string {
	text = strings.ToLower(strings.NewReplacer("-", " ", "#", " pound ", "&", " and ").Replace(text))
	var out []string
	for f := range strings.FieldsSeq(text) {
		f = strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		f = strings.ReplaceAll(f, ".", "")
		if f == "" {
			continue
		}
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, strings.Fields(spellNumber(n))...)
			continue
		}
		out = append(out, f)
	}
	return out
}

var (
	units = strings.Fields("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen")
	tens  = strings.Fields("_ _ twenty thirty forty fifty sixty seventy eighty ninety")
)

func spellNumber(n int) string {
	switch {
	case n < 0 || n >= 10000:
		return strconv.Itoa(n)
	case n < 20:
		return units[n]
	case n < 100:
		if n%10 == 0 {
			return tens[n/10]
		}
		return tens[n/10] + " " + units[n%10]
	case n < 1000:
		if n%100 == 0 {
			return units[n/100] + " hundred"
		}
		return units[n/100] + " hundred " + spellNumber(n%100)
	}
	if n%1000 == 0 {
		return spellNumber(n/1000) + " thousand"
	}
	return spellNumber(n/1000) + " thousand " + spellNumber(n%1000)
}

func TestEditDistanceAndNormalWords(t *testing.T) {
	if d := mediatest.WordEdits(normalWords("Press 1, then the pound key."), normalWords("press one the pound keys")); d != 2 {
		t.Errorf("distance %d, want 2 (then deleted, key→keys)", d)
	}
	if got := strings.Join(normalWords("Call-Forward on 21 rings & 100 times"), " "); got != "call forward on twenty one rings and one hundred times" {
		t.Errorf("normalised %q", got)
	}
}
