// Command thumbnails runs the thumbnails service: generation, variations,
// the library, templates and remix.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"hookline.dev/services/thumbnails/internal/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := app.Run(ctx, os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "thumbnails:", err)
		os.Exit(1)
	}
}
