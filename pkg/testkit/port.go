package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// Port is a loopback TCP port the test holds from its start to its end,
// for a service under test to listen on: a socket bound to 127.0.0.1 by the
// harness and handed to the service as HOOKLINE_HTTP_ADDR=fd:N (see
// platform.Listen). Nothing can take the port between choosing it and
// listening on it, and a service restarted on it comes back at the same
// address. Until a service first listens, connections to it are refused,
// as to a service that is not deployed; afterwards they wait in its
// backlog while the service restarts.
type Port struct {
	// Addr is host:port, URL "http://" + Addr.
	Addr, URL string
	f         *os.File
}

// ReservePort binds a loopback port for the test; it is released when
// the test ends.
func ReservePort(t testing.TB) *Port {
	t.Helper()
	// No SO_REUSEADDR: no other socket may bind the port while the test
	// holds it, listening or not.
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("testkit: socket: %v", err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		_ = syscall.Close(fd)
		t.Fatalf("testkit: bind a loopback port: %v", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		_ = syscall.Close(fd)
		t.Fatalf("testkit: getsockname: %v", err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
	p := &Port{Addr: addr, URL: "http://" + addr, f: os.NewFile(uintptr(fd), addr)}
	t.Cleanup(func() { _ = p.f.Close() })
	return p
}

// InProcess is the address value for a service run in this process
// (StartService): "fd:N", N a fresh duplicate of the socket that the
// service takes over. Call it once per start.
func (p *Port) InProcess(t testing.TB) string {
	t.Helper()
	fd, err := syscall.Dup(int(p.f.Fd()))
	if err != nil {
		t.Fatalf("testkit: dup %s: %v", p.Addr, err)
	}
	syscall.CloseOnExec(fd)
	return fmt.Sprintf("fd:%d", fd)
}

// Pass gives cmd, before it starts and after its Env is set, the socket
// as the variable name: name=fd:N, N the process's copy.
func (p *Port) Pass(cmd *exec.Cmd, name string) {
	cmd.Env = append(cmd.Env, fmt.Sprintf("%s=fd:%d", name, 3+len(cmd.ExtraFiles)))
	cmd.ExtraFiles = append(cmd.ExtraFiles, p.f)
}
