//go:build linux

package sandbox

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// The forwarder: aci re-executed inside a command's network namespace as
// its first process (see Link). It is caught here, before main runs.
func init() {
	if len(os.Args) < 5 || os.Args[1] != netMarker || os.Args[3] != "--" {
		return
	}
	code, err := forward(os.Args[2], os.Args[4:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "aci sandbox (network): %v\n", err)
	}
	os.Exit(code)
}

// forward listens on 127.0.0.1:port, passes each connection to aci over
// the link, runs argv and returns its exit status (128+n when signal n
// ended it).
func forward(port string, argv []string) (int, error) {
	ctl, exe := os.NewFile(ctlFD, "link"), os.NewFile(exeFD, "aci")
	exe.Close()
	c, err := net.FileConn(ctl) // a close-on-exec copy: the command never holds it
	ctl.Close()
	if err != nil {
		return 126, fmt.Errorf("link: %w", err)
	}
	link := c.(*net.UnixConn)
	if _, err := strconv.Atoi(port); err != nil {
		return 126, fmt.Errorf("bad port %q", port)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:"+port)
	if err != nil {
		return 126, fmt.Errorf("proxy port: %w", err)
	}
	go serveLink(ln, link)
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
	// The command's process group is this one's, so signals sent to the
	// group reach it directly; this process outlives them to report the
	// command's status (caught, not ignored: the command gets the defaults).
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

// serveLink hands every accepted connection to aci as a new socket.
func serveLink(ln net.Listener, link *net.UnixConn) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		if err := handOver(c, link); err != nil {
			c.Close()
		}
	}
}

// handOver makes a socket pair, sends one end to aci and splices the
// other with c.
func handOver(c net.Conn, link *net.UnixConn) error {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	theirs := os.NewFile(uintptr(fds[1]), "to-aci")
	_, _, err = link.WriteMsgUnix([]byte{0}, unix.UnixRights(fds[1]), nil)
	theirs.Close()
	ours := os.NewFile(uintptr(fds[0]), "from-command")
	if err != nil {
		ours.Close()
		return err
	}
	up, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		return err
	}
	go splice(c, up)
	return nil
}

// splice copies both ways until both sides are done.
func splice(a, b net.Conn) {
	done := make(chan struct{})
	go func() {
		io.Copy(b, a)
		closeWriteOf(b)
		close(done)
	}()
	io.Copy(a, b)
	closeWriteOf(a)
	<-done
	a.Close()
	b.Close()
}

func closeWriteOf(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
}
