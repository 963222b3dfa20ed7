package mediatest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Recorded speech: Asterisk's English prompts (a woman's recorded voice,
// 16 kHz G.722, with the text of every prompt in core-sounds-en.txt),
// which scripts/deps.sh speech unpacks and its env command names in
// HOOKLINE_SPEECH_EVAL_DIR. Unlike espeak-ng's, this is a human voice.

// EnvSpeechEval names the directory of the recorded prompts.
const EnvSpeechEval = "HOOKLINE_SPEECH_EVAL_DIR"

// SpeechEvalDir is where the recorded prompts are: HOOKLINE_SPEECH_EVAL_DIR
// or scripts/deps.sh's place for them. Where they are missing the test
// skips, unless a HOOKLINE_TEST_* variable says this is a full test run
// (make test), where a skip would hide that the install step broke.
func SpeechEvalDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv(EnvSpeechEval)
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(home, ".cache", "hookline", "speech-eval", "asterisk-core-sounds-en-1.6.1-1")
	}
	if _, err := os.Stat(filepath.Join(dir, "core-sounds-en.txt")); err == nil { //nolint:gosec // G703: the test's configured directory
		return dir
	}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "HOOKLINE_TEST_") {
			t.Fatalf("recorded speech missing in a full test run (scripts/deps.sh speech installs it): %s", dir)
		}
	}
	t.Skipf("recorded speech not installed (run scripts/deps.sh speech): %s", dir)
	return ""
}

// Prompt is one of the recordings and what it says.
type Prompt struct{ Name, Text string }

// Prompts reads core-sounds-en.txt ("name: text" lines) in dir and keeps
// the spoken prompts (not tones in brackets) of at least minWords words
// whose recording is in the top directory, in name order.
func Prompts(t testing.TB, dir string, minWords int) []Prompt {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "core-sounds-en.txt")) //nolint:gosec // G304: the test's speech directory
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var out []Prompt
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, text, ok := strings.Cut(sc.Text(), ":")
		text = strings.TrimSpace(text)
		if !ok || strings.HasPrefix(name, ";") || strings.Contains(name, "/") || strings.Contains(text, "[") ||
			len(strings.Fields(text)) < minWords {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, name+".g722")); err == nil {
			out = append(out, Prompt{name, text})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(out, func(a, b Prompt) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// PromptWAV decodes the prompt name of eval (16 kHz G.722) into a 16-bit
// mono 16 kHz WAV in dir and returns its path.
func PromptWAV(t testing.TB, eval, dir, name string) string {
	t.Helper()
	out := filepath.Join(dir, name+".wav")
	cmd := exec.CommandContext(t.Context(), "ffmpeg", "-v", "error", "-f", "g722", "-i", filepath.Join(eval, name+".g722"), //nolint:gosec // G204: a test's own files
		"-ar", "16000", "-ac", "1", "-c:a", "pcm_s16le", "-y", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("decoding %s: %v: %s", name, err, b)
	}
	return out
}

// RecordedTalk joins the recordings of prompts (of eval) into one WAV in
// dir, each followed by pause seconds of silence, and returns its path
// and each prompt's span.
func RecordedTalk(t testing.TB, eval, dir string, prompts []Prompt, pause float64) (string, []Span) {
	t.Helper()
	const rate = 16000
	var pcm []byte
	var spans []Span
	silence := make([]byte, 2*int(pause*rate))
	for _, p := range prompts {
		data := wavData(t, PromptWAV(t, eval, dir, p.Name))
		start := float64(len(pcm)) / 2 / rate
		pcm = append(pcm, data...)
		spans = append(spans, Span{Start: start, End: float64(len(pcm)) / 2 / rate, Text: p.Text})
		pcm = append(pcm, silence...)
	}
	out := filepath.Join(dir, "recorded.wav")
	writeWAV(t, out, pcm, rate)
	return out, spans
}

// WordEdits is the word-level Levenshtein distance: the substitutions,
// deletions and insertions that turn ref into hyp (a word error rate's
// numerator).
func WordEdits(ref, hyp []string) int {
	prev := make([]int, len(hyp)+1)
	cur := make([]int, len(hyp)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ref); i++ {
		cur[0] = i
		for j := 1; j <= len(hyp); j++ {
			sub := prev[j-1]
			if ref[i-1] != hyp[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(hyp)]
}
