package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aci-dev/aci/internal/fswatch"
)

// The protected names count at any depth of the workspace: a later
// session started in a subfolder reads its AGENTS.md, direnv runs the
// .envrc of any folder a shell enters, an editor opened on a subfolder
// runs its .vscode/tasks.json. So the sandbox keeps an index of the
// workspace's folders (the first command walks it, at most maxIndexDirs
// folders; later ones stat the folders they know and read again those
// whose mtime moved), which gives:
//   - the protected files and folders present at any depth, bound
//     read-only for each command;
//   - the ones that appeared since the last look. One whose status
//     changed (ctime) while a command or background task of this
//     sandbox ran was made by it, whatever way (a subshell, a double
//     fork, a background task): it is moved out of the workspace and
//     named in the result. One made while nothing ran is the person's,
//     and is only bound read-only from then on.
// Dependency and build folders are not looked into: their files are
// installed, not configuration the person's tools load for the folder.

// maxIndexDirs bounds the folders the index keeps track of.
const maxIndexDirs = 20000

// ctimeSlack allows for the kernel's coarse clock when comparing a file's
// ctime with the time a command started.
const ctimeSlack = 20 * time.Millisecond

// skippedDirs are never looked into.
var skippedDirs = map[string]bool{
	".git": true, "node_modules": true, "bower_components": true, "vendor": true, ".venv": true, "venv": true,
	"__pycache__": true, ".tox": true, "site-packages": true, ".gradle": true, ".m2": true, "target": true,
}

type protectIndex struct {
	mu    sync.Mutex
	root  string
	dirs  map[string]time.Time // folder → mtime when last read; nil before the first walk
	found map[string]bool      // protected paths present
	busy  []busySpan           // when commands ran, since the last look
	last  time.Time            // when the last look ended
	began time.Time            // when the last look began
	want  time.Time            // a command's setup began: looks that began before do not serve it
	gits  map[string]bool      // .git entries seen at any depth (seal.go); true: since the first walk

	secrets map[string]bool // the secret files present (secrets.go)

	skipOnce sync.Once
	skip     *skipWatch // the .git entries in skipped folders (seal_skipped.go)

	// The kernel's word on which folders changed (protect_notify.go):
	// nil where it cannot be had, noWatch saying why.
	fw        *fswatch.Watcher
	noWatch   error
	dirty     map[string]bool // folders whose entries changed, heard before the look
	unwatched map[string]bool // known folders that could not be watched: looked at by stat
	watchMax  int             // folders watched at most (0: maxIndexDirs; less in tests)
	relooks   int             // looks at every folder after events were lost
}

// A command must start with an index that knows every file present when
// its setup began: a secret file the index has not seen yet is not kept
// back from it. So each setup asks for a look (wantLook), and the first
// of its calls looks; the later ones in the same setup take what that
// look found (recent). A look costs a stat per known folder (some 20 ms
// for 5,000 folders on a busy machine).

// wantLook says a command's setup begins now: the next recent looks.
func (x *protectIndex) wantLook() {
	x.mu.Lock()
	x.want = time.Now()
	x.mu.Unlock()
}

// recent is look, or what the last look found when that look began
// after the setup under way (wantLook) began. What a running task made
// meanwhile is found by the look after the command.
func (x *protectIndex) recent() (present, made []string) {
	x.mu.Lock()
	if x.dirs != nil && !x.began.Before(x.want) {
		for p := range x.found {
			present = append(present, p)
		}
		x.mu.Unlock()
		sort.Strings(present)
		return present, nil
	}
	x.mu.Unlock()
	return x.look()
}

// busySpan is when one command or task ran; end is zero while it runs.
type busySpan struct{ start, end time.Time }

// protectedName says what a file or folder named base controls when the
// name is a protected one, at any depth; "" otherwise.
func protectedName(base string, dir bool) string {
	t := protectedNames()
	if e, ok := t.exact[base]; ok && (dir || !e.dirOnly) {
		return e.why
	}
	for _, e := range t.globs {
		if ok, _ := filepath.Match(e.name, base); ok && (dir || !e.dirOnly) {
			return e.why
		}
	}
	return ""
}

// protectedNames is protectedTable as the index asks it, once per entry
// of the workspace: a map of the plain names, the patterns beside.
var protectedNames = sync.OnceValue(func() (t struct {
	exact map[string]nameRow
	globs []nameRow
}) {
	t.exact = map[string]nameRow{}
	for _, e := range protectedTable {
		name, dirOnly := strings.CutSuffix(e.name, "/")
		r := nameRow{name: name, why: e.why, dirOnly: dirOnly}
		if strings.ContainsAny(name, "*?[") {
			t.globs = append(t.globs, r)
		} else if _, dup := t.exact[name]; !dup {
			t.exact[name] = r
		}
	}
	return t
})

// nameRow is one protected name: a file or folder, or a folder only.
type nameRow struct {
	name, why string
	dirOnly   bool
}

// begin notes that a command starts now; end, that it ended.
func (x *protectIndex) begin() (end func()) {
	x.mu.Lock()
	start := time.Now()
	x.busy = append(x.busy, busySpan{start: start})
	x.mu.Unlock()
	return func() {
		x.mu.Lock()
		defer x.mu.Unlock()
		for j := range x.busy {
			if x.busy[j].start.Equal(start) && x.busy[j].end.IsZero() {
				x.busy[j].end = time.Now()
				return
			}
		}
	}
}

// running reports whether a command runs now.
func (x *protectIndex) running() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, b := range x.busy {
		if b.end.IsZero() {
			return true
		}
	}
	return false
}

// madeWhileBusy reports whether a status change at t fell while a command
// ran.
func (x *protectIndex) madeWhileBusy(t time.Time) bool {
	for _, b := range x.busy {
		if !t.Before(b.start.Add(-ctimeSlack)) && (b.end.IsZero() || !t.After(b.end)) {
			return true
		}
	}
	return false
}

// look brings the index up to date. It returns the protected paths
// present (sorted) and the new ones made while a command ran, which the
// caller moves away.
func (x *protectIndex) look() (present, made []string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	now := time.Now()
	x.began = now
	if x.dirs == nil {
		x.dirs, x.found = map[string]time.Time{}, map[string]bool{}
		x.startWatch()
		x.walk(x.root, nil)
	} else if dirs, ok := x.changedDirs(); ok {
		for _, d := range dirs {
			fi, err := os.Lstat(d)
			switch {
			case err != nil || !fi.IsDir():
				x.forgetBelow(d)
			case x.known(d):
				x.read(d, fi.ModTime(), &made)
			}
		}
		x.pruneFound()
	} else {
		for d, seen := range x.dirs {
			fi, err := os.Lstat(d)
			switch {
			case err != nil || !fi.IsDir():
				delete(x.dirs, d)
			case !fi.ModTime().Equal(seen):
				x.read(d, fi.ModTime(), &made)
			}
		}
		x.pruneFound()
	}
	// Spans that ended before this look are done with: what they made
	// was found now.
	kept := x.busy[:0]
	for _, b := range x.busy {
		if b.end.IsZero() || b.end.After(now) {
			kept = append(kept, b)
		}
	}
	x.busy = kept
	x.last = time.Now()
	for p := range x.found {
		present = append(present, p)
	}
	sort.Strings(present)
	sort.Strings(made)
	return present, made
}

// pruneFound forgets the protected and secret files that are gone.
func (x *protectIndex) pruneFound() {
	for p := range x.found {
		if _, err := os.Lstat(p); err != nil {
			delete(x.found, p)
		}
	}
	x.pruneSecrets()
}

// walk reads base and every folder below it that is not known yet; made
// (nil on the first walk) collects new protected paths made while busy.
func (x *protectIndex) walk(base string, made *[]string) {
	filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if p != base || base != x.root {
			if x.note(p, d, made) || skippedDirs[d.Name()] {
				if !d.IsDir() {
					return nil // SkipDir on a file would skip the rest of its folder
				}
				return filepath.SkipDir
			}
		}
		if d.IsDir() {
			if _, known := x.dirs[p]; (known && p != base) || len(x.dirs) >= maxIndexDirs {
				return filepath.SkipDir
			}
			if fi, err := d.Info(); err == nil {
				x.dirs[p] = x.settled(fi.ModTime())
				x.watch(p) // before WalkDir reads it
			}
		}
		return nil
	})
}

// settled is the mtime to keep for a folder read now: a zero time (read
// it again next look) when the folder changed so shortly before this look
// began that an entry made in the same tick of the kernel's coarse clock,
// after the read, would leave the mtime as it is.
func (x *protectIndex) settled(mtime time.Time) time.Time {
	if !mtime.Before(x.began.Add(-ctimeSlack)) {
		return time.Time{}
	}
	return mtime
}

// read looks at the entries of a known folder whose mtime moved.
func (x *protectIndex) read(dir string, mtime time.Time, made *[]string) {
	x.dirs[dir] = x.settled(mtime)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if x.note(p, e, made) || !e.IsDir() || skippedDirs[e.Name()] {
			continue
		}
		if _, known := x.dirs[p]; !known {
			x.walk(p, made)
		}
	}
}

// note records p when it bears a protected name, reporting whether it
// did. A new one made while a command ran goes to made instead of the
// index (it is about to be moved away).
func (x *protectIndex) note(p string, d fs.DirEntry, made *[]string) bool {
	x.noteSecret(p, d)
	x.noteGit(p, d, made != nil)
	// A link may stand for a folder (.vscode -> elsewhere).
	if protectedName(d.Name(), d.IsDir() || d.Type()&fs.ModeSymlink != 0) == "" {
		return false
	}
	if x.found[p] || made == nil {
		x.found[p] = true
		return true
	}
	if fi, err := os.Lstat(p); err == nil && x.madeWhileBusy(ctime(fi)) {
		if !slices.Contains(*made, p) {
			*made = append(*made, p)
		}
		return true
	}
	x.found[p] = true
	return true
}
