// Command gateway is Hookline's API gateway: it authenticates API keys,
// rate-limits, applies idempotency keys and proxies to the services, and
// serves the admin API. All of it lives in internal/app; main only binds
// it to the process's signals, environment and stdout.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"hookline.dev/services/gateway/internal/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := app.Run(ctx, os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gateway:", err)
		stop()
		os.Exit(1)
	}
}
