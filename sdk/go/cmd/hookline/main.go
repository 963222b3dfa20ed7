// Command hookline is the Hookline API from a shell, built on the Go SDK:
// thumbnails and their edits, clip projects and renders (waiting with a
// progress bar, downloading the MP4s), credits and webhooks.
//
// It reads HOOKLINE_API_KEY and HOOKLINE_BASE_URL from the environment, or
// else from .hookline/dev.env (written by `make up`) in the working
// directory or above it. --json prints the API's data for scripts. An
// API error prints its message and code and exits 1; a usage error exits 2.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	hookline "hookline.dev/sdk/go"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(report(os.Stderr, err))
}

// usageError is a command line that cannot be run.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// report prints err and returns the exit status: 0 without an error, 2
// for a usage error, 1 otherwise. An API error is its message and code,
// with the fields a 400 names.
func report(stderr io.Writer, err error) int {
	if err == nil {
		return 0
	}
	var ue *usageError
	if errors.As(err, &ue) {
		_, _ = fmt.Fprintf(stderr, "hookline: %s\nRun 'hookline help' for the commands.\n", ue.msg)
		return 2
	}
	_, _ = fmt.Fprintf(stderr, "hookline: %v\n", err)
	var apiErr *hookline.APIError
	if errors.As(err, &apiErr) {
		for name, reason := range apiErr.Fields() {
			_, _ = fmt.Fprintf(stderr, "  %s: %s\n", name, reason)
		}
	}
	return 1
}

const usage = `hookline — the Hookline API from a shell

Usage: hookline [--json] <command> [arguments]

  credits                                   the organization's balance
  usage                                     credit usage, newest first
  thumbnails generate --prompt P [--face ID|NAME]... [--style ID] [--brand ID]
                      [--reference URL|FILE]... [--aspect 16:9|9:16] [--collection ID] [--out FILE]
  thumbnails edit --image URL|FILE --prompt P [--out FILE]
  thumbnails face-swap --image I (--face-image I | --face ID|NAME) [--out FILE]
  thumbnails background-remove --image I [--out FILE]
  thumbnails background-replace --image I --background P [--aspect R] [--out FILE]
  thumbnails color-enhance --image I --preset P [--intensity subtle|medium|strong] [--out FILE]
  thumbnails upscale --image I --scale 2x|4x [--out FILE]
  thumbnails filter --image I --filter P [--out FILE]
  thumbnails combine --image I --image2 I --prompt P [--aspect R] [--out FILE]
  thumbnails critique --image I [--niche N]
  thumbnails list [--kind K] | get ID | delete ID
  faces list | create --name N --photo URL|FILE...
  clips create URL [--format portrait|landscape] [--term TERM]... [--prompt TEXT] [--wait]
                                            --prompt: the moments that match it first (synonyms via WordNet)
  clips get PROJECT [--wait]
  clips render PROJECT CLIP... [--style bold|clean|minimal|energetic|glow] [--format F]
               [--brand ID] [--hook-title] [--progress-bar] [--keywords] [--broll] [--music]
               [--end-card TEXT] [--remove-silences] [--remove-fillers] [--auto-zoom]
               [--layout auto|speaker|split|fill] [--censor none|bleep|mute]
               [--caption-language es] [--wait]
               [--download DIR]          --download saves the MP4 and its exports (srt, vtt, fcpxml, edl)
  clips renders PROJECT
  clips censor-words get | set [WORD|"A PHRASE"]...   the profanity filter's own words (set: the whole list)
  clips transcript get PROJECT [--page N] [--limit N]
  clips transcript edit PROJECT --if-match ETAG [--replace ID=TEXT]... [--delete FROM-TO]...
               [--restore FROM-TO]... [--term TERM]... [--clear-vocabulary] [--rerank [--prompt TEXT]]
  webhooks list | get ID | delete ID | rotate-secret ID | test ID
  webhooks create --url URL [--event TYPE]... [--description D] [--credits-low N] [--disabled]
  webhooks update ID [--url URL] [--event TYPE]... [--description D] [--enable|--disable]
  webhooks deliveries ID | retry ID DELIVERY
  upload FILE [--type image/jpeg|image/png] a JPEG or PNG (≤ 5 MB) through a presigned PUT; prints its publicUrl.
                                            The PUT must be exactly the file's size with its signed type:
                                            a --type the bytes contradict is refused before any request
  mcp                                       an MCP server on stdin/stdout (tools from the server's OpenAPI document)
  version

HOOKLINE_API_KEY and HOOKLINE_BASE_URL come from the environment, else from
.hookline/dev.env (make up writes it) in this directory or above.
`

// run is the whole command: args without the program name.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	o := &out{stdout: stdout, stderr: stderr}
	var rest []string
	for _, a := range args {
		if a == "--json" || a == "-json" {
			o.json = true
			continue
		}
		rest = append(rest, a)
	}
	if len(rest) == 0 || rest[0] == "help" || rest[0] == "-h" || rest[0] == "--help" {
		_, _ = io.WriteString(stdout, usage)
		return nil
	}
	if rest[0] == "version" {
		_, _ = fmt.Fprintln(stdout, "hookline", hookline.Version)
		return nil
	}
	if rest[0] == "mcp" {
		return serveMCP(ctx, getenv, rest[1:])
	}
	cmd, ok := commands[rest[0]]
	if !ok {
		return usagef("unknown command %q", rest[0])
	}
	c, err := newClient(getenv)
	if err != nil {
		return err
	}
	return cmd(ctx, &env{c: c, out: o}, rest[1:])
}

// env is what a command works with.
type env struct {
	c   *hookline.Client
	out *out
}

type command func(ctx context.Context, e *env, args []string) error

var commands map[string]command

func init() {
	commands = map[string]command{
		"credits":    credits,
		"usage":      usageHistory,
		"thumbnails": thumbnails,
		"faces":      faces,
		"clips":      clips,
		"webhooks":   webhooks,
		"upload":     upload,
	}
}

// sub dispatches to a subcommand.
func sub(ctx context.Context, e *env, group string, args []string, table map[string]command) error {
	if len(args) == 0 {
		return usagef("%s: which subcommand?", group)
	}
	cmd, ok := table[args[0]]
	if !ok {
		return usagef("%s: unknown subcommand %q", group, args[0])
	}
	return cmd(ctx, e, args[1:])
}
