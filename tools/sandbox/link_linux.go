//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/aci-dev/aci/tools/sandbox/netfwd"
)

// Under bwrap a contained command has its own network namespace, with
// nothing in it but loopback. Its one way out is a Link: a Unix socket
// pair, one end kept by aci, the other passed to the command's first
// process as fd 3. That process is aci again (its binary passed as fd 4
// and run through /proc/self/fd/4, so the path it lives at need not be
// visible inside): it opens a listening socket on 127.0.0.1:NetPort inside
// the namespace, sends it to aci over fd 3 (SCM_RIGHTS) and execs the
// command. aci's proxy accepts on that socket from outside: a socket stays
// in the namespace it was made in. Nothing listens on the person's
// network, and no other process can reach the proxy under this command's
// name: the link has no path, and the port is in the command's namespace.
//
// Under Landlock there is no namespace: aci's proxy listens on an
// ephemeral loopback port, and Landlock (ABI 4+) lets the command connect
// to that TCP port only.

// NetPort is the loopback port HTTP_PROXY names inside a network namespace.
const NetPort = 41080

// landlockNetABI is the first Landlock ABI with TCP connect rules.
const landlockNetABI = 4

// NetContained reports whether contained commands are kept off the
// network (their only way out a Link): always under bwrap, under Landlock
// where the kernel has network rules.
func (s *Sandbox) NetContained() bool {
	switch s.Kind() {
	case Bwrap:
		return true
	case Landlock:
		v, err := llsys.LandlockGetABIVersion()
		return err == nil && v >= landlockNetABI
	}
	return false
}

// Link is one contained command's way to the proxy.
type Link struct {
	ln    net.Listener
	port  int        // what HTTP_PROXY names inside
	files []*os.File // passed to the command: fd 3, fd 4 (bwrap)
	fwd   bool       // the command starts with the first step that opens the port
}

// NewLink makes the link for one command: nil (and no error) when the
// sandbox does not keep commands off the network.
func (s *Sandbox) NewLink() (*Link, error) {
	if !s.NetContained() {
		return nil, nil
	}
	if s.kind == Landlock {
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("proxy listener: %w", err)
		}
		return &Link{ln: ln, port: ln.Addr().(*net.TCPAddr).Port}, nil
	}
	exe, err := selfExe()
	if err != nil {
		return nil, err
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("proxy socket: %w", err)
	}
	ours := os.NewFile(uintptr(fds[0]), "aci-proxy-link")
	theirs := os.NewFile(uintptr(fds[1]), "aci-proxy-link-command")
	c, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		theirs.Close()
		return nil, fmt.Errorf("proxy socket: %w", err)
	}
	return &Link{ln: &fdListener{conn: c.(*net.UnixConn)}, port: NetPort, files: []*os.File{theirs, exe}, fwd: true}, nil
}

// Listener is what the proxy serves for this command.
func (l *Link) Listener() net.Listener { return l.ln }

// Port is the loopback port HTTP_PROXY names inside.
func (l *Link) Port() int { return l.port }

// ExtraFiles are the files the command's process must inherit, in order
// from fd 3 (exec.Cmd.ExtraFiles).
func (l *Link) ExtraFiles() []*os.File {
	if l == nil || len(l.files) == 0 {
		return nil
	}
	return l.files
}

// Started closes aci's copies of the files the command inherited.
func (l *Link) Started() {
	if l != nil && len(l.files) > 0 {
		l.files[0].Close()
	}
}

// Close ends the link: the proxy stops getting this command's connections.
func (l *Link) Close() error {
	if l == nil {
		return nil
	}
	l.Started()
	return l.ln.Close()
}

var exeOnce struct {
	sync.Once
	f   *os.File
	err error
}

// selfExe is aci's own binary, opened once and kept: passed to each
// command as fd 4 and run from there.
func selfExe() (*os.File, error) {
	exeOnce.Do(func() {
		exeOnce.f, exeOnce.err = os.Open("/proc/self/exe")
		if exeOnce.err != nil {
			exeOnce.err = fmt.Errorf("open aci's own binary: %w", exeOnce.err)
		}
	})
	return exeOnce.f, exeOnce.err
}

// fdListener is the listening socket the command's first step opened in
// its namespace and sent over the link (SCM_RIGHTS); it is received at the
// first Accept.
type fdListener struct {
	conn *net.UnixConn

	mu     sync.Mutex
	inner  net.Listener // once received
	closed bool
	once   sync.Once
}

func (l *fdListener) Accept() (net.Conn, error) {
	inner, err := l.receive()
	if err != nil {
		return nil, err
	}
	return inner.Accept()
}

// receive waits for the listening socket, once.
func (l *fdListener) receive() (net.Listener, error) {
	l.mu.Lock()
	inner, closed := l.inner, l.closed
	l.mu.Unlock()
	if closed {
		return nil, net.ErrClosed
	}
	if inner != nil {
		return inner, nil
	}
	buf := make([]byte, 1)
	oob := make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := l.conn.ReadMsgUnix(buf, oob)
	if err != nil {
		return nil, err
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) == 0 {
		return nil, net.ErrClosed // the command's end went away without a socket
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) == 0 {
		return nil, net.ErrClosed
	}
	for _, fd := range fds[1:] {
		unix.Close(fd)
	}
	f := os.NewFile(uintptr(fds[0]), "aci-proxy-port")
	inner, err = net.FileListener(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("proxy port: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		inner.Close()
		return nil, net.ErrClosed
	}
	l.inner = inner
	return inner, nil
}

func (l *fdListener) Close() error {
	err := net.ErrClosed
	l.once.Do(func() {
		l.mu.Lock()
		l.closed = true
		inner := l.inner
		l.mu.Unlock()
		err = l.conn.Close()
		if inner != nil {
			inner.Close()
		}
	})
	return err
}

func (l *fdListener) Addr() net.Addr { return l.conn.LocalAddr() }

// front puts the first step in front of argv where the command needs
// one (its own network namespace).
func (l *Link) front(argv []string) []string {
	if !l.fwd {
		return argv
	}
	return append([]string{"/proc/self/fd/" + strconv.Itoa(netfwd.ExeFD), netfwd.Marker, strconv.Itoa(NetPort), "--"}, argv...)
}
