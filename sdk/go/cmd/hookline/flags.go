package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"regexp"
	"strings"

	hookline "hookline.dev/sdk/go"
)

// newFlags is a flag set that reports errors instead of exiting.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parse parses flags and positional arguments in any order, and checks
// the count of positionals.
func parse(fs *flag.FlagSet, args []string, minArgs, maxArgs int) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, usagef("%s: see 'hookline help'", fs.Name())
			}
			return nil, usagef("%s: %v", fs.Name(), err)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if len(pos) < minArgs || (maxArgs >= 0 && len(pos) > maxArgs) {
		return nil, usagef("%s: wrong number of arguments", fs.Name())
	}
	return pos, nil
}

// list is a repeatable flag.
type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

// required fails when a flag was left empty.
func required(fs *flag.FlagSet, names ...string) error {
	for _, n := range names {
		if f := fs.Lookup(n); f == nil || f.Value.String() == "" {
			return usagef("%s: --%s is required", fs.Name(), n)
		}
	}
	return nil
}

// image turns an image argument into a URL the API takes: an http(s)
// address as is, a local file uploaded first.
func image(ctx context.Context, c *hookline.Client, arg string) (string, error) {
	if arg == "" || strings.HasPrefix(arg, "http://") || strings.HasPrefix(arg, "https://") {
		return arg, nil
	}
	if _, err := os.Stat(arg); err != nil {
		return "", usagef("%s is neither an http(s) URL nor a readable file", arg)
	}
	return c.UploadFile(ctx, arg)
}

func images(ctx context.Context, c *hookline.Client, args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		u, err := image(ctx, c, a)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// faceID takes a face's id, or finds the saved face of that name.
func faceID(ctx context.Context, c *hookline.Client, arg string) (string, error) {
	if arg == "" || uuidPattern.MatchString(arg) {
		return arg, nil
	}
	var found []string
	for f, err := range c.AllFaces(ctx, &hookline.ListParams{Limit: 100}) {
		if err != nil {
			return "", err
		}
		if strings.EqualFold(f.Name, arg) {
			found = append(found, f.ID)
		}
	}
	switch len(found) {
	case 0:
		return "", usagef("no saved face is named %q", arg)
	case 1:
		return found[0], nil
	default:
		return "", usagef("%d saved faces are named %q; give the id", len(found), arg)
	}
}
