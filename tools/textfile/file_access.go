package textfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/aci-dev/aci/tools/sandbox"
)

// FileAccess checks a file window's path each time it is read or written,
// not only when the window opened: a harmless path can become a symlink to
// a key or to ~/.bashrc later. Reads check the file actually opened (by its
// descriptor); writes go through the parent directory opened by descriptor
// and a rename that never follows a link, so a link swapped in between the
// check and the write cannot redirect it.
type FileAccess struct {
	// Roots is the workspace, symlinks resolved: any file below may be
	// read and written.
	Roots []string
	// Approved is where the window's path led when it was opened (and
	// judged, or approved by the person), symlinks resolved: it stays
	// usable even outside Roots.
	Approved string
	// Secret says why a resolved path is a secret ("" when it is not); nil
	// means no path is.
	Secret func(path string) string

	lex       string // the workdir as named (beneath.go)
	allowedTo string // where the person allowed the next write outside the workspace to go
}

// NewFileAccess is the access of a window opened on path in a session
// started in workdir: the workspace is workdir and its git root.
func NewFileAccess(workdir, path string, secret func(string) string) *FileAccess {
	a := &FileAccess{Secret: secret, Approved: resolveTarget(path), lex: filepath.Clean(workdir)}
	ws := resolveTarget(workdir)
	a.Roots = append(a.Roots, ws)
	for d := ws; filepath.Dir(d) != d; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			if d != ws {
				a.Roots = append(a.Roots, d)
			}
			break
		}
	}
	return a
}

// resolveTarget resolves the symlinks of path, of its longest existing
// ancestor when it does not exist yet.
func resolveTarget(path string) string {
	path = filepath.Clean(path)
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	dir, rest := path, ""
	for {
		parent := filepath.Dir(dir)
		rest = filepath.Join(filepath.Base(dir), rest)
		if r, err := filepath.EvalSymlinks(parent); err == nil {
			return filepath.Join(r, rest)
		}
		if parent == dir {
			return path
		}
		dir = parent
	}
}

// ErrRefused marks an access the checks refused.
var ErrRefused = errors.New("refused")

func refused(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrRefused, fmt.Sprintf(format, args...))
}

// check judges the resolved path real that path leads to now.
func (a *FileAccess) check(path, real string) error {
	if a == nil || real == a.Approved {
		return nil
	}
	if a.Secret != nil {
		if why := a.Secret(real); why != "" {
			return refused("%s now leads to %s (%s); open that file itself if you need it, which asks first", path, real, why)
		}
	}
	for _, r := range a.Roots {
		if real == r || strings.HasPrefix(real, r+"/") {
			return nil
		}
	}
	return refused("%s now leads outside the workspace, to %s (a link changed since the window opened); open that file itself if you need it", path, real)
}

// Open opens path for reading after checking where it leads now: the
// descriptor's own path is what is judged, so a link swapped after the
// check changes nothing. A hard link to a secret store's file is refused.
func (a *FileAccess) Open(path string) (*os.File, error) {
	// Judged before opening too: opening some devices does something.
	if a != nil {
		if err := a.check(path, resolveTarget(path)); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := a.checkOpened(f, path); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func (a *FileAccess) checkOpened(f *os.File, path string) error {
	if a == nil {
		return nil
	}
	real, err := fdPath(f, path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	if err := a.check(path, real); err != nil {
		return err
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fmt.Errorf("%s is not a regular file", path)
	}
	// A path that is itself a secret passed check only because the person
	// approved it; any other name of a secret store's file is refused.
	if st.Nlink > 1 && (a.Secret == nil || a.Secret(real) == "") &&
		isSecretInode(uint64(st.Dev), uint64(st.Ino)) {
		return refused("%s is a hard link to a file of a secret store", path)
	}
	return nil
}

// isSecretInode reports whether dev/ino is a file of a secret store: the
// only way to know where a hard link's other names are. It walks the
// stores, which only happens for files with several links.
func isSecretInode(dev, ino uint64) bool {
	found := false
	for _, s := range sandbox.SecretStores() {
		n := 0
		filepath.WalkDir(s, func(p string, d fs.DirEntry, err error) error {
			if err != nil || found || n > 10000 {
				return filepath.SkipAll
			}
			n++
			var st unix.Stat_t
			if unix.Lstat(p, &st) == nil && uint64(st.Dev) == dev && st.Ino == ino {
				found = true
			}
			return nil
		})
	}
	return found
}

// ReadLines is the package ReadLines on the checked file.
func (a *FileAccess) ReadLines(path string, start, end, maxLineLen int) (LineRange, error) {
	f, err := a.Open(path)
	if err != nil {
		return LineRange{}, err
	}
	defer f.Close()
	return readLines(f, path, start, end, maxLineLen)
}

// ReadTextFile is the package ReadTextFile on the checked file.
func (a *FileAccess) ReadTextFile(path string) (TextFile, error) {
	f, err := a.Open(path)
	if err != nil {
		return TextFile{}, err
	}
	defer f.Close()
	return readTextFile(f, path)
}

// IsBinary is the package IsBinary on the checked file.
func (a *FileAccess) IsBinary(path string) (bool, error) {
	f, err := a.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	return isBinary(f, path)
}

// writeByPath is the package WriteAtomic with the checks, for a path
// outside the workspace (one the person was asked about): the path is
// resolved (a symlink is still followed to its target) and judged, the
// target's folder is opened and verified by descriptor, the temporary file
// is created in it without following links, and the rename into place
// happens in that folder, only if the target is still not a link. A target
// with several hard links is refused: its other names may be outside the
// workspace.
func (a *FileAccess) writeByPath(path string, data []byte, perm fs.FileMode) error {
	target, err := a.writeTarget(path)
	if err != nil {
		return err
	}
	dir, base := filepath.Dir(target), filepath.Base(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create folder %s: %w", dir, err)
	}
	dfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return fmt.Errorf("write %s: open folder: %w", path, err)
	}
	d := os.NewFile(uintptr(dfd), dir)
	defer d.Close()
	if real, err := fdPath(d, dir); err != nil || real != dir {
		return refused("the folder of %s changed while writing (now %s); nothing was written", path, real)
	}
	return writeInDir(dfd, dir, base, path, data, perm)
}

// writeInDir writes data as base in the open folder dfd (at dir) through
// a temporary file renamed into place there: no name is resolved again.
func writeInDir(dfd int, dir, base, path string, data []byte, perm fs.FileMode) error {
	old, exists, err := statAt(dfd, base)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if exists {
		switch {
		case old.Mode&unix.S_IFMT == unix.S_IFLNK:
			return refused("%s became a link while writing; nothing was written", path)
		case old.Mode&unix.S_IFMT != unix.S_IFREG:
			return fmt.Errorf("write %s: not a regular file", path)
		case old.Nlink > 1:
			return refused("%s has %d hard links, whose other names may lie outside the workspace; aci does not write through them (copy the file to break the link first)", path, old.Nlink)
		}
		perm = fs.FileMode(old.Mode & 0o777)
		if perm&0o222 == 0 {
			return fmt.Errorf("write %s: the file is read-only (mode %04o)", path, perm)
		}
	}
	tmpName, tfd, err := createTempAt(dfd, base)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := os.NewFile(uintptr(tfd), tmpName)
	defer sandbox.NoteTemp(filepath.Join(dir, tmpName))() // removed by the next aci should this one be killed
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			unix.Unlinkat(dfd, tmpName, 0)
		}
	}()
	if err := fillTemp(tmp, path, data, perm); err != nil {
		return err
	}
	// The target must still be what was checked: renameat replaces a link
	// swapped in at the last moment rather than following it, but a swap
	// is refused anyway so the link is left as the other party made it.
	now, stillThere, err := statAt(dfd, base)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if stillThere && (now.Mode&unix.S_IFMT == unix.S_IFLNK || (exists && now.Ino != old.Ino)) {
		return refused("%s was replaced while writing; nothing was written", path)
	}
	if err := unix.Renameat(dfd, tmpName, dfd, base); err != nil {
		return fmt.Errorf("rename into %s: %w", path, err)
	}
	ok = true
	unix.Fsync(dfd)
	return nil
}

// writeTarget is the file a write to path lands in, resolved through
// links and judged; a link to nothing is refused.
func (a *FileAccess) writeTarget(path string) (string, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if _, err := os.Stat(path); err != nil {
			return "", refused("%s is a link to a file that does not exist; nothing was written", path)
		}
	}
	target := resolveTarget(path)
	if err := a.check(path, target); err != nil {
		return "", err
	}
	return target, nil
}

// CheckWrite judges a write to path that someone else will make (an
// editor writing its buffer): the checks WriteAtomic makes before it
// writes. The editor writes later, by path, so a link swapped in between
// is not caught as WriteAtomic catches it; the window checks again after.
func (a *FileAccess) CheckWrite(path string) error {
	target, err := a.writeTarget(path)
	if err != nil {
		return err
	}
	var st unix.Stat_t
	err = unix.Lstat(target, &st)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return fmt.Errorf("write %s: not a regular file", path)
	case st.Nlink > 1:
		return refused("%s has %d hard links, whose other names may lie outside the workspace; aci does not write through them (copy the file to break the link first)", path, st.Nlink)
	case st.Mode&0o222 == 0:
		return fmt.Errorf("write %s: the file is read-only (mode %04o)", path, st.Mode&0o777)
	}
	return nil
}

// statAt lstats name in the folder dfd.
func statAt(dfd int, name string) (unix.Stat_t, bool, error) {
	var st unix.Stat_t
	err := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) {
		return st, false, nil
	}
	return st, err == nil, err
}

// createTempAt creates a new file ".base.aci-RANDOM" in the folder dfd,
// never following a link.
func createTempAt(dfd int, base string) (string, int, error) {
	for range 10 {
		var b [6]byte
		rand.Read(b[:])
		name := "." + base + ".aci-" + hex.EncodeToString(b[:])
		fd, err := unix.Openat(dfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		return name, fd, err
	}
	return "", -1, errors.New("cannot create a temporary file")
}
