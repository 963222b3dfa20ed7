//go:build ignore

// Command healthcheck asks a Hookline service inside the same container
// whether it is ready. The runtime image is distroless (no shell, curl or
// wget), so deploy/Dockerfile builds this into /healthcheck for Docker's
// HEALTHCHECK and docker compose. Kubernetes probes the HTTP endpoints
// directly and does not use it.
//
//	healthcheck [-path /readyz] DEFAULT_ADDR
//
// The port is taken from HOOKLINE_HTTP_ADDR when it is set (the variable
// the service itself listens on), else from DEFAULT_ADDR (e.g. ":8081").
// The exit status is 0 for a 2xx answer and 1 otherwise.
//
// It is built by file name (go build ./deploy/healthcheck/main.go), outside
// the workspace modules, and imports only the standard library.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"
)

func main() {
	path := flag.String("path", "/readyz", "path to probe")
	timeout := flag.Duration("timeout", 3*time.Second, "overall timeout")
	flag.Parse()

	addr := os.Getenv("HOOKLINE_HTTP_ADDR")
	if addr == "" {
		addr = flag.Arg(0)
	}
	url, err := probeURL(addr, *path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "healthcheck:", err)
		os.Exit(1)
	}

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "healthcheck:", err)
		os.Exit(1)
	}
	client := &http.Transport{Proxy: nil}
	resp, err := client.RoundTrip(req)
	if err != nil {
		fmt.Fprintln(os.Stderr, "healthcheck:", err)
		os.Exit(1)
	}
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		fmt.Fprintf(os.Stderr, "healthcheck: %s answered %s\n", url, resp.Status)
		os.Exit(1)
	}
}

// probeURL turns a listen address (":8081", "0.0.0.0:8081", "[::]:8081",
// "10.0.0.5:8081") into a URL reachable from inside the container.
func probeURL(addr, path string) (string, error) {
	if addr == "" {
		return "", fmt.Errorf("no address: set HOOKLINE_HTTP_ADDR or pass one")
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("listen address %q: %w", addr, err)
	}
	switch host {
	case "", "0.0.0.0", "::":
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + path, nil
}
