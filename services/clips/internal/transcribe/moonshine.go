package transcribe

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"

	ort "github.com/yalue/onnxruntime_go"

	"hookline.dev/pkg/media/onnxrt"
)

// The files of a Moonshine model directory, as scripts/deps.sh installs
// them from @moonshine-ai/moonshine-js: the quantized encoder and merged
// decoder, and the tokenizer's vocabulary (one token a line, in id order).
const (
	moonshineEncoder = "encoder_model.onnx"
	moonshineDecoder = "decoder_model_merged.onnx"
	moonshineTokens  = "tokens.txt"
)

// Moonshine's decoder starts from <s> and stops at </s> (the LLaMA
// tokenizer's ids, which its vocabulary extends). Greedy decoding can
// loop ("the the the …", a phrase over and over) until it runs out of
// length, so the length is bounded as the model card's example does (6.5
// tokens a second of audio, with a floor for a word said alone) and a
// loop is cut where it starts (repeats).
const (
	moonshineStart        = 1
	moonshineEOS          = 2
	moonshineTokensPerSec = 6.5
	moonshineMinTokens    = 8
)

// The repetition guard: a token said more than maxTokenRepeats times in a
// row, or a phrase of 2 to maxLoopTokens tokens more than maxPhraseRepeats
// times in a row, is the decoder looping, not the speaker ("no, no, no,
// no" is four; a phrase said three times is rhetoric, a fourth is a
// loop). Decoding stops there and the repeats beyond the first go.
const (
	maxTokenRepeats  = 4
	maxPhraseRepeats = 3
	maxLoopTokens    = 12
)

// ErrModel is returned (wrapped) for model files that are not a
// Moonshine encoder, merged decoder and vocabulary.
var ErrModel = errors.New("transcribe: not a Moonshine model")

// moonshineModel is a loaded Moonshine: the two ONNX sessions (shared by
// goroutines: ONNX Runtime's Run is safe to call concurrently) and what
// was read of the decoder's interface.
type moonshineModel struct {
	encoder, decoder *ort.DynamicAdvancedSession
	encIn, encOut    string
	decIn, decOut    []string
	// past[i] and present[i] are the decoder's cache input and output of
	// one layer, attention (decoder or encoder) and key or value, at the
	// same position of decIn (from 2) and decOut (from 1).
	cross       []bool // the cache entry is the encoder (cross-attention) one
	heads, head int64  // key/value heads and their width
	vocab       []string
	// fold[i] names token i's spelling without case: " My" and " my" are
	// one word to the listener, so a word's probability is their sum.
	fold []int32
}

// token is a recognised token and the decoder's probability of it.
type token struct {
	id   int
	prob float64
}

// loadMoonshine opens the model in dir with ONNX Runtime from library. The
// decoder's inputs and outputs are read from the file: input_ids,
// encoder_hidden_states, past_key_values.N.{decoder,encoder}.{key,value}
// and use_cache_branch in; logits and present.N.… out.
func loadMoonshine(dir, library string) (*moonshineModel, error) {
	if err := onnxrt.Acquire(library); err != nil {
		return nil, fmt.Errorf("transcribe: %w", err)
	}
	m, err := openMoonshine(dir)
	if err != nil {
		onnxrt.Release()
		return nil, err
	}
	return m, nil
}

var pastName = regexp.MustCompile(`^past_key_values\.(\d+)\.(decoder|encoder)\.(key|value)$`)

func openMoonshine(dir string) (*moonshineModel, error) {
	encPath, decPath := filepath.Join(dir, moonshineEncoder), filepath.Join(dir, moonshineDecoder)
	encIn, encOut, err := ort.GetInputOutputInfo(encPath)
	if err != nil {
		return nil, fmt.Errorf("transcribe: read %s: %w", encPath, err)
	}
	if len(encIn) != 1 || len(encOut) != 1 || len(encIn[0].Dimensions) != 2 || len(encOut[0].Dimensions) != 3 {
		return nil, fmt.Errorf("%w: %s has %d inputs and %d outputs, want audio in and hidden states out", ErrModel, encPath, len(encIn), len(encOut))
	}
	decIn, decOut, err := ort.GetInputOutputInfo(decPath)
	if err != nil {
		return nil, fmt.Errorf("transcribe: read %s: %w", decPath, err)
	}
	m := &moonshineModel{encIn: encIn[0].Name, encOut: encOut[0].Name}
	if err := m.readDecoder(decIn, decOut, encOut[0].Dimensions[2]); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrModel, decPath, err)
	}
	if m.vocab, err = readVocab(filepath.Join(dir, moonshineTokens)); err != nil {
		return nil, err
	}
	m.fold = foldClasses(m.vocab, int(decOutSize(decOut)))
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("transcribe: session options: %w", err)
	}
	defer func() { _ = opts.Destroy() }()
	// Parallelism comes from recognising segments side by side: one
	// thread a run keeps a core per segment, with no spinning pool.
	if err := opts.SetIntraOpNumThreads(1); err != nil {
		return nil, fmt.Errorf("transcribe: session options: %w", err)
	}
	if err := opts.SetInterOpNumThreads(1); err != nil {
		return nil, fmt.Errorf("transcribe: session options: %w", err)
	}
	if m.encoder, err = ort.NewDynamicAdvancedSession(encPath, []string{m.encIn}, []string{m.encOut}, opts); err != nil {
		return nil, fmt.Errorf("transcribe: load %s: %w", encPath, err)
	}
	if m.decoder, err = ort.NewDynamicAdvancedSession(decPath, m.decIn, m.decOut, opts); err != nil {
		_ = m.encoder.Destroy()
		return nil, fmt.Errorf("transcribe: load %s: %w", decPath, err)
	}
	return m, nil
}

// readDecoder checks the merged decoder's interface and orders its inputs
// as input_ids, encoder_hidden_states, the caches, use_cache_branch, and
// its outputs as logits then the caches in the same order.
func (m *moonshineModel) readDecoder(in, out []ort.InputOutputInfo, hidden int64) error {
	byName := map[string]ort.InputOutputInfo{}
	for _, i := range in {
		byName[i.Name] = i
	}
	ids, ok1 := byName["input_ids"]
	states, ok2 := byName["encoder_hidden_states"]
	_, ok3 := byName["use_cache_branch"]
	if !ok1 || !ok2 || !ok3 || ids.DataType != ort.TensorElementDataTypeInt64 ||
		len(states.Dimensions) != 3 || states.Dimensions[2] != hidden {
		return errors.New("want input_ids, encoder_hidden_states of the encoder's width and use_cache_branch")
	}
	outs := map[string]ort.InputOutputInfo{}
	for _, o := range out {
		outs[o.Name] = o
	}
	logits, ok := outs["logits"]
	if !ok || len(logits.Dimensions) != 3 {
		return errors.New("no logits output")
	}
	m.decIn = []string{"input_ids", "encoder_hidden_states"}
	m.decOut = []string{"logits"}
	for _, i := range in {
		p := pastName.FindStringSubmatch(i.Name)
		if p == nil {
			continue
		}
		d := i.Dimensions
		if len(d) != 4 || d[1] <= 0 || d[3] <= 0 || m.heads != 0 && (d[1] != m.heads || d[3] != m.head) {
			return fmt.Errorf("cache %s has shape %v, want batch×heads×length×width", i.Name, d)
		}
		m.heads, m.head = d[1], d[3]
		present := "present." + p[1] + "." + p[2] + "." + p[3]
		if _, ok := outs[present]; !ok {
			return fmt.Errorf("no %s for %s", present, i.Name)
		}
		m.decIn = append(m.decIn, i.Name)
		m.decOut = append(m.decOut, present)
		m.cross = append(m.cross, p[2] == "encoder")
	}
	if len(m.cross) == 0 {
		return errors.New("no past_key_values inputs")
	}
	m.decIn = append(m.decIn, "use_cache_branch")
	if v := logits.Dimensions[2]; v > 0 && v < moonshineEOS+1 {
		return fmt.Errorf("logits over %d tokens", v)
	}
	return nil
}

// readVocab reads one token a line; LLaMA's pieces mark a word's start
// with ▁ and write bytes as <0xNN>.
func readVocab(path string) ([]string, error) {
	f, err := os.Open(path) //nolint:gosec // G304: the configured model directory
	if err != nil {
		return nil, fmt.Errorf("transcribe: Moonshine vocabulary: %w", err)
	}
	defer func() { _ = f.Close() }()
	var vocab []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		vocab = append(vocab, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("transcribe: Moonshine vocabulary: %w", err)
	}
	if len(vocab) <= moonshineEOS || vocab[moonshineEOS] != "</s>" {
		return nil, fmt.Errorf("%w: %s is not a LLaMA vocabulary (%d tokens)", ErrModel, path, len(vocab))
	}
	return vocab, nil
}

func (m *moonshineModel) close() {
	_ = m.encoder.Destroy()
	_ = m.decoder.Destroy()
	onnxrt.Release()
}

// values destroys ONNX values still held when a run ends.
type values []ort.Value

func (vs values) destroy() {
	for _, v := range vs {
		if v != nil {
			_ = v.Destroy()
		}
	}
}

// recognise decodes 16 kHz mono samples greedily with the decoder's
// key/value cache: the first step fills both caches (self-attention and
// the encoder's cross-attention), later steps feed one token and carry
// only the self-attention cache forward.
func (m *moonshineModel) recognise(ctx context.Context, samples []float32) ([]token, error) {
	if len(samples) == 0 {
		return nil, nil
	}
	audio, err := ort.NewTensor(ort.NewShape(1, int64(len(samples))), samples)
	if err != nil {
		return nil, fmt.Errorf("transcribe: audio tensor: %w", err)
	}
	defer func() { _ = audio.Destroy() }()
	enc := []ort.Value{nil}
	if err := m.encoder.Run([]ort.Value{audio}, enc); err != nil {
		return nil, fmt.Errorf("transcribe: Moonshine encoder: %w", err)
	}
	defer func() { _ = enc[0].Destroy() }()

	cache := make(values, len(m.cross))
	defer func() { cache.destroy() }()
	for i := range cache {
		if cache[i], err = ort.NewEmptyTensor[float32](ort.NewShape(1, m.heads, 0, m.head)); err != nil {
			return nil, fmt.Errorf("transcribe: cache tensor: %w", err)
		}
	}
	return decode(ctx, tokenLimit(len(samples)), func(prev int64, first bool) (token, error) {
		return m.step(enc[0], cache, prev, !first)
	})
}

// tokenLimit is the most tokens the decoder may write for audio of that
// many samples.
func tokenLimit(samples int) int {
	return max(moonshineMinTokens, int(float64(samples)/moonshineRate*moonshineTokensPerSec))
}

// decode decodes greedily with next (the decoder's step: the previous
// token in, the most probable one after it out) from <s> until </s>,
// limit tokens, or a loop, which is cut to its first round.
func decode(ctx context.Context, limit int, next func(prev int64, first bool) (token, error)) ([]token, error) {
	var out []token
	prev := int64(moonshineStart)
	for step := range limit {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		tok, err := next(prev, step == 0)
		if err != nil {
			return nil, err
		}
		if tok.id == moonshineEOS {
			break
		}
		out = append(out, tok)
		if n, copies := looping(out); n > 0 {
			return out[:len(out)-(copies-1)*n], nil
		}
		prev = int64(tok.id)
	}
	return out, nil
}

// looping reports whether toks end in a loop: a phrase of n tokens
// repeated copies times in a row, past what a speaker says (n is 0 when
// they do not).
func looping(toks []token) (n, copies int) {
	for n = 1; n <= maxLoopTokens; n++ {
		limit := maxPhraseRepeats
		if n == 1 {
			limit = maxTokenRepeats
		}
		copies = repeats(toks, n)
		if copies > limit {
			return n, copies
		}
	}
	return 0, 0
}

// repeats counts how many times the last n tokens occur back to back at
// the end of toks.
func repeats(toks []token, n int) int {
	copies := 1
	last := len(toks) - n
	if last < 0 {
		return 0
	}
	for at := last - n; at >= 0; at -= n {
		for i := range n {
			if toks[at+i].id != toks[last+i].id {
				return copies
			}
		}
		copies++
	}
	return copies
}

// step runs the decoder once on the token prev and returns the most
// probable next one; cache is replaced by what the next step needs.
func (m *moonshineModel) step(hidden ort.Value, cache values, prev int64, useCache bool) (token, error) {
	ids, err := ort.NewTensor(ort.NewShape(1, 1), []int64{prev})
	if err != nil {
		return token{}, fmt.Errorf("transcribe: token tensor: %w", err)
	}
	defer func() { _ = ids.Destroy() }()
	branch, err := ort.NewTensor(ort.NewShape(1), []bool{useCache})
	if err != nil {
		return token{}, fmt.Errorf("transcribe: cache flag tensor: %w", err)
	}
	defer func() { _ = branch.Destroy() }()
	in := make([]ort.Value, 0, len(m.decIn))
	in = append(in, ids, hidden)
	in = append(in, cache...)
	in = append(in, branch)
	out := make(values, len(m.decOut))
	if err := m.decoder.Run(in, out); err != nil {
		out.destroy()
		return token{}, fmt.Errorf("transcribe: Moonshine decoder: %w", err)
	}
	logits, ok := out[0].(*ort.Tensor[float32])
	if !ok {
		out.destroy()
		return token{}, fmt.Errorf("%w: logits are %T", ErrModel, out[0])
	}
	tok := m.best(logits.GetData(), logits.GetShape())
	_ = out[0].Destroy()
	for i, v := range out[1:] {
		// The cross-attention cache depends on the audio alone: once
		// filled by the first step, later steps' copies are dropped.
		if useCache && m.cross[i] {
			_ = v.Destroy()
			continue
		}
		_ = cache[i].Destroy()
		cache[i] = v
	}
	return tok, nil
}

// best is the most probable token at the last position of logits
// (batch×positions×vocabulary) and the softmax probability of its
// spelling in any case.
func (m *moonshineModel) best(logits []float32, shape ort.Shape) token {
	v := int(shape[len(shape)-1])
	last := logits[len(logits)-v:]
	arg := 0
	for i, x := range last {
		if x > last[arg] {
			arg = i
		}
	}
	var sum, same float64
	for i, x := range last {
		p := math.Exp(float64(x - last[arg]))
		sum += p
		if i < len(m.fold) && m.fold[i] == m.fold[arg] {
			same += p
		}
	}
	return token{id: arg, prob: same / sum}
}

// foldClasses numbers the vocabulary's spellings without case; ids past
// the vocabulary (the model's own special tokens) are left alone.
func foldClasses(vocab []string, size int) []int32 {
	fold := make([]int32, max(size, len(vocab)))
	ids := map[string]int32{}
	for i := range fold {
		key := strconv.Itoa(i)
		if i < len(vocab) {
			key = strings.ToLower(vocab[i])
		}
		id, ok := ids[key]
		if !ok {
			id = int32(len(ids)) //nolint:gosec // G115: a vocabulary of 32768
			ids[key] = id
		}
		fold[i] = id
	}
	return fold
}

func decOutSize(out []ort.InputOutputInfo) int64 {
	for _, o := range out {
		if o.Name == "logits" && len(o.Dimensions) == 3 {
			return o.Dimensions[2]
		}
	}
	return 0
}

// spokenWord is a word of the decoded text and the probability the
// decoder gave its tokens together.
type spokenWord struct {
	text string
	prob float64
}

// words joins tokens into words: a piece that starts with ▁ starts a
// word, <0xNN> pieces are bytes, ids past the vocabulary (Moonshine's
// own special tokens) and LLaMA's <s>, </s>, <unk> are skipped.
func (m *moonshineModel) words(toks []token) []spokenWord {
	var out []spokenWord
	var buf []byte
	prob := 1.0
	flush := func() {
		if t := strings.TrimSpace(string(buf)); t != "" {
			out = append(out, spokenWord{text: t, prob: prob})
		}
		buf, prob = buf[:0], 1
	}
	for _, t := range toks {
		if t.id < 3 || t.id >= len(m.vocab) {
			continue
		}
		piece := m.vocab[t.id]
		if b, ok := byteToken(piece); ok {
			buf = append(buf, b)
			prob *= t.prob
			continue
		}
		if strings.HasPrefix(piece, "▁") {
			flush()
			piece = strings.TrimPrefix(piece, "▁")
		}
		buf = append(buf, strings.ReplaceAll(piece, "▁", " ")...)
		// A comma's or a full stop's doubt is about the punctuation,
		// not about what was said.
		if strings.ContainsFunc(piece, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			prob *= t.prob
		}
	}
	flush()
	return out
}

func byteToken(piece string) (byte, bool) {
	if len(piece) != 6 || !strings.HasPrefix(piece, "<0x") || piece[5] != '>' {
		return 0, false
	}
	b, err := strconv.ParseUint(piece[3:5], 16, 8)
	return byte(b), err == nil
}

// moonshineCache holds the model a process loads once, on first use: the
// API role never recognises speech and Validate must not load 28 MB.
type moonshineCache struct {
	once  sync.Once
	model *moonshineModel
	err   error
}

func (c *moonshineCache) get(dir, library string) (*moonshineModel, error) {
	c.once.Do(func() { c.model, c.err = loadMoonshine(dir, library) })
	return c.model, c.err
}

// loaded is the model if it was loaded; it loads nothing and keeps
// get from loading later.
func (c *moonshineCache) loaded() (*moonshineModel, error) {
	c.once.Do(func() { c.err = errors.New("transcribe: the Moonshine engine is closed") })
	return c.model, c.err
}
