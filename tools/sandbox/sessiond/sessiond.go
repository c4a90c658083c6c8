//go:build linux

// Package sessiond is the helper that runs inside a session's sandbox: a
// bwrap started once per session (tools/sandbox/session_linux.go), whose
// mounts already say what any command of the session may touch. For each
// command aci sends it a request; it gives the command a network namespace
// of its own (loopback only, with the proxy port handed to aci, as the
// one-shot first step does: netfwd), then starts the command line aci
// built (a light bwrap of its own: pid namespace, /proc, protected files)
// in its own session, reports its pid, and its wait status once it ends.
//
// aci re-executes itself to run it, once per session; the check happens in
// this package's init, which depends on the standard library (and
// x/sys/unix) alone.
package sessiond

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/aci-dev/aci/tools/sandbox/netfwd"
)

// Marker is argv[1] of the helper: exe Marker.
const Marker = "__aci_sandbox_session__"

// The fds the helper inherits.
const (
	CtlFD = 3 // the control socket (SOCK_SEQPACKET) to aci
	ExeFD = 4 // aci's binary, which it was started from
)

// Ready is what the helper writes on the control socket once it serves.
const Ready = 'r'

// Request is what aci sends for one command, on the command's own
// connection (the first fd of its control message). The control message
// carries, in order: the connection, the command's stdout and stderr (one
// pipe), the link to aci when Port is set, then Extra fds passed to the
// command as fd 3, 4, ...
type Request struct {
	Argv  []string `json:"argv"` // argv[0] an absolute path
	Env   []string `json:"env"`
	Port  int      `json:"port,omitempty"` // the proxy port to open in the command's namespace; 0: no link
	Extra int      `json:"extra,omitempty"`
}

// Reply is one line of the helper's answer on the command's connection:
// first the pid (or Err), then the wait status when the command ended.
type Reply struct {
	Pid    int    `json:"pid,omitempty"`
	Status *int   `json:"status,omitempty"` // a syscall.WaitStatus
	Err    string `json:"err,omitempty"`
}

func init() {
	if len(os.Args) != 2 || os.Args[1] != Marker {
		return
	}
	err := serve()
	if err != nil {
		fmt.Fprintf(os.Stderr, "aci sandbox (session): %v\n", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// serve answers requests until aci closes the control socket.
func serve() error {
	syscall.Close(ExeFD)
	// Each running command keeps a thread in wait4(2), which holds its P
	// until the runtime takes it back (up to 10 ms later on a quiet
	// process): spare Ps let the next request run at once.
	runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), 16))
	devnull, err := syscall.Open("/dev/null", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	ctl, err := fileConn(CtlFD, "aci-session")
	if err != nil {
		return fmt.Errorf("control socket: %w", err)
	}
	prepareNetns()
	mountLayers() // layers.go
	if _, err := ctl.Write([]byte{Ready}); err != nil {
		return fmt.Errorf("control socket: %w", err)
	}
	buf := make([]byte, 16)
	oob := make([]byte, syscall.CmsgSpace(16*4))
	for {
		// Received fds are close-on-exec (the net package asks for it):
		// one command's fds must not leak into another command started
		// meanwhile.
		n, oobn, _, _, err := ctl.ReadMsgUnix(buf, oob)
		if err != nil {
			return fmt.Errorf("control socket: %w", err)
		}
		if n == 0 && oobn == 0 {
			return nil // aci closed it: the session ends
		}
		fds, err := rights(oob[:oobn])
		if err != nil || len(fds) < 2 {
			closeAll(fds)
			continue
		}
		go handle(fds, devnull)
	}
}

// fileConn makes fd, a Unix socket, a connection the runtime polls.
func fileConn(fd int, name string) (*net.UnixConn, error) {
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	c, err := net.FileConn(f)
	if err != nil {
		return nil, err
	}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		c.Close()
		return nil, errors.New("not a Unix socket")
	}
	return uc, nil
}

// rights parses the fds of a control message.
func rights(oob []byte) ([]int, error) {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var fds []int
	for i := range msgs {
		f, err := syscall.ParseUnixRights(&msgs[i])
		if err != nil {
			return fds, err
		}
		fds = append(fds, f...)
	}
	return fds, nil
}

func closeAll(fds []int) {
	for _, fd := range fds {
		if fd >= 0 {
			syscall.Close(fd)
		}
	}
}

// handle runs one command: fds are its connection, its output, then the
// link and extra fds its request announces. Once the request is read, it
// runs on a thread of its own until the command has ended: the thread
// enters the command's network namespace (and never leaves it: the
// goroutine ends locked, and its thread with it), starts the command and
// waits for it, so it lives as long as the command, whose parent it is (a
// parent's death is told to bwrap, --die-with-parent, by the thread that
// started it).
func handle(fds []int, devnull int) {
	rest := fds[1:]
	conn, err := fileConn(fds[0], "aci-command")
	if err != nil {
		closeAll(rest)
		return
	}
	defer conn.Close()
	enc := json.NewEncoder(conn)
	var req Request
	err = json.NewDecoder(bufio.NewReader(conn)).Decode(&req)
	want := 1 + req.Extra
	if req.Port != 0 {
		want++
	}
	switch {
	case err != nil:
		err = fmt.Errorf("bad request: %w", err)
	case len(rest) != want || len(req.Argv) == 0:
		err = errors.New("request does not match its fds")
	}
	if err != nil {
		closeAll(rest)
		enc.Encode(Reply{Err: err.Error()})
		return
	}
	out, link, extra := rest[0], -1, rest[1:]
	if req.Port != 0 {
		link, extra = rest[1], rest[2:]
	}
	files := []uintptr{uintptr(devnull), uintptr(out), uintptr(out)}
	for _, fd := range extra {
		files = append(files, uintptr(fd))
	}
	runtime.LockOSThread()
	pid, err := func() (int, error) {
		if err := enterNetns(); err != nil {
			closeAll([]int{link})
			return 0, fmt.Errorf("network namespace: %w", err)
		}
		if link >= 0 {
			if err := netfwd.Handover(link, req.Port); err != nil {
				return 0, err
			}
		}
		return syscall.ForkExec(req.Argv[0], req.Argv, &syscall.ProcAttr{
			Env:   req.Env,
			Files: files,
			// Its own session and process group, which aci signals.
			Sys: &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
		})
	}()
	closeAll(append([]int{out}, extra...))
	if err != nil {
		enc.Encode(Reply{Err: err.Error()})
		return
	}
	if enc.Encode(Reply{Pid: pid}) != nil {
		// aci is gone: the command goes with the session anyway.
		syscall.Kill(-pid, syscall.SIGKILL)
	}
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	st := int(ws)
	enc.Encode(Reply{Status: &st})
}

// ready holds a network namespace made ahead (an fd of it, loopback up):
// making one takes the kernel a millisecond or more, which a command then
// does not wait for. Each is used by one command only.
var (
	ready     = make(chan int, 1)
	preparing atomic.Bool
)

// prepareNetns makes the next command's network namespace in the
// background, unless one is ready or being made.
func prepareNetns() {
	if len(ready) > 0 || !preparing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer preparing.Store(false)
		runtime.LockOSThread() // never unlocked: the thread, left in the new namespace, ends with this goroutine
		if newNetns() != nil {
			return // commands make their own
		}
		fd, err := syscall.Open("/proc/thread-self/ns/net", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return
		}
		select {
		case ready <- fd:
		default:
			syscall.Close(fd)
		}
	}()
}

// enterNetns moves the calling thread (locked) into a fresh network
// namespace: the one made ahead, or a new one.
func enterNetns() error {
	defer prepareNetns()
	select {
	case fd := <-ready:
		err := unix.Setns(fd, unix.CLONE_NEWNET)
		syscall.Close(fd)
		if err == nil {
			return nil
		}
	default:
	}
	return newNetns()
}

// newNetns moves the calling thread into a new network namespace with its
// loopback up.
func newNetns() error {
	if err := syscall.Unshare(syscall.CLONE_NEWNET); err != nil {
		return err
	}
	if err := loopbackUp(); err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	return nil
}

// loopbackUp brings up lo in the calling thread's network namespace (its
// addresses are there from the start).
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var ifr [40]byte // struct ifreq: name, then the flags (short)
	copy(ifr[:], "lo")
	if err := ioctl(fd, syscall.SIOCGIFFLAGS, &ifr); err != nil {
		return err
	}
	flags := *(*uint16)(unsafe.Pointer(&ifr[syscall.IFNAMSIZ]))
	*(*uint16)(unsafe.Pointer(&ifr[syscall.IFNAMSIZ])) = flags | syscall.IFF_UP
	return ioctl(fd, syscall.SIOCSIFFLAGS, &ifr)
}

func ioctl(fd int, req uintptr, ifr *[40]byte) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), req, uintptr(unsafe.Pointer(ifr))); e != 0 {
		return e
	}
	return nil
}

// ErrGone says the helper went away before it started the command.
var ErrGone = errors.New("the session's sandbox is gone")
