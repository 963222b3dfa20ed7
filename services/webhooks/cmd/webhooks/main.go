// Command webhooks runs the webhooks service: endpoints, and signed
// deliveries of the events the other services publish.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"hookline.dev/services/webhooks/internal/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := app.Run(ctx, os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "webhooks:", err)
		os.Exit(1)
	}
}
