package sandbox

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aci-dev/aci/tools/safegit"
)

// The seal keeps what git, shells and editors execute in the workspace as
// it was before a contained command, whatever route the command takes.
// Read-only binds alone cannot: they move with a renamed parent, and a
// copy put back in its place is writable. So before each command aci
// records the exec-relevant files (every git folder's config, hooks,
// attributes and pointers; the protected files present at any depth) —
// their status, and their content the first time or after the person
// changed them — and after it (and on the periodic look while a command or
// task runs, and before any git call of aci's own: safegit) it compares
// them, puts back from the saved copy whatever changed, moves out of the
// workspace what appeared, and names each in the command's result.
//
// Checking costs a stat per sealed file (a few dozen for a usual
// repository); the content is read only where the status moved.

// Bounds on what one sealed root keeps: a protected folder (.idea, .vscode)
// larger than this is sealed only up to them.
const (
	sealMaxFiles = 400
	sealMaxBytes = 4 << 20
	sealMaxFile  = 1 << 20
)

// sealedFile is one saved path: a file (data), a folder or a link; absent
// records that nothing was there.
type sealedFile struct {
	absent bool
	mode   fs.FileMode
	data   []byte
	link   string
	id     statID
	big    bool // a file over sealMaxFile: its status only
}

// statID is what tells that a path changed without reading it.
type statID struct {
	dev, ino       uint64
	size           int64
	mtime, ctimeNs int64
	mode           fs.FileMode
}

func statOf(fi fs.FileInfo) statID {
	id := statID{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: fi.Mode(), ctimeNs: ctime(fi).UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino = uint64(st.Dev), st.Ino
	}
	return id
}

// sealRoot is one path kept: deep walks a folder's files; a shallow one
// (a work tree's .git folder) is kept as a folder only, its parts being
// roots of their own.
type sealRoot struct {
	path string
	deep bool
	why  string
	// bound: a protected file, bound read-only for each command that
	// started after it was saved (seal_held.go).
	bound   bool
	savedAt time.Time
	anc     []statID // the folders between the workspace and it, when saved
}

// sealState is a Sandbox's saved copy.
type sealState struct {
	mu     sync.Mutex
	paused int                    // uncontained commands running: what they change is the person's choice
	saved  map[string]*sealedFile // every path below each root, roots included
	roots  map[string]sealRoot
}

// The reasons named in a result.
const (
	whyGitDir    = "git reads its configuration and hooks from this folder: another one in its place runs code when the person runs git"
	whyGitFile   = "git follows this file to the repository's folder: a change points git at a configuration that runs code"
	whyGitConfig = "git obeys this file when the person runs it (core.fsmonitor, hooks, filters, aliases, ssh): a change runs code outside the sandbox"
	whyGitHooks  = "git runs the hooks in this folder when the person commits, merges or checks out"
	whyGitAttrs  = "git picks the filters and diff drivers it runs by these attributes"
	whyGitCommon = "git takes the repository's configuration from the folder this file names"
)

// sealRoots lists what is kept for the workspace: every git folder's
// exec-relevant parts (the root's, a worktree's git folders, the nested
// repositories the index found, and their submodules' and worktrees'
// folders) and the protected paths present.
func (s *Sandbox) sealRoots(protected []string) []sealRoot {
	if len(s.policy.Workspace) == 0 {
		return nil
	}
	ws := s.policy.Workspace[0]
	entries := []string{filepath.Join(ws, ".git")}
	if x := s.indexed(); x != nil {
		entries = append(entries, x.gitEntries()...)
	}
	var out []sealRoot
	var gitDirs []string
	seen := map[string]bool{}
	for _, e := range entries {
		if seen[e] {
			continue
		}
		seen[e] = true
		fi, err := os.Lstat(e)
		switch {
		case err == nil && fi.Mode().IsRegular():
			out = append(out, sealRoot{path: e, deep: true, why: whyGitFile})
			if gd := pointedGitDir(e); gd != "" && underAny(gd, s.policy.WritableRoots()) {
				gitDirs = append(gitDirs, gd)
			}
		case err == nil && fi.IsDir():
			out = append(out, sealRoot{path: e, why: whyGitDir})
			gitDirs = append(gitDirs, e)
		default:
			// Gone: kept as it was saved, if it was, so that one made
			// again in its place is put back.
			s.seal.mu.Lock()
			if r, ok := s.seal.roots[e]; ok {
				out = append(out, r)
			}
			s.seal.mu.Unlock()
		}
	}
	gitDirs = append(gitDirs, s.policy.Workspace[1:]...)
	done := map[string]bool{}
	for len(gitDirs) > 0 {
		g := gitDirs[0]
		gitDirs = gitDirs[1:]
		if done[g] {
			continue
		}
		done[g] = true
		out = append(out,
			sealRoot{path: filepath.Join(g, "config"), deep: true, why: whyGitConfig},
			sealRoot{path: filepath.Join(g, "config.worktree"), deep: true, why: whyGitConfig},
			sealRoot{path: filepath.Join(g, "hooks"), deep: true, why: whyGitHooks},
			sealRoot{path: filepath.Join(g, "info", "attributes"), deep: true, why: whyGitAttrs},
			sealRoot{path: filepath.Join(g, "commondir"), deep: true, why: whyGitCommon})
		for _, cfg := range []string{filepath.Join(g, "config"), filepath.Join(g, "config.worktree")} {
			for _, inc := range configIncludes(cfg) {
				if underAny(inc, s.policy.WritableRoots()) {
					out = append(out, sealRoot{path: inc, deep: true, why: whyGitConfig})
				}
			}
		}
		// Submodules' and linked worktrees' git folders live inside.
		for _, sub := range []string{"modules", "worktrees"} {
			gitDirs = append(gitDirs, innerGitDirs(filepath.Join(g, sub), 3)...)
		}
	}
	for _, p := range protected {
		p = strings.TrimSuffix(p, "/")
		s.mu.Lock()
		standIn := s.standIns[p] != nil // aci's empty stand-in, not a file to keep
		s.mu.Unlock()
		if standIn || strings.Contains(filepath.Base(p), "*") {
			continue
		}
		if _, err := os.Lstat(p); err == nil && within(p, ws) {
			out = append(out, sealRoot{path: p, deep: true, why: protectedWhy(ws, ws, p), bound: true})
		}
	}
	return out
}

// innerGitDirs are the git folders below dir (a modules or worktrees
// folder): those holding HEAD, depth levels down at most (a submodule's
// name may have slashes).
func innerGitDirs(dir string, depth int) []string {
	ents, err := os.ReadDir(dir)
	if err != nil || depth == 0 {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if _, err := os.Lstat(filepath.Join(p, "HEAD")); err == nil {
			out = append(out, p)
			continue
		}
		out = append(out, innerGitDirs(p, depth-1)...)
	}
	return out
}

// pointedGitDir is the folder a .git file points to ("gitdir: ..."), or "".
func pointedGitDir(file string) string {
	b, err := os.ReadFile(file)
	if err != nil || len(b) > 4096 {
		return ""
	}
	gd, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return ""
	}
	gd = strings.TrimSpace(gd)
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(filepath.Dir(file), gd)
	}
	if fi, err := os.Stat(gd); err != nil || !fi.IsDir() {
		return ""
	}
	return real(gd)
}

// sealBegin records the sealed paths before a command starts. Where one
// changed while no command or task of this sandbox ran, the change is the
// person's: the saved copy takes it.
func (s *Sandbox) sealBegin(x *protectIndex) {
	idle := !x.running()
	s.protectedPresent(nil) // the index's first walk finds the nested .git folders
	s.sealBeginRoots(s.sealRoots(append(x.presentProtected(), s.policy.Protected...)), idle)
}

// sealBeginRoots saves the roots not kept yet, and when idle those that
// changed.
func (s *Sandbox) sealBeginRoots(roots []sealRoot, idle bool) {
	s.seal.mu.Lock()
	defer s.seal.mu.Unlock()
	if s.seal.saved == nil {
		s.seal.saved, s.seal.roots = map[string]*sealedFile{}, map[string]sealRoot{}
		sealRegister(s)
	}
	listed := map[string]bool{}
	for _, r := range roots {
		listed[r.path] = true
		_, known := s.seal.roots[r.path]
		if known && (!idle || len(s.sealDiff(r)) == 0) {
			continue
		}
		s.sealSave(r)
	}
	if !idle {
		return
	}
	// Kept from before but no longer listed (a .git the person removed,
	// and its parts): as they are now is the person's doing too.
	for p, r := range s.seal.roots {
		if !listed[p] && len(s.sealDiff(r)) > 0 {
			s.sealSave(r)
		}
	}
}

// sealSave saves root r as it is now (under seal.mu).
func (s *Sandbox) sealSave(r sealRoot) {
	wasThere := s.seal.saved[r.path] != nil && !s.seal.saved[r.path].absent
	for p := range s.seal.saved {
		if r.covers(p) {
			delete(s.seal.saved, p)
		}
	}
	r.savedAt, r.anc = time.Now(), s.ancestors(r.path)
	if prev, ok := s.seal.roots[r.path]; ok && wasThere && !prev.savedAt.IsZero() {
		r.savedAt = prev.savedAt // bound since it was first saved
	}
	s.seal.roots[r.path] = r
	budget := sealMaxBytes
	n := 0
	save := func(p string, fi fs.FileInfo) {
		f := &sealedFile{mode: fi.Mode(), id: statOf(fi)}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			f.link, _ = os.Readlink(p)
		case fi.Mode().IsRegular() && r.deep:
			if fi.Size() > sealMaxFile || int(fi.Size()) > budget {
				f.big = true
			} else if b, err := os.ReadFile(p); err == nil {
				f.data = b
				budget -= len(b)
			} else {
				f.big = true
			}
		}
		s.seal.saved[p] = f
		n++
	}
	fi, err := os.Lstat(r.path)
	if err != nil {
		s.seal.saved[r.path] = &sealedFile{absent: true}
		return
	}
	save(r.path, fi)
	if !fi.IsDir() || !r.deep {
		return
	}
	filepath.WalkDir(r.path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == r.path {
			return nil
		}
		if n >= sealMaxFiles {
			return filepath.SkipAll
		}
		if fi, err := d.Info(); err == nil {
			save(p, fi)
		}
		return nil
	})
}

// covers reports whether saved path p belongs to root r: a shallow root
// is its own path only (its parts are roots of their own).
func (r sealRoot) covers(p string) bool {
	if r.deep {
		return within(p, r.path)
	}
	return p == r.path
}

// sealDiff lists the paths of root r that are not as saved (under
// seal.mu): changed, gone, or new in a sealed folder.
func (s *Sandbox) sealDiff(r sealRoot) []string {
	var out []string
	seen := map[string]bool{}
	for p, f := range s.seal.saved {
		if !r.covers(p) {
			continue
		}
		seen[p] = true
		if !f.same(p, r.deep) {
			out = append(out, p)
		}
	}
	// New entries count in a sealed folder only; where a file or nothing
	// was, the root itself differs and goes back whole.
	if f := s.seal.saved[r.path]; !r.deep || f == nil || f.absent || !f.mode.IsDir() {
		return out
	}
	n := 0
	filepath.WalkDir(r.path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if n++; n > sealMaxFiles*2 {
			return filepath.SkipAll
		}
		if !seen[p] {
			out = appendUnique(out, p)
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	return out
}

// same reports whether path is still as f saved it: the same status, or
// (a copy put in its place) the same type and content.
func (f *sealedFile) same(path string, deep bool) bool {
	fi, err := os.Lstat(path)
	if f.absent || err != nil {
		return f.absent && err != nil
	}
	now := statOf(fi)
	if now == f.id {
		return true
	}
	if fi.Mode().Type() != f.mode.Type() {
		return false
	}
	switch {
	case fi.IsDir():
		// A folder copied back in place of the saved one: what counts is
		// what is in it, which has roots or entries of its own.
		return true
	case fi.Mode()&fs.ModeSymlink != 0:
		l, _ := os.Readlink(path)
		return l == f.link
	case f.big || !deep:
		return now.size == f.id.size && now.mtime == f.id.mtime && fi.Mode().Perm() == f.mode.Perm()
	}
	if fi.Mode().Perm()&0o111 != f.mode.Perm()&0o111 || fi.Size() != int64(len(f.data)) {
		return false
	}
	b, err := os.ReadFile(path)
	return err == nil && bytes.Equal(b, f.data)
}

// sealCheck compares every sealed path with its saved copy and puts back
// what changed, returning what it did ("path (put back ...): why"). It is
// the end of a command, a periodic look, or the step before aci runs git.
func (s *Sandbox) sealCheck() []string {
	s.seal.mu.Lock()
	paused := s.seal.paused > 0
	s.seal.mu.Unlock()
	if paused {
		return nil
	}
	notes := s.sealNew()
	s.seal.mu.Lock()
	defer s.seal.mu.Unlock()
	if s.seal.roots == nil {
		return nil
	}
	var roots []sealRoot
	for _, r := range s.seal.roots {
		roots = append(roots, r)
	}
	// Parents first: a .git put back before what is in it.
	sort.Slice(roots, func(i, j int) bool { return roots[i].path < roots[j].path })
	for _, r := range roots {
		if aciWriting(r) {
			continue
		}
		changed := s.sealDiff(r)
		if len(changed) == 0 {
			continue
		}
		if s.sealHeld(r) {
			s.sealSave(r) // no contained command could have: the person's change
			continue
		}
		sort.Strings(changed)
		if s.sealRestore(r, changed) {
			notes = append(notes, s.relName(r.path)+" (put back as it was before the command changed it): "+r.why)
		} else {
			notes = append(notes, s.relName(r.path)+" (changed by the command, and could not be put back): "+r.why)
		}
	}
	return notes
}

// sealRestore puts the changed paths of r back from the saved copy
// (under seal.mu), reporting whether all went back.
func (s *Sandbox) sealRestore(r sealRoot, changed []string) bool {
	ok := true
	for _, p := range changed {
		f := s.seal.saved[p]
		if f == nil || f.absent {
			// New in a sealed folder, or where nothing was: moved out.
			if _, err := os.Lstat(p); err == nil {
				if strings.HasSuffix(s.quarantine(p), "(could not be moved away)") {
					ok = false
				}
			}
			continue
		}
		if !s.putBack(p, f) {
			ok = false
		}
	}
	// What went back has a new status: saved as it is now, the content
	// being the saved one.
	for p, f := range s.seal.saved {
		if r.covers(p) && !f.absent {
			if fi, err := os.Lstat(p); err == nil {
				f.id = statOf(fi)
			}
		}
	}
	return ok
}

// putBack makes path what f saved: what stands there in another shape is
// moved out first; a missing folder above it is made again.
func (s *Sandbox) putBack(path string, f *sealedFile) bool {
	fi, err := os.Lstat(path)
	if err == nil && (fi.Mode().Type() != f.mode.Type() || fi.Mode()&fs.ModeSymlink != 0) {
		if f.mode.IsDir() && fi.Mode().IsRegular() && s.renameBack(path, f) {
			return true
		}
		if strings.HasSuffix(s.quarantine(path), "(could not be moved away)") {
			return false
		}
		err = os.ErrNotExist
	}
	if os.MkdirAll(filepath.Dir(path), 0o755) != nil {
		return false
	}
	switch {
	case f.mode.IsDir():
		if err != nil {
			return os.Mkdir(path, f.mode.Perm()) == nil
		}
		return os.Chmod(path, f.mode.Perm()) == nil
	case f.mode&fs.ModeSymlink != 0:
		os.Remove(path)
		return os.Symlink(f.link, path) == nil
	case f.big:
		return false
	}
	return writeAtomic(path, f.data, f.mode.Perm())
}

// renameBack finds the saved folder (by its inode) among path's siblings,
// where a rename put it (.git renamed to .gitx, a .git file in its
// place), and moves it back.
func (s *Sandbox) renameBack(path string, f *sealedFile) bool {
	ents, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		return false
	}
	for _, e := range ents {
		p := filepath.Join(filepath.Dir(path), e.Name())
		if !e.IsDir() || p == path {
			continue
		}
		fi, err := os.Lstat(p)
		if err != nil || statOf(fi).ino != f.id.ino || statOf(fi).dev != f.id.dev {
			continue
		}
		if strings.HasSuffix(s.quarantine(path), "(could not be moved away)") {
			return false
		}
		return os.Rename(p, path) == nil
	}
	return false
}

// writeAtomic writes data to path through a temp file in its folder.
func writeAtomic(path string, data []byte, perm fs.FileMode) bool {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".aci-restore-*")
	if err != nil {
		return false
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Chmod(tmp.Name(), perm) != nil {
		os.Remove(tmp.Name())
		return false
	}
	if os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
		return false
	}
	return true
}

// relName is path relative to the workspace, when it lies there.
func (s *Sandbox) relName(path string) string {
	if len(s.policy.Workspace) > 0 {
		if r, err := filepath.Rel(s.policy.Workspace[0], path); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return path
}

// noteGit records a .git entry the index met (under x.mu); late says the
// first walk is done.
func (x *protectIndex) noteGit(p string, d fs.DirEntry, late bool) {
	if d.Name() != ".git" {
		return
	}
	if x.gits == nil {
		x.gits = map[string]bool{}
	}
	if _, ok := x.gits[p]; !ok {
		made := false
		if fi, err := os.Lstat(p); late && err == nil {
			made = x.madeWhileBusy(ctime(fi))
		}
		x.gits[p] = made
	}
}

// lateGits are the .git entries the index met after its first walk.
func (x *protectIndex) lateGits() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []string
	for p, late := range x.gits {
		if late {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// gitEntries are the .git entries the index met, sorted.
func (x *protectIndex) gitEntries() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make([]string, 0, len(x.gits))
	for p := range x.gits {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// presentProtected are the protected paths the index found.
func (x *protectIndex) presentProtected() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make([]string, 0, len(x.found))
	for p := range x.found {
		out = append(out, p)
	}
	return out
}

// maxSealedBinds bounds the .git entries bound in place (three mounts
// each): a workspace of many vendored repositories does not pay a mount
// per repository and command.
const maxSealedBinds = 32

// sealedEntries are the workspace's .git entries known now (the root's,
// and the nested ones the index found), for the binds that keep them in
// place (sealBindArgs).
func (s *Sandbox) sealedEntries() []string {
	if len(s.policy.Workspace) == 0 {
		return nil
	}
	out := []string{filepath.Join(s.policy.Workspace[0], ".git")}
	if x := s.indexed(); x != nil && s.tmpDir != "" {
		s.protectedPresent(nil)
		for _, e := range x.gitEntries() {
			if len(out) >= maxSealedBinds {
				break // the rest are kept by the after-check alone
			}
			out = appendUnique(out, e)
		}
	}
	return out
}

// sealedPath reports a path that is a .git entry or lies in one: what a
// refused rename or removal there was about (Explain).
func sealedPath(path string) bool {
	return filepath.Base(path) == ".git" || strings.Contains(path, "/.git/") || strings.HasPrefix(path, ".git/")
}

// sealing are the sandboxes with a seal, for the step before aci's own
// git calls (resealRunning).
var sealing struct {
	sync.Mutex
	list []*Sandbox
	once sync.Once
}

// sealRegister notes s as sealed, and hooks the check into aci's git
// calls once per process.
func sealRegister(s *Sandbox) {
	sealing.once.Do(func() { safegit.BeforeEach(resealRunning) })
	sealing.Lock()
	sealing.list = append(sealing.list, s)
	sealing.Unlock()
}

// resealRunning puts back what the running commands and tasks of each
// sandbox changed so far, before aci runs git on the machine; what it
// did is said with the next command that ends.
func resealRunning() {
	sealing.Lock()
	list := slices.Clone(sealing.list)
	sealing.Unlock()
	for _, s := range list {
		x := s.indexed()
		if x == nil || !x.running() {
			continue
		}
		if notes := s.sealCheck(); len(notes) > 0 {
			s.prot.mu.Lock()
			s.prot.moved = append(s.prot.moved, notes...)
			s.prot.mu.Unlock()
		}
	}
}

// configIncludes are the files a git config file includes (include.path,
// includeIf.*.path), resolved as git does: relative to the including
// file, ~ for the home folder. One in the workspace must be kept too: git
// obeys it like the config itself.
func configIncludes(cfg string) []string {
	b, err := os.ReadFile(cfg)
	if err != nil || len(b) > sealMaxFile {
		return nil
	}
	var out []string
	inInclude := false
	for _, line := range strings.Split(string(b), "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "[") {
			sec := strings.ToLower(strings.TrimLeft(l, "[ \t"))
			inInclude = strings.HasPrefix(sec, "include]") || strings.HasPrefix(sec, "include ") || strings.HasPrefix(sec, "includeif")
			continue
		}
		key, val, ok := strings.Cut(l, "=")
		if !inInclude || !ok || !strings.EqualFold(strings.TrimSpace(key), "path") {
			continue
		}
		p := strings.Trim(strings.TrimSpace(val), `"`)
		if rest, ok := strings.CutPrefix(p, "~/"); ok {
			home, _ := os.UserHomeDir()
			p = filepath.Join(home, rest)
		} else if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(cfg), p)
		}
		out = append(out, realAbove(filepath.Clean(p)))
	}
	return out
}

// sealPause stops the checks while a command the person allowed to run
// outside the sandbox runs (a git remote add, a submodule added there are
// theirs); resume takes what it changed as the new saved copy.
func (s *Sandbox) sealPause() (resume func()) {
	s.seal.mu.Lock()
	s.seal.paused++
	s.seal.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			var present []string
			if x := s.indexed(); x != nil {
				present = x.presentProtected()
			}
			roots := s.sealRoots(append(present, s.policy.Protected...))
			s.seal.mu.Lock()
			s.seal.paused--
			s.seal.mu.Unlock()
			s.sealBeginRoots(roots, true)
		})
	}
}

// aciWrites are the paths aci itself is writing (a file window's atomic
// write, asked of the person where the file is protected): the seal
// neither takes them for a command's change nor puts them back.
var aciWrites struct {
	sync.Mutex
	n map[string]int
}

// sealAciWrite notes that aci is about to put temp file tmp (".NAME.aci-…")
// in place of NAME; done takes what it wrote as the saved copy.
func sealAciWrite(tmp string) (done func()) {
	base := filepath.Base(tmp)
	i := strings.LastIndex(base, ".aci-")
	if !strings.HasPrefix(base, ".") || i <= 1 {
		return func() {}
	}
	final := filepath.Join(filepath.Dir(tmp), base[1:i])
	aciWrites.Lock()
	if aciWrites.n == nil {
		aciWrites.n = map[string]int{}
	}
	aciWrites.n[final]++
	aciWrites.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			sealing.Lock()
			list := slices.Clone(sealing.list)
			sealing.Unlock()
			for _, s := range list {
				s.seal.mu.Lock()
				for _, r := range s.seal.roots {
					if within(final, r.path) {
						s.sealSave(r)
					}
				}
				s.seal.mu.Unlock()
			}
			aciWrites.Lock()
			if aciWrites.n[final]--; aciWrites.n[final] <= 0 {
				delete(aciWrites.n, final)
			}
			aciWrites.Unlock()
		})
	}
}

// aciWriting reports whether aci is writing a path within root r.
func aciWriting(r sealRoot) bool {
	aciWrites.Lock()
	defer aciWrites.Unlock()
	for p := range aciWrites.n {
		if within(p, r.path) {
			return true
		}
	}
	return false
}
