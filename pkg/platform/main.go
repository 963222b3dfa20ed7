package platform

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Main binds a command's run function to the process (ARCHITECTURE §9):
// run is given a context that ends on SIGINT or SIGTERM, the environment
// and stdout. An error is printed on stderr after the command's name and
// exits with status 1.
func Main(name string, run func(ctx context.Context, getenv func(string) string, stdout io.Writer) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Getenv, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}
