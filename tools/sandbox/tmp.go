package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Each contained command of a session sees the session's own /tmp and
// /var/tmp: it neither reads other programs' temp files nor fills the
// shared ones, and what it leaves there is removed when aci exits
// (Cleanup). The folder lives under the user's temp dir ($TMPDIR or /tmp)
// rather than the runtime dir, which is a small RAM-backed tmpfs that
// builds would fill.

// privateTmp is the Sandbox's session folder, made on first use; "" when
// it cannot be made (commands then share the machine's /tmp).
func (s *Sandbox) privateTmp() string {
	s.tmpOnce.Do(func() {
		removeStaleTmps()
		d, err := os.MkdirTemp("", "aci-session-"+strconv.Itoa(os.Getpid())+"-")
		if err != nil {
			return
		}
		for _, sub := range []string{"tmp", "var-tmp"} {
			if err := os.Mkdir(filepath.Join(d, sub), 0o700); err != nil {
				os.RemoveAll(d)
				return
			}
		}
		s.tmpDir = real(d)
	})
	return s.tmpDir
}

// removeStaleTmps removes the session folders of an aci that is gone (one
// killed before its Cleanup ran): their names carry its pid.
func removeStaleTmps() {
	killStaleSandboxes() // stale_linux.go
	ents, _ := os.ReadDir(os.TempDir())
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), "aci-session-")
		pidText, _, found := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || !found || err != nil || !e.IsDir() || pid == os.Getpid() || syscall.Kill(pid, 0) != syscall.ESRCH {
			continue
		}
		d := filepath.Join(os.TempDir(), e.Name())
		makeRemovable(d)
		os.RemoveAll(d)
	}
}

// PrivateTmp is the host folder that contained commands see as /tmp, or
// "" before the first command (or when there is none).
func (s *Sandbox) PrivateTmp() string {
	if s == nil || s.tmpDir == "" {
		return ""
	}
	return filepath.Join(s.tmpDir, "tmp")
}

// Cleanup closes every Sandbox of the process, removing their session
// temp folders. aci calls it once its commands and background tasks have
// ended.
func Cleanup() {
	closeGate() // no session's sandbox starts from now on (end_linux.go)
	closeSessions()
	// What a kill has not ended yet, or what started alongside (a
	// session warming up while aci exits, a language server's sandbox):
	// ended and waited for, briefly.
	endOwnSandboxes(endWait)
	for _, s := range openSandboxes() {
		s.Close()
	}
}

// makeRemovable gives the owner write access to every folder under d: a
// command may have left read-only folders (Go's module cache does), which
// RemoveAll could not empty.
func makeRemovable(d string) {
	filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
		if err == nil && e.IsDir() {
			if fi, err := e.Info(); err == nil && fi.Mode().Perm()&0o700 != 0o700 {
				os.Chmod(p, fi.Mode().Perm()|0o700)
			}
		}
		return nil
	})
}

// Env is what contained commands need in their environment on top of the
// scrubbed one: TMPDIR pointing at the private /tmp.
func (s *Sandbox) Env() []string {
	if !s.Contained() || (s.kind != Bwrap && s.kind != Landlock) || s.privateTmp() == "" {
		return nil
	}
	switch s.kind {
	case Bwrap:
		return []string{"TMPDIR=/tmp"}
	case Landlock:
		return []string{"TMPDIR=" + filepath.Join(s.tmpDir, "tmp")}
	}
	return nil
}

// OwnPIDNamespace reports whether each command runs in its own pid
// namespace (bwrap): its leftovers then end with it, and the shell looks
// for them from inside.
func (s *Sandbox) OwnPIDNamespace() bool { return s.Kind() == Bwrap }
