//go:build linux

package sandbox

// How a session's sandbox starts: its bwrap, the probe of its first
// command, and the command lines of the session and of each command.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/aci-dev/aci/tools/sandbox/sessiond"
)

// startSession starts the session's bwrap with the helper and waits until
// the helper serves.
func (s *Sandbox) startSession() (*session, error) {
	if err := probeBwrap(); err != nil {
		return nil, err
	}
	if s.privateTmp() == "" {
		return nil, errors.New("no session folder")
	}
	exe, err := selfExe()
	if err != nil {
		return nil, err
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("session socket: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "aci-session"), os.NewFile(uintptr(fds[1]), "aci-session-helper")
	c, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		theirs.Close()
		return nil, fmt.Errorf("session socket: %w", err)
	}
	sess := &session{ctl: c.(*net.UnixConn), done: make(chan struct{}), stderr: &bytes.Buffer{}, paths: s.boundPaths()}
	sess.roots = rootIDs(sess.paths)
	layers := s.layers()
	prot, kept := s.sessionHeld()
	sess.held = rootIDs(append(slices.Clone(prot), kept...))
	sess.cmd = exec.Command(bwrapProbe.path, s.sessionArgs(layers.binds, prot, kept)...)
	sess.cmd.ExtraFiles = []*os.File{theirs, exe}
	sess.cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	if layers.spec != "" {
		sess.cmd.Env = append(sess.cmd.Env, sessiond.LayersEnv+"="+layers.spec)
	}
	sess.cmd.Stderr = &boundedWriter{b: sess.stderr, max: 4096}
	// Its own session: a Ctrl-C at aci's terminal is not for it. Should aci
	// die, it dies, and every command in it (--die-with-parent).
	sess.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	// Through the gate (end_linux.go): none starts once aci is ending,
	// and Cleanup finds every one that did.
	if !enter() {
		theirs.Close()
		c.Close()
		layers.release()
		return nil, errors.New("aci is ending")
	}
	err = sess.cmd.Start()
	leave()
	// The helper's end is the helper's alone from here: held here too, a
	// helper that died (killed as aci ends) would leave the requests sent
	// to it queued, with the command sockets they carry open, and the
	// probe below waiting for a reply forever (Cleanup then waits for the
	// probe's lock).
	theirs.Close()
	if err != nil {
		c.Close()
		layers.release()
		return nil, fmt.Errorf("start the session's sandbox: %w", err)
	}
	go func() {
		sess.cmd.Wait()
		layers.release() // its overlays are gone with it
		close(sess.done)
	}()
	b := make([]byte, 1)
	sess.ctl.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, err := sess.ctl.Read(b)
	sess.ctl.SetReadDeadline(time.Time{})
	if err != nil || n != 1 || b[0] != sessiond.Ready {
		sess.close()
		return nil, fmt.Errorf("the session's sandbox did not start: %v %s", err, strings.TrimSpace(sess.stderr.String()))
	}
	if err := s.probeSession(sess); err != nil {
		sess.close()
		s.sessStarts = maxSessionStarts // it would fail the same way again
		return nil, fmt.Errorf("the session's sandbox cannot start commands: %w", err)
	}
	registerSession(sess)
	return sess, nil
}

// probeSession runs true as a command would run, so that a session whose
// commands cannot start (the kernel refusing a namespace, or a /proc,
// inside it) is known before any command, which then takes the one-shot
// path.
func (s *Sandbox) probeSession(sess *session) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	// Without the protected files: their stand-ins would appear in the
	// workspace while no command runs.
	p, err := s.spawn(sess, SpawnRequest{Argv: []string{"true"}, Env: sess.cmd.Env, Output: w, probe: true}, nil)
	w.Close()
	if err != nil {
		return err
	}
	out, _ := io.ReadAll(io.LimitReader(r, 4096))
	ws, err := p.Wait()
	if err != nil || !ws.Exited() || ws.ExitStatus() != 0 {
		return fmt.Errorf("%v %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// sessionArgs is the session's bwrap: what every command of the session
// may touch (the policy but its protected files), with the host's /proc
// kept writable for the helper (each command's bwrap writes its user
// namespace's id maps there, and mounts its own /proc, which the kernel
// allows only where a whole /proc is visible) and the session folder at
// its own path for the helper.
func (s *Sandbox) sessionArgs(layerBinds, prot, kept []string) []string {
	p := s.policy
	p.PrivateTmp = s.tmpDir
	out := []string{"--unshare-user", "--uid", "0", "--gid", "0", "--cap-add", "ALL",
		"--ro-bind", "/", "/", "--dev", "/dev", "--bind", "/proc", "/proc"}
	roots := p.WritableRoots()
	sort.Strings(roots)
	out, roots = privateTmpArgs(out, p, roots)
	out = append(out, "--bind", s.tmpDir, s.tmpDir)
	out = append(out, layerBinds...)
	// A cache below /tmp is the machine's, under the session's own /tmp:
	// bound there for the helper to layer.
	for _, l := range p.Layered {
		if privateTmpPath(l) {
			out = append(out, "--ro-bind-try", l, l)
		}
	}
	for _, r := range roots {
		if r == "/dev/shm" || strings.HasPrefix(r, "/dev/") || r == "/proc" || strings.HasPrefix(r, "/proc/") {
			continue
		}
		out = append(out, "--bind-try", r, r)
	}
	out = sealBindArgs(out, s.sealedEntries(), p.ReadOnly)
	for _, r := range p.ReadOnly {
		out = append(out, "--ro-bind-try", r, r)
	}
	for _, e := range prot {
		out = append(out, "--ro-bind", e, e)
	}
	p.Kept = kept
	out = keptArgs(out, p)
	out = hiddenArgs(out, p)
	out = append(out, "--die-with-parent", "--chdir", "/")
	return append(out, "--", "/proc/self/fd/"+fmt.Sprint(sessiond.ExeFD), sessiond.Marker)
}

// commandArgs is one command's bwrap inside the session: its own user
// (the person's ids again), pid and IPC namespaces, /proc and /dev/shm,
// the session folder hidden but for its run folders, the protected files
// bound as the one-shot path binds them.
func (s *Sandbox) commandArgs(sess *session, argv []string, dir string, writable []string, held, protect bool) []string {
	p := s.policy
	p.PrivateTmp = s.tmpDir
	out := []string{bwrapProbe.path, "--unshare-user", "--uid", fmt.Sprint(os.Getuid()), "--gid", fmt.Sprint(os.Getgid()),
		"--unshare-ipc", "--cap-drop", "ALL", "--dev-bind", "/", "/", "--tmpfs", s.tmpDir, "--tmpfs", "/dev/shm"}
	out = pidArgs(out)
	for _, w := range writable {
		out = append(out, "--bind", real(w), real(w))
	}
	if protect {
		prot, kept := s.sessionHeld()
		for _, e := range sess.unheld(prot) {
			out = append(out, "--ro-bind", e, e)
		}
		p.Kept = sess.unheld(kept)
		out = keptArgs(out, p)
	}
	if dir != "" {
		out = append(out, "--chdir", dir)
	}
	if held {
		out = append(out, "--info-fd", "3", "--block-fd", "4")
	}
	out = append(out, "--")
	return append(out, argv...)
}

// sessionHeld are the protected files present (protectedArgs) and the
// secret files to keep back now. The session binds them once, read-only,
// when it starts; each command then binds only those not bound so, or no
// longer the file the session bound (unheld): a mount costs a command
// some 0.4 ms, and a repository may hold dozens of such files.
func (s *Sandbox) sessionHeld() (prot, kept []string) {
	p := s.policy
	p.Protected = s.protectedPresent(p.Protected)
	prot, _ = protectedNow(p)
	return prot, s.keptFor(nil)
}

// unheld are the paths of list the session did not bind as they are now:
// not bound there, or replaced since (a rename or removal on the host
// takes the session's mount away; a file changed in place keeps it).
func (sess *session) unheld(list []string) []string {
	if len(sess.held) == 0 {
		return list
	}
	now := rootIDs(list)
	var out []string
	for _, p := range list {
		if id, ok := sess.held[p]; !ok || now[p] != id {
			out = append(out, p)
		}
	}
	return out
}

// boundPaths are the paths the session's bwrap mounts something on:
// the writable roots, the read-only paths inside them and the hidden
// secret stores. A one-shot bwrap looks at them anew for each command; the
// session's mounts stay on what was there when it started.
func (s *Sandbox) boundPaths() []string {
	p := s.policy
	return append(append(append(append(p.WritableRoots(), p.ReadOnly...), p.Hidden...), p.Layered...), s.sealedEntries()...)
}

// rootsUnchanged reports whether each path the session mounted something
// on (boundPaths) is still the file or folder it was, and none appeared or
// went: one removed and made again on the host (a secret store rewritten,
// an editor's atomic save of ~/.npmrc) is no longer covered inside, so the
// session must start again.
func (sess *session) rootsUnchanged() bool {
	now := rootIDs(sess.paths)
	if len(now) != len(sess.roots) {
		return false
	}
	for k, v := range sess.roots {
		if now[k] != v {
			return false
		}
	}
	return true
}

func rootIDs(paths []string) map[string]fileID {
	out := map[string]fileID{}
	for _, p := range paths {
		var st unix.Statx_t
		if unix.Statx(unix.AT_FDCWD, p, 0, unix.STATX_INO|unix.STATX_BTIME, &st) == nil {
			id := fileID{dev: uint64(st.Dev_major)<<32 | uint64(st.Dev_minor), ino: st.Ino}
			if st.Mask&unix.STATX_BTIME != 0 {
				id.born = st.Btime.Sec*1e9 + int64(st.Btime.Nsec)
			}
			out[p] = id
		}
	}
	return out
}

// fileID tells a file from another made at the same path later: its
// device, inode and (where the file system keeps it) birth time, since a
// new folder often gets the inode of the one removed just before.
type fileID struct {
	dev, ino uint64
	born     int64
}
