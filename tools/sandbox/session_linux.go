//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/aci-dev/aci/tools/sandbox/sessiond"
)

// A session's sandbox is set up once, by a bwrap that lasts as long as the
// Sandbox: its own user and mount namespaces, the host read-only, the
// writable roots, the private /tmp and the hidden secret stores, with aci's
// helper (sessiond) inside. Each command is then a light bwrap that the
// helper starts from there: a user, pid and IPC namespace of its own, its
// own /proc and /dev/shm, the protected files bound read-only, in a network
// namespace the helper made for it (with the link to the proxy). So each
// command keeps what a one-shot bwrap gives it, and pays neither for
// mounting the whole policy again nor for re-executing aci: the limits are
// applied by aci itself to the command's first process while bwrap holds
// it (--block-fd), and the proxy port is opened by the helper.
//
// The helper keeps its capabilities in the session's user namespace (it
// needs them for the network namespaces); commands get none. Where the
// session cannot start, or a command needs more than the session has (a
// path made writable for it alone), the command takes the one-shot path.

// errRefused says the helper could not start a command.
var errRefused = errors.New("the session's sandbox refused the command")

// maxSessionStarts bounds how often a Sandbox starts its session again
// after it went away.
const maxSessionStarts = 3

// session is a Sandbox's long-lived bwrap and the control socket to the
// helper inside.
type session struct {
	ctl    *net.UnixConn
	cmd    *exec.Cmd
	done   chan struct{} // closed once the session's bwrap has exited
	stderr *bytes.Buffer
	paths  []string          // what it mounted something on (boundPaths)
	roots  map[string]fileID // what they were when it started
	// held are the protected and kept-back files bound read-only in the
	// session itself, as they were then: a command binds only the others
	// (sessionHeld).
	held map[string]fileID
	mu   sync.Mutex // one control message at a time

	refMu   sync.Mutex
	running int  // commands started in it that have not ended
	retired bool // no new command starts in it
	closed  bool
}

// SpawnRequest is one command to start in the session.
type SpawnRequest struct {
	Argv   []string // argv[0] found on the command's PATH
	Dir    string
	Env    []string
	Output *os.File // stdout and stderr
	Link   *Link    // from NewLink; nil: no network
	// Writable are paths writable for this command alone: the session
	// takes only run folders (NewRunDir); any other is a policy delta the
	// session does not have, and the command takes the one-shot path.
	Writable []string
	// Setup, when set, bounds the command's first process (its host pid)
	// before it runs anything; what it starts inherits the bounds.
	Setup func(pid int) error

	probe bool // the session's first try: no protected files
}

// Spawned is a command started in the session.
type Spawned struct {
	Pid    int // the command's process group, too
	result chan spawnResult
	once   sync.Once
	res    spawnResult
}

type spawnResult struct {
	status syscall.WaitStatus
	err    error
}

// Wait waits for the command to end and returns its wait status.
func (p *Spawned) Wait() (syscall.WaitStatus, error) {
	p.once.Do(func() { p.res = <-p.result })
	return p.res.status, p.res.err
}

// Warm starts the session's sandbox, the index of the workspace and the
// seal's first record in the background, so that the first command does
// not wait for them.
func (s *Sandbox) Warm() {
	s.warmIndex()
	if s.sessionWanted() {
		go s.session()
	}
}

func (s *Sandbox) sessionWanted() bool { return s.Kind() == Bwrap && !s.oneShot }

// Spawn starts req in the session's sandbox. ok is false (with no error)
// when the command must take the one-shot path instead: no session here,
// or a policy delta. release, as Command's, moves away the protected
// files it created.
func (s *Sandbox) Spawn(req SpawnRequest) (p *Spawned, release func() []string, ok bool, err error) {
	if !s.TakesInSession(req.Writable) {
		return nil, nil, false, nil
	}
	sess := s.session()
	if sess == nil {
		return nil, nil, false, nil
	}
	// The stand-ins this command uses are counted before its bwrap makes
	// them, so that another command ending meanwhile leaves them.
	s.wantLook() // the index must know what is there now
	record, release := s.protectHeld(nil)
	p, err = s.spawn(sess, req, record)
	if errors.Is(err, errRefused) {
		// The helper could not make the command's namespaces: the session
		// cannot serve, and the one-shot path takes over for good.
		s.sessMu.Lock()
		s.sessStarts, s.sessErr = maxSessionStarts, err
		s.sessMu.Unlock()
	}
	if errors.Is(err, sessiond.ErrGone) || errors.Is(err, errRefused) {
		release()
		s.dropSession(sess)
		return nil, nil, false, nil
	}
	if err != nil {
		release()
		return nil, nil, true, err
	}
	return p, release, true, nil
}

// SessionUp reports whether the session's sandbox is running: commands
// start in it.
func (s *Sandbox) SessionUp() bool {
	if s == nil {
		return false
	}
	s.sessMu.Lock()
	defer s.sessMu.Unlock()
	if s.sess == nil {
		return false
	}
	select {
	case <-s.sess.done:
		return false
	default:
		return true
	}
}

// TakesInSession reports whether a command with these paths writable for
// it alone may start in the session's sandbox: only run folders
// (NewRunDir) are; any other path is a policy delta the session does not
// have, and the command takes the one-shot path.
func (s *Sandbox) TakesInSession(writable []string) bool {
	if !s.sessionWanted() {
		return false
	}
	runs := s.runsDir()
	for _, w := range writable {
		if runs == "" || !within(real(w), runs) {
			return false
		}
	}
	return true
}

// session is the running session, started when needed; nil when it cannot
// run (the command then takes the one-shot path).
func (s *Sandbox) session() *session {
	s.sessMu.Lock()
	defer s.sessMu.Unlock()
	ended := false
	if s.sess != nil {
		select {
		case <-s.sess.done:
			ended = true
		default:
			if s.sess.rootsUnchanged() {
				return s.sess
			}
		}
		// Its running commands (background tasks) keep it until they end.
		s.sess.retire()
		s.sess = nil
	}
	if s.sessStarts >= maxSessionStarts {
		return nil
	}
	if ended || s.sessStarts == 0 {
		s.sessStarts++
	}
	sess, err := s.startSession()
	if err != nil {
		s.sessErr = err
		return nil
	}
	s.sess = sess
	return sess
}

// runsDir is the folder of the commands' run folders, in the session's
// temp folder: the helper sees it, commands see only their own.
func (s *Sandbox) runsDir() string {
	if s.privateTmp() == "" {
		return ""
	}
	return s.tmpDir + "/runs"
}

// NewRunDir makes a private folder for one command's own files (what the
// shell learns from it after it ended), writable by it alone.
func (s *Sandbox) NewRunDir() (string, error) {
	if !s.sessionWanted() || s.runsDir() == "" {
		return os.MkdirTemp("", "aci-run-")
	}
	if err := os.MkdirAll(s.runsDir(), 0o700); err != nil {
		return "", err
	}
	return os.MkdirTemp(s.runsDir(), "run-")
}

// spawn sends req to the helper and waits until the command is under way
// (its limits set). It returns sessiond.ErrGone when the helper is gone
// before starting it.
//
// record, when set, is work that must be done before the command runs
// anything: it is done while bwrap sets the command up, which then holds
// it until record and req.Setup are done.
func (s *Sandbox) spawn(sess *session, req SpawnRequest, record func()) (*Spawned, error) {
	if !sess.hold() {
		return nil, sessiond.ErrGone
	}
	started := false
	defer func() {
		if !started {
			sess.letGo()
		}
	}()
	held := req.Setup != nil || record != nil
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("command socket: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "aci-command"), os.NewFile(uintptr(fds[1]), "aci-command-helper")
	// Polled by the runtime: waiting for the helper holds no thread.
	c, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		theirs.Close()
		return nil, fmt.Errorf("command socket: %w", err)
	}
	conn := c
	keep := false // the command's connection outlives this call once it started
	defer func() {
		if !keep {
			conn.Close()
		}
	}()
	pass := []int{int(theirs.Fd()), int(req.Output.Fd())}
	r := sessiond.Request{Argv: s.commandArgs(sess, req.Argv, req.Dir, req.Writable, held, !req.probe), Env: req.Env}
	if req.Link != nil && len(req.Link.files) > 0 {
		r.Port = req.Link.port
		pass = append(pass, int(req.Link.files[0].Fd()))
	}
	var info, block [2]*os.File // read and write ends
	if held {
		for _, pp := range []*[2]*os.File{&info, &block} {
			rd, wr, err := os.Pipe()
			if err != nil {
				theirs.Close()
				closeFiles(info[:], block[:])
				return nil, fmt.Errorf("command pipe: %w", err)
			}
			pp[0], pp[1] = rd, wr
		}
		defer closeFiles(info[:], block[:])
		pass = append(pass, int(info[1].Fd()), int(block[0].Fd()))
		r.Extra = 2
	}
	sess.mu.Lock()
	_, _, err = sess.ctl.WriteMsgUnix([]byte{'c'}, unix.UnixRights(pass...), nil)
	sess.mu.Unlock()
	theirs.Close()
	if held {
		info[1].Close()
		block[0].Close()
	}
	if err != nil {
		return nil, sessiond.ErrGone
	}
	enc, dec := jsonLines(conn)
	if err := enc.Encode(r); err != nil {
		return nil, sessiond.ErrGone
	}
	if record != nil {
		go record() // while bwrap sets the command up; a later call waits for it
	}
	var rep sessiond.Reply
	if err := dec.Decode(&rep); err != nil {
		return nil, sessiond.ErrGone
	}
	if rep.Err != "" || rep.Pid <= 0 {
		return nil, fmt.Errorf("%w: %s", errRefused, rep.Err)
	}
	if held {
		// bwrap says its first process's pid once it made it, then holds
		// it until a byte comes (or the pipe closes): the limits and the
		// seal's record are in place before the command runs anything,
		// the record made while bwrap set the command up. Without a pid, bwrap
		// failed before starting anything (its message is in the output)
		// or said something else: it is ended, so that nothing runs
		// unbounded.
		pid, ok := readChildPid(info[0])
		if record != nil {
			record()
		}
		if !ok {
			syscall.Kill(-rep.Pid, syscall.SIGKILL)
		} else if err := setup(req.Setup, pid); err != nil {
			syscall.Kill(-rep.Pid, syscall.SIGKILL)
			return nil, fmt.Errorf("limit command: %w", err)
		} else {
			block[1].Write([]byte{1})
		}
	}
	p := &Spawned{Pid: rep.Pid, result: make(chan spawnResult, 1)}
	keep, started = true, true
	go func() {
		defer sess.letGo()
		defer conn.Close()
		var end sessiond.Reply
		if err := dec.Decode(&end); err != nil || end.Status == nil {
			// The helper went away: the command went with it.
			p.result <- spawnResult{status: syscall.WaitStatus(int(syscall.SIGKILL)), err: errors.New("the session's sandbox ended under the command")}
			return
		}
		p.result <- spawnResult{status: syscall.WaitStatus(*end.Status)}
	}()
	return p, nil
}

// setup bounds the command's first process, when there is a bound.
func setup(f func(pid int) error, pid int) error {
	if f == nil {
		return nil
	}
	return f(pid)
}

// jsonLines reads and writes JSON values on a command's connection.
func jsonLines(c net.Conn) (*json.Encoder, *json.Decoder) {
	return json.NewEncoder(c), json.NewDecoder(bufio.NewReader(c))
}

// readChildPid reads the pid of bwrap's first process from its --info-fd
// ({"child-pid": N, ...}); the pipe may stay open after it.
func readChildPid(f *os.File) (int, bool) {
	var buf []byte
	chunk := make([]byte, 512)
	for len(buf) < 64<<10 {
		n, err := f.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if i := bytes.IndexByte(buf, '}'); i >= 0 {
			var v struct {
				Pid int `json:"child-pid"`
			}
			if json.Unmarshal(buf[:i+1], &v) == nil && v.Pid > 0 {
				return v.Pid, true
			}
			return 0, false
		}
		if err != nil {
			return 0, false
		}
	}
	return 0, false
}

func closeFiles(groups ...[]*os.File) {
	for _, g := range groups {
		for _, f := range g {
			if f != nil {
				f.Close()
			}
		}
	}
}

// boundedWriter keeps the first max bytes written to it.
type boundedWriter struct {
	mu  sync.Mutex
	b   *bytes.Buffer
	max int
}

func (w *boundedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if room := w.max - w.b.Len(); room > 0 {
		w.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
