// Command natsauth-conf writes the nats-server authorization block of
// pkg/platform/natsauth (run through `go generate ./pkg/platform/natsauth`).
package main

import (
	"flag"
	"fmt"
	"os"

	"hookline.dev/pkg/platform/natsauth"
)

func main() {
	out := flag.String("o", "", "output file (default stdout)")
	flag.Parse()
	conf := natsauth.ServerConfig()
	if *out == "" {
		fmt.Print(conf)
		return
	}
	if err := os.WriteFile(*out, []byte(conf), 0o644); err != nil { //nolint:gosec // G306: a config file without secrets, read by nats-server
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
