// Package wordnet reads Princeton WordNet 3.0's database files (Debian's
// wordnet-base, /usr/share/wordnet) directly: the index files (a lemma's
// synsets per part of speech), the exception lists (irregular forms) and
// the data files (a synset's words and pointers, read at the byte offset
// the index gives). It answers the moments engine's lexicon: the
// synonyms of a word (the other words of its synsets) and its near
// relations (the words of the synsets one hypernym, hyponym, similar-to
// or derivation pointer away).
//
// The format is wndb(5WN): index lines are `lemma pos synset_cnt p_cnt
// [ptr_symbol…] sense_cnt tagsense_cnt offset…`; data lines are `offset
// lex_filenum ss_type w_cnt(hex) (word lex_id)… p_cnt (ptr offset pos
// source/target)… | gloss`. Lines that start with two spaces are the
// licence header.
package wordnet

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// DefaultDir is where Debian's wordnet-base installs the database.
const DefaultDir = "/usr/share/wordnet"

// The parts of speech, as the file names spell them.
var parts = []string{"noun", "verb", "adj", "adv"}

// The pointers followed for related words: hypernym, hyponym (and their
// instance forms), similar to, derivationally related, also see.
var related = map[string]bool{"@": true, "@i": true, "~": true, "~i": true, "&": true, "+": true, "^": true}

// DB is an open WordNet database. Safe for concurrent use.
type DB struct {
	index map[string]map[string][]int64  // part → lemma → synset offsets
	exc   map[string]map[string][]string // part → inflected form → lemmas
	data  map[string]*os.File
	mu    sync.Mutex
	cache map[string]Words
}

// maxCached bounds the words whose relations are kept.
const maxCached = 10000

// Words are a word's synonyms (its base forms among them: "price" for
// "pricing") and near relations, lower case, one word each (WordNet's
// multi-word lemmas are left out).
type Words struct {
	Synonyms, Related []string
}

// Open reads the index and exception files under dir and opens the data
// files for reading by offset.
func Open(dir string) (*DB, error) {
	db := &DB{index: map[string]map[string][]int64{}, exc: map[string]map[string][]string{}, data: map[string]*os.File{}, cache: map[string]Words{}}
	for _, p := range parts {
		idx, err := readIndex(filepath.Join(dir, "index."+p))
		if err != nil {
			_ = db.Close()
			return nil, err
		}
		db.index[p] = idx
		if db.exc[p], err = readExc(filepath.Join(dir, p+".exc")); err != nil {
			_ = db.Close()
			return nil, err
		}
		f, err := os.Open(filepath.Join(dir, "data."+p)) //nolint:gosec // G304: the operator's configured directory
		if err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("wordnet: %w", err)
		}
		db.data[p] = f
	}
	return db, nil
}

// Close closes the data files.
func (db *DB) Close() error {
	var errs []error
	for _, f := range db.data {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}

func readIndex(path string) (map[string][]int64, error) {
	f, err := os.Open(path) //nolint:gosec // G304: a file of the operator's configured directory
	if err != nil {
		return nil, fmt.Errorf("wordnet: %w", err)
	}
	defer func() { _ = f.Close() }()
	out := map[string][]int64{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "  ") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) < 6 {
			return nil, fmt.Errorf("wordnet: %s: malformed line %q", path, line)
		}
		synsets, err1 := strconv.Atoi(fs[2])
		ptrs, err2 := strconv.Atoi(fs[3])
		if err1 != nil || err2 != nil || len(fs) != 6+ptrs+synsets {
			return nil, fmt.Errorf("wordnet: %s: malformed line %q", path, line)
		}
		offs := make([]int64, synsets)
		for i, s := range fs[6+ptrs:] {
			if offs[i], err = strconv.ParseInt(s, 10, 64); err != nil {
				return nil, fmt.Errorf("wordnet: %s: offset %q", path, s)
			}
		}
		out[fs[0]] = offs
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("wordnet: %s: %w", path, err)
	}
	return out, nil
}

func readExc(path string) (map[string][]string, error) {
	b, err := os.ReadFile(path) //nolint:gosec // G304: a file of the operator's configured directory
	if err != nil {
		return nil, fmt.Errorf("wordnet: %w", err)
	}
	out := map[string][]string{}
	for line := range strings.Lines(string(b)) {
		if fs := strings.Fields(line); len(fs) >= 2 {
			out[fs[0]] = fs[1:]
		}
	}
	return out, nil
}

// synset is a data line: its words and pointers.
type synset struct {
	words []string
	ptrs  []pointer
}

type pointer struct {
	symbol string
	offset int64
	part   string
}

// posFile maps a pointer's part-of-speech letter to its file.
var posFile = map[string]string{"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}

// synsetAt reads the data line of part at offset.
func (db *DB) synsetAt(part string, off int64) (synset, error) {
	f := db.data[part]
	buf := make([]byte, 0, 512)
	chunk := make([]byte, 512)
	for at := off; ; {
		n, err := f.ReadAt(chunk, at)
		buf = append(buf, chunk[:n]...)
		if k := bytes.IndexByte(chunk[:n], '\n'); k >= 0 {
			buf = buf[:len(buf)-n+k]
			break
		}
		if err == io.EOF || n == 0 {
			break
		}
		if err != nil {
			return synset{}, fmt.Errorf("wordnet: data.%s at %d: %w", part, off, err)
		}
		at += int64(n)
	}
	line := string(buf)
	if !strings.HasPrefix(line, fmt.Sprintf("%08d ", off)) {
		return synset{}, fmt.Errorf("wordnet: data.%s has no synset at %d", part, off)
	}
	return parseData(line)
}

func parseData(line string) (synset, error) {
	if k := strings.Index(line, " | "); k >= 0 {
		line = line[:k]
	}
	fs := strings.Fields(line)
	bad := func() error { return fmt.Errorf("wordnet: malformed data line %.40q", line) }
	if len(fs) < 4 {
		return synset{}, bad()
	}
	nw, err := strconv.ParseInt(fs[3], 16, 32)
	if err != nil || len(fs) < 5+2*int(nw) {
		return synset{}, bad()
	}
	var s synset
	for i := range int(nw) {
		w := strings.ToLower(fs[4+2*i])
		if k := strings.IndexByte(w, '('); k >= 0 { // adjective markers: (a), (p), (ip)
			w = w[:k]
		}
		s.words = append(s.words, w)
	}
	at := 4 + 2*int(nw)
	np, err := strconv.Atoi(fs[at])
	if err != nil || len(fs) < at+1+4*np {
		return synset{}, bad()
	}
	for i := range np {
		p := fs[at+1+4*i : at+5+4*i]
		off, err := strconv.ParseInt(p[1], 10, 64)
		if err != nil || posFile[p[2]] == "" {
			return synset{}, bad()
		}
		s.ptrs = append(s.ptrs, pointer{symbol: p[0], offset: off, part: posFile[p[2]]})
	}
	return s, nil
}

// Lemmas are the base forms of word in part: the word itself when
// indexed, its listed irregular forms, and WordNet's detachment rules
// (morphy's suffixes).
func (db *DB) Lemmas(word, part string) []string {
	word = strings.ToLower(strings.TrimSpace(word))
	var out []string
	add := func(w string) {
		if _, ok := db.index[part][w]; ok && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	add(word)
	for _, w := range db.exc[part][word] {
		add(w)
	}
	for _, r := range suffixes[part] {
		if strings.HasSuffix(word, r[0]) && len(word) > len(r[0]) {
			add(strings.TrimSuffix(word, r[0]) + r[1])
		}
	}
	return out
}

// suffixes are morphy's detachment rules: an ending and its replacement.
var suffixes = map[string][][2]string{
	"noun": {{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}},
	"verb": {{"s", ""}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}},
	"adj":  {{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}},
}

// Words are the synonyms and near relations of word across its parts of
// speech and senses, without word itself. An unknown word has none.
func (db *DB) Words(word string) (Words, error) {
	word = strings.ToLower(strings.TrimSpace(word))
	db.mu.Lock()
	w, ok := db.cache[word]
	db.mu.Unlock()
	if ok {
		return w, nil
	}
	seen := map[string]bool{word: true}
	add := func(dst *[]string, ws []string) {
		for _, x := range ws {
			if !seen[x] && !strings.ContainsAny(x, "_-") {
				seen[x] = true
				*dst = append(*dst, x)
			}
		}
	}
	var near []pointer
	for _, p := range parts {
		for _, lemma := range db.Lemmas(word, p) {
			for _, off := range db.index[p][lemma] {
				s, err := db.synsetAt(p, off)
				if err != nil {
					return Words{}, err
				}
				add(&w.Synonyms, s.words)
				for _, ptr := range s.ptrs {
					if related[ptr.symbol] {
						near = append(near, ptr)
					}
				}
			}
		}
	}
	for _, ptr := range near {
		s, err := db.synsetAt(ptr.part, ptr.offset)
		if err != nil {
			return Words{}, err
		}
		add(&w.Related, s.words)
	}
	if len(near) > 0 || len(w.Synonyms) > 0 {
		// Only words WordNet knows are kept, and only so many: prompts
		// are anyone's text.
		db.mu.Lock()
		if len(db.cache) >= maxCached {
			clear(db.cache)
		}
		db.cache[word] = w
		db.mu.Unlock()
	}
	return w, nil
}

// Related is Words as two lists, the moments engine's Lexicon.
func (db *DB) Related(word string) (synonyms, related []string, err error) {
	w, err := db.Words(word)
	return w.Synonyms, w.Related, err
}
