package platform_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"

	"hookline.dev/pkg/platform"
	"hookline.dev/pkg/testkit"
)

// A port the harness holds is refused until a service listens on it, is
// served at the same address by two services in turn, and a number that
// is not a socket is refused without closing it.
func TestListenOnAnInheritedSocket(t *testing.T) {
	port := testkit.ReservePort(t)
	if c, err := net.Dial("tcp", port.Addr); err == nil {
		_ = c.Close()
		t.Fatal("a held port accepted a connection before a service listened on it")
	}
	for range 2 {
		ln, err := platform.Listen(context.Background(), port.InProcess(t))
		if err != nil {
			t.Fatal(err)
		}
		if ln.Addr().String() != port.Addr {
			t.Fatalf("listening on %s, want %s", ln.Addr(), port.Addr)
		}
		c, err := net.Dial("tcp", port.Addr)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		_, _ = s.Close(), c.Close()
		_ = ln.Close() // a service that stops: the port stays the harness's
	}

	f, err := os.Create(filepath.Join(t.TempDir(), "not-a-socket"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	for _, addr := range []string{fmt.Sprintf("fd:%d", f.Fd()), "fd:x", "fd:1"} {
		if _, err := platform.Listen(context.Background(), addr); err == nil {
			t.Errorf("Listen(%q) succeeded", addr)
		}
	}
	if _, err := f.WriteString("still open"); err != nil {
		t.Fatalf("the refused file was closed: %v", err)
	}
}
