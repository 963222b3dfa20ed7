// Command billing runs the credit ledger service; `billing rebuild`
// replays every account's events into the projections.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"hookline.dev/services/billing/internal/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	run := app.Run
	if len(os.Args) > 1 && os.Args[1] == "rebuild" {
		run = app.Rebuild
	}
	if err := run(ctx, os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "billing:", err)
		os.Exit(1)
	}
}
