// Command assets runs the assets service: uploads, faces, styles, brands
// and collections.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"hookline.dev/services/assets/internal/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := app.Run(ctx, os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "assets:", err)
		os.Exit(1)
	}
}
