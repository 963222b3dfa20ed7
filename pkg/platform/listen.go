package platform

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Listen opens the TCP listener of a service address (HOOKLINE_HTTP_ADDR,
// HOOKLINE_DEBUG_ADDR). "host:port" listens there; "fd:N" takes over file
// descriptor N, a TCP socket bound by whoever started the service. The
// second form is how tests run services: the harness binds a loopback port
// and holds it for the whole test, so no other process can take the port
// between picking it and listening on it, and a restarted service comes
// back at the same address (pkg/testkit's Port).
func Listen(ctx context.Context, addr string) (net.Listener, error) {
	n, ok := strings.CutPrefix(addr, "fd:")
	if !ok {
		return (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	}
	fd, err := strconv.Atoi(n)
	if err != nil || fd < 3 {
		return nil, fmt.Errorf("%s: want fd:N with N ≥ 3", addr)
	}
	// Only an unconnected stream socket is taken over (and closed once
	// duplicated): a stale number must not close someone else's file.
	typ, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_TYPE)
	if err != nil {
		return nil, fmt.Errorf("%s is not a socket: %w", addr, err)
	}
	if typ != syscall.SOCK_STREAM {
		return nil, fmt.Errorf("%s is not a stream socket", addr)
	}
	if _, err := syscall.Getpeername(fd); !errors.Is(err, syscall.ENOTCONN) {
		return nil, fmt.Errorf("%s is a connected socket, not one to listen on", addr)
	}
	// The holder may have bound it without listening, so that connections
	// are refused until a service runs; listen on a listening socket only
	// sets its backlog.
	if err := syscall.Listen(fd, syscall.SOMAXCONN); err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	f := os.NewFile(uintptr(fd), addr)
	defer func() { _ = f.Close() }()
	return net.FileListener(f)
}
