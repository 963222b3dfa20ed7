// Command clips runs the clips service: `clips` serves the project API,
// `clips worker` takes jobs from the CLIPS_JOBS work queue (any number of
// workers, on any machine).
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"hookline.dev/pkg/platform"
	"hookline.dev/services/clips/internal/app"
)

func main() {
	platform.Main("clips", func(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
		return run(ctx, os.Args[1:], getenv, stdout)
	})
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	switch {
	case len(args) == 0:
		return app.Run(ctx, getenv, stdout)
	case len(args) == 1 && args[0] == "worker":
		return app.RunWorker(ctx, getenv, stdout)
	}
	return fmt.Errorf("usage: clips [worker], not %q", args)
}
