//go:build linux

// Package netfwd is the forwarder that runs as the first process of a
// contained command's network namespace: it listens on the command's
// loopback at the proxy port, hands each connection to aci through the
// link it inherited (a Unix socket, fd 3) as a new socket, and runs the
// command. aci re-executes itself to run it; the check happens in this
// package's init, which depends on the standard library alone, so it runs
// before the costly initialisation of the rest of aci (syntax highlighting
// tables, JSON schemas: over 100 ms) and the forwarder starts in a few
// milliseconds.
package netfwd

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
)

// Marker is argv[1] of a forwarder: exe Marker PORT -- command...
const Marker = "__aci_sandbox_net__"

// The fds a forwarder inherits.
const (
	LinkFD = 3 // the link to aci
	ExeFD  = 4 // aci's binary, which it was started from
)

func init() {
	if len(os.Args) < 5 || os.Args[1] != Marker || os.Args[3] != "--" {
		return
	}
	code, err := run(os.Args[2], os.Args[4:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "aci sandbox (network): %v\n", err)
	}
	os.Exit(code)
}

// run listens on 127.0.0.1:port, runs argv and returns its exit status
// (128+n when signal n ended it).
func run(port string, argv []string) (int, error) {
	syscall.CloseOnExec(LinkFD)
	syscall.Close(ExeFD)
	p, err := strconv.Atoi(port)
	if err != nil || p < 1 || p > 65535 {
		return 126, fmt.Errorf("bad port %q", port)
	}
	ln, err := listen(p)
	if err != nil {
		return 126, fmt.Errorf("proxy port %d: %w", p, err)
	}
	go serve(ln)
	if len(argv) == 0 {
		return 126, fmt.Errorf("no command")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return 127, err
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args = argv
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// The command shares this process group, so a signal sent to the
	// group reaches it directly; this process outlives it to report its
	// status (caught, not ignored: the command gets the default actions).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		return 126, err
	}
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		return 126, err
	}
	return cmd.ProcessState.ExitCode(), nil
}

// listen opens a TCP listener on the namespace's 127.0.0.1:port.
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

// serve hands every connection to aci as one end of a new socket pair
// and copies between the connection and the other end.
func serve(ln int) {
	for {
		c, _, err := syscall.Accept4(ln, syscall.SOCK_CLOEXEC)
		if err == syscall.EINTR || err == syscall.ECONNABORTED {
			continue
		}
		if err != nil {
			return
		}
		pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			syscall.Close(c)
			continue
		}
		err = syscall.Sendmsg(LinkFD, []byte{0}, syscall.UnixRights(pair[1]), nil, 0)
		syscall.Close(pair[1])
		if err != nil {
			syscall.Close(c)
			syscall.Close(pair[0])
			if err == syscall.EPIPE || err == syscall.ECONNREFUSED || err == syscall.EBADF {
				return // aci ended the link
			}
			continue
		}
		go splice(c, pair[0])
	}
}

// splice copies both ways between fds a and b (blocking I/O, a thread
// each way: a command opens few connections), then closes them.
func splice(a, b int) {
	fa, fb := os.NewFile(uintptr(a), "conn"), os.NewFile(uintptr(b), "link")
	done := make(chan struct{})
	go func() {
		io.Copy(fb, fa)
		syscall.Shutdown(b, syscall.SHUT_WR)
		close(done)
	}()
	io.Copy(fa, fb)
	syscall.Shutdown(a, syscall.SHUT_WR)
	<-done
	fa.Close()
	fb.Close()
}
