// Command clips runs the clips service: `clips` serves the project API,
// `clips worker` takes jobs from the CLIPS_JOBS work queue (any number of
// workers, on any machine).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"hookline.dev/services/clips/internal/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "clips:", err)
		os.Exit(1)
	}
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
