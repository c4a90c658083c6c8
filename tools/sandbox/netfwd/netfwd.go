//go:build linux

// Package netfwd is the first step of a contained command in its own
// network namespace: it opens the listening socket on the command's
// loopback at the proxy port, sends it to aci through the link it
// inherited (a Unix socket, fd 3), and execs the command in its place. The
// socket stays in the command's namespace while aci accepts on it from
// outside, so the command's connections to the proxy port reach aci's proxy
// directly, and nothing of this step outlives the exec: the command keeps
// its pid, its exit status and its signals.
//
// aci re-executes itself to run this step; the check happens in this
// package's init, which depends on the standard library alone, so it runs
// before the costly initialisation of the rest of aci (syntax highlighting
// tables, JSON schemas: over 100 ms).
package netfwd

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// Marker is argv[1] of this step: exe Marker PORT -- command...
const Marker = "__aci_sandbox_net__"

// The fds this step inherits.
const (
	LinkFD = 3 // the link to aci
	ExeFD  = 4 // aci's binary, which it was started from
)

func init() {
	if len(os.Args) < 5 || os.Args[1] != Marker || os.Args[3] != "--" {
		return
	}
	err := run(os.Args[2], os.Args[4:])
	fmt.Fprintf(os.Stderr, "aci sandbox (network): %v\n", err)
	os.Exit(126)
}

// run listens on 127.0.0.1:port, hands the socket to aci and execs argv;
// it returns only on failure.
func run(port string, argv []string) error {
	syscall.Close(ExeFD)
	p, err := strconv.Atoi(port)
	if err != nil || p < 1 || p > 65535 {
		return fmt.Errorf("bad port %q", port)
	}
	if err := Handover(LinkFD, p); err != nil {
		return err
	}
	if len(argv) == 0 {
		return fmt.Errorf("no command")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	return syscall.Exec(path, argv, os.Environ())
}

// Handover opens the listening socket on 127.0.0.1:port of the caller's
// network namespace, sends it to aci over link (SCM_RIGHTS) and closes
// both: what a contained command's first step does, and what the session
// helper does for each command (tools/sandbox/sessiond).
func Handover(link, port int) error {
	ln, err := listen(port)
	if err != nil {
		syscall.Close(link)
		return fmt.Errorf("proxy port %d: %w", port, err)
	}
	err = syscall.Sendmsg(link, []byte{0}, syscall.UnixRights(ln), nil, 0)
	syscall.Close(ln)
	syscall.Close(link)
	if err != nil {
		return fmt.Errorf("hand the proxy port to aci: %w", err)
	}
	return nil
}

// listen opens a TCP listener on the namespace's 127.0.0.1:port, closed
// on exec: the command never holds it.
func listen(port int) (int, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1)
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	if err := syscall.Listen(fd, 128); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	return fd, nil
}
