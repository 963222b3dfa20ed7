package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	hookline "hookline.dev/sdk/go"
)

// transcript is `clips transcript get|edit`.
func transcript(ctx context.Context, e *env, args []string) error {
	return sub(ctx, e, "clips transcript", args, map[string]command{
		"get":  getTranscript,
		"edit": editTranscript,
	})
}

func transcriptLines(w io.Writer, t *hookline.ClipTranscript) {
	_, _ = fmt.Fprintf(w, "version %d (ETag %s), words %d–%d of %d\n", t.Version, t.ETag,
		(t.Pagination.Page-1)*t.Pagination.Limit, (t.Pagination.Page-1)*t.Pagination.Limit+len(t.Words), t.Pagination.Total)
	if len(t.Vocabulary) > 0 {
		_, _ = fmt.Fprintf(w, "vocabulary: %s\n", strings.Join(t.Vocabulary, ", "))
	}
	for _, wd := range t.Words {
		mark := ""
		if wd.Deleted {
			mark = "  (deleted)"
		}
		_, _ = fmt.Fprintf(w, "%5d  %7.2f–%7.2f  %.2f  %s%s\n", wd.ID, wd.Start, wd.End, wd.Confidence, wd.Text, mark)
	}
}

func getTranscript(ctx context.Context, e *env, args []string) error {
	fs := newFlags("clips transcript get")
	var params hookline.ListParams
	fs.IntVar(&params.Page, "page", 0, "page, from 1")
	fs.IntVar(&params.Limit, "limit", 0, "words a page, 1..100")
	pos, err := parse(fs, args, 1, 1)
	if err != nil {
		return err
	}
	t, err := e.c.GetClipTranscript(ctx, pos[0], &params)
	if err != nil {
		return err
	}
	return e.out.result(t, func(w io.Writer) { transcriptLines(w, t) })
}

func editTranscript(ctx context.Context, e *env, args []string) error {
	fs := newFlags("clips transcript edit")
	ifMatch := fs.String("if-match", "", `the ETag the edits were made on ("3"), or * for the current one`)
	var replace, del, restore, vocabulary list
	fs.Var(&replace, "replace", "ID=TEXT: a word's new text (repeatable)")
	fs.Var(&del, "delete", "FROM-TO: delete words FROM..TO (ids, repeatable; one id for one word)")
	fs.Var(&restore, "restore", "FROM-TO: restore deleted words (repeatable)")
	fs.Var(&vocabulary, "term", "a custom vocabulary term (repeatable; replaces the vocabulary)")
	clearTerms := fs.Bool("clear-vocabulary", false, "remove every vocabulary term")
	rerank := fs.Bool("rerank", false, "rescore the project's clips on the edited words")
	prompt := fs.String("prompt", "", "with --rerank: steer the re-rank (matching moments first); --rerank alone needs no edit")
	pos, err := parse(fs, args, 1, 1)
	if err != nil {
		return err
	}
	if err := required(fs, "if-match"); err != nil {
		return err
	}
	req := &hookline.ClipTranscriptEdit{IfMatch: etagArg(*ifMatch), Rerank: *rerank, Prompt: *prompt, Operations: []hookline.ClipTranscriptOperation{}}
	for _, r := range replace {
		id, text, ok := strings.Cut(r, "=")
		n, err := strconv.Atoi(id)
		if !ok || err != nil {
			return usagef("clips transcript edit: --replace %q: want ID=TEXT", r)
		}
		req.Operations = append(req.Operations, hookline.ReplaceWord(n, text))
	}
	for _, group := range []struct {
		values list
		op     func(from, to int) hookline.ClipTranscriptOperation
		flag   string
	}{{del, hookline.DeleteWords, "delete"}, {restore, hookline.RestoreWords, "restore"}} {
		for _, r := range group.values {
			from, to, err := idRange(r)
			if err != nil {
				return usagef("clips transcript edit: --%s %q: want FROM-TO or ID", group.flag, r)
			}
			req.Operations = append(req.Operations, group.op(from, to))
		}
	}
	if len(vocabulary) > 0 || *clearTerms {
		req.Operations = append(req.Operations, hookline.SetVocabulary(vocabulary...))
	}
	if len(req.Operations) == 0 && !*rerank {
		return usagef("clips transcript edit: nothing to do: --replace, --delete, --restore, --term, --clear-vocabulary or --rerank")
	}
	if *prompt != "" && !*rerank {
		return usagef("clips transcript edit: --prompt steers a re-rank: add --rerank")
	}
	t, err := e.c.EditClipTranscript(ctx, pos[0], req)
	if err != nil {
		return err
	}
	return e.out.result(t, func(w io.Writer) { transcriptLines(w, t) })
}

// etagArg quotes a bare version number ("3" as typed in a shell loses its
// quotes).
func etagArg(s string) string {
	if _, err := strconv.Atoi(s); err == nil {
		return `"` + s + `"`
	}
	return s
}

// idRange reads FROM-TO or a single ID.
func idRange(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		b = a
	}
	from, err := strconv.Atoi(a)
	if err != nil {
		return 0, 0, err
	}
	to, err := strconv.Atoi(b)
	return from, to, err
}
