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
// pair, one end kept by aci (served by the proxy), the other passed to the
// command's first process as fd 3. That process is aci again (its binary
// passed as fd 4 and run through /proc/self/fd/4, so the path it lives at
// need not be visible inside): it listens on 127.0.0.1:NetPort inside the
// namespace, hands each connection to aci over fd 3 as a fresh socket
// (SCM_RIGHTS), and runs the command. Nothing listens on the person's
// network, and no other process can reach the proxy under this command's
// name: the socket has no path.
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
	fwd   bool       // the command runs behind the forwarder
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

// fdListener receives connections as file descriptors over a Unix socket
// (SCM_RIGHTS): one message, one connection.
type fdListener struct {
	conn *net.UnixConn
	once sync.Once
}

func (l *fdListener) Accept() (net.Conn, error) {
	buf := make([]byte, 1)
	oob := make([]byte, unix.CmsgSpace(4))
	for {
		n, oobn, _, _, err := l.conn.ReadMsgUnix(buf, oob)
		if err != nil {
			return nil, err
		}
		if n == 0 && oobn == 0 {
			return nil, net.ErrClosed // the command's end is gone
		}
		msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
		if err != nil || len(msgs) == 0 {
			continue
		}
		fds, err := unix.ParseUnixRights(&msgs[0])
		if err != nil {
			continue
		}
		var c net.Conn
		for _, fd := range fds {
			f := os.NewFile(uintptr(fd), "aci-proxy-conn")
			if c == nil {
				c, err = net.FileConn(f)
				if err != nil {
					c = nil
				}
			}
			f.Close()
		}
		if c != nil {
			return c, nil
		}
	}
}

func (l *fdListener) Close() error {
	err := net.ErrClosed
	l.once.Do(func() { err = l.conn.Close() })
	return err
}

func (l *fdListener) Addr() net.Addr { return l.conn.LocalAddr() }

// front puts the forwarder in front of argv where the command runs behind
// one (its own network namespace).
func (l *Link) front(argv []string) []string {
	if !l.fwd {
		return argv
	}
	return append([]string{"/proc/self/fd/" + strconv.Itoa(netfwd.ExeFD), netfwd.Marker, strconv.Itoa(NetPort), "--"}, argv...)
}
