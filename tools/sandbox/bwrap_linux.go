//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
)

// available lists the mechanisms to try, best first.
func available() []Kind { return []Kind{Bwrap, Landlock} }

func probe(k Kind) error {
	switch k {
	case Bwrap:
		return probeBwrap()
	case Landlock:
		return probeLandlock()
	}
	return fmt.Errorf("%s is not available on linux", k)
}

func wrap(k Kind, p Policy, argv []string, dir string) ([]string, error) {
	switch k {
	case Bwrap:
		return bwrapArgv(p, argv, dir)
	case Landlock:
		return landlockArgv(p, argv, dir)
	}
	return nil, fmt.Errorf("sandbox %s is not available on linux", k)
}

var bwrapProbe struct {
	once sync.Once
	path string
	err  error
}

// bwrapBase are the options every contained command gets: its own user
// and mount namespaces with no capabilities (root included, which could
// otherwise remount / read-write), the host's files read-only and a fresh
// /dev. aci's own /proc/PID/environ is protected by aci being non-dumpable
// (protectSelf) as well as by the pid namespace (pidArgs).
var bwrapBase = []string{"--unshare-user", "--unshare-ipc", "--cap-drop", "ALL",
	"--ro-bind", "/", "/", "--dev", "/dev"}

// probeBwrap runs the real thing once: bwrap may be installed yet unable
// to create namespaces (containers, CI without user namespaces).
func probeBwrap() error {
	bwrapProbe.once.Do(func() {
		path, err := exec.LookPath("bwrap")
		if err != nil {
			bwrapProbe.err = errors.New("bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)")
			return
		}
		// The flags every command gets: a probe without them passes where
		// a command would fail (no user or pid namespaces allowed).
		args := append(append(append([]string{}, bwrapBase...), "--unshare-net"), bwrapPID...)
		args = append(args, "--", "/bin/sh", "-c", "exit 0")
		out, err := exec.Command(path, args...).CombinedOutput()
		if err != nil {
			bwrapProbe.err = fmt.Errorf("bwrap cannot run here: %v: %s", err, strings.TrimSpace(string(out)))
			return
		}
		bwrapProbe.path = path
	})
	return bwrapProbe.err
}

// bwrapArgv mounts the writable roots read-write over the read-only host,
// parents before children, then covers the secret stores: directories
// with an empty tmpfs, files with /dev/null. Only paths that exist can be
// mount points; the policy holds only such paths.
func bwrapArgv(p Policy, argv []string, dir string) ([]string, error) {
	if err := probeBwrap(); err != nil {
		return nil, err
	}
	out := append([]string{bwrapProbe.path}, bwrapBase...)
	// Its own network namespace: loopback only. The way out, if any, is
	// the Link its first process holds.
	out = append(out, "--unshare-net")
	out = pidArgs(out)
	// /dev/shm lives on the fresh /dev: a tmpfs there keeps it writable.
	out = append(out, "--tmpfs", "/dev/shm")
	roots := p.WritableRoots()
	sort.Strings(roots) // a parent sorts before its children
	out, roots = privateTmpArgs(out, p, roots)
	out = bindArgs(out, p, roots)
	out = pinArgs(sealBindArgs(out, p.Sealed, p.ReadOnly), p.Pinned)
	for _, r := range p.ReadOnly {
		out = append(out, "--ro-bind-try", r, r)
	}
	out = protectedArgs(out, p)
	out = keptArgs(out, p)
	out = hiddenArgs(out, p)
	// Its caches are read-only here (only the session's sandbox layers
	// them): the tools that need a writable one get theirs in its /tmp.
	if len(p.Layered) > 0 && p.PrivateTmp != "" {
		for _, kv := range cacheEnv(oneShotCacheBase) {
			out = append(out, "--setenv", kv[0], kv[1])
		}
	}
	if dir != "" {
		out = append(out, "--chdir", dir)
	}
	out = append(out, "--")
	return append(out, argv...), nil
}

// hiddenArgs covers the secret stores: folders with an empty read-only
// tmpfs, files with /dev/null.
func hiddenArgs(out []string, p Policy) []string {
	hidden := append([]string{}, p.Hidden...)
	sort.Strings(hidden)
	for _, h := range hidden {
		fi, err := os.Stat(h)
		switch {
		case err != nil:
			continue
		case fi.IsDir():
			out = append(out, "--tmpfs", h, "--remount-ro", h)
		default:
			out = append(out, "--ro-bind", "/dev/null", h)
		}
	}
	return out
}
