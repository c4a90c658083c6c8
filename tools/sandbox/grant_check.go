package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// A command granted paths outside the workspace still runs in the
// sandbox, where a path it names may lead elsewhere than on the machine:
// through a link it planted, a ".." out of a folder the sandbox does not
// show, into the session's own /tmp. Its exit status then claims an
// effect that did not happen; EffectCheck finds such effects with a few
// stats before and after, so that the result can say so.

// Effect is a change a granted command is to make on the machine: Path
// deleted or moved away (Gone), or written.
type Effect struct {
	Path string
	Gone bool
}

// EffectCheck is what the effects' paths were before the command ran.
type EffectCheck struct {
	s       *Sandbox
	grant   []string
	effects []Effect
	before  []os.FileInfo // nil: not there
}

// CheckEffects stats the effects' paths before a command granted grant
// runs; nil when there is nothing to check (not contained by bwrap, where
// a grant opens the machine's own paths, or no effects).
func (s *Sandbox) CheckEffects(grant []string, effects []Effect) *EffectCheck {
	if s == nil || s.Kind() != Bwrap || len(effects) == 0 {
		return nil
	}
	e := &EffectCheck{s: s, grant: grant, effects: effects, before: make([]os.FileInfo, len(effects))}
	for i, f := range effects {
		e.before[i], _ = os.Lstat(f.Path)
	}
	return e
}

// Missed names, once the command succeeded, each effect that did not
// reach the machine, and why: a path to delete that is still the same
// file, a path to create that is not there.
func (e *EffectCheck) Missed() []string {
	if e == nil {
		return nil
	}
	var out []string
	for i, f := range e.effects {
		now, err := os.Lstat(f.Path)
		switch {
		case f.Gone && e.before[i] != nil && err == nil && unchanged(e.before[i], now):
			out = append(out, f.Path+" is still there on the machine, not deleted or moved: "+e.why(f.Path))
		case !f.Gone && e.before[i] == nil && err != nil && !e.removed(f.Path):
			out = append(out, f.Path+" was not written on the machine: "+e.why(f.Path))
		}
	}
	return out
}

// unchanged reports the same file as before: its inode and its status
// time (a folder removed and made again may get the inode back).
func unchanged(before, now os.FileInfo) bool {
	return os.SameFile(before, now) && ctime(before).Equal(ctime(now))
}

// removed reports a path the command also deletes or moves away (echo >
// f.tmp && mv f.tmp f): its absence afterwards is what was asked.
func (e *EffectCheck) removed(path string) bool {
	for _, f := range e.effects {
		if f.Gone && within(path, f.Path) {
			return true
		}
	}
	return false
}

// why explains a missed effect on path: a link on its way made while the
// command ran, else what a sandboxed path can lead to instead.
func (e *EffectCheck) why(path string) string {
	for q := filepath.Dir(path); q != "/" && q != "."; q = filepath.Dir(q) {
		fi, err := os.Lstat(q)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			continue
		}
		t, err := os.Readlink(q)
		if err != nil {
			break
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(q), t)
		}
		switch {
		case privateTmpPath(t) && e.s.HostPath(t) != t:
			return "it goes through the link " + q + " → " + t + ", which inside the sandbox led into the session's own " + tmpRoot(t) + ", not the machine's"
		case !underAny(t, e.grant):
			return "it goes through the link " + q + " → " + t + ", which the grant did not make writable"
		}
		return "it goes through the link " + q + " → " + t + ", which led elsewhere inside the sandbox"
	}
	return "inside the sandbox that name led elsewhere (a link or a \"..\" through a folder the sandbox does not show, or the session's own /tmp); name the real path plainly"
}

// tmpRoot is /var/tmp or /tmp, whichever holds p.
func tmpRoot(p string) string {
	if strings.HasPrefix(p, "/var/tmp/") {
		return "/var/tmp"
	}
	return "/tmp"
}
