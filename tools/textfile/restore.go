package textfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Putting a file back (/undo, /rewind) writes where the file was when it
// was recorded, never where a link made since leads: the path is resolved
// below an anchor folder (the workspace) without following any link at
// all, and the anchor itself must still be the folder it was (device and
// inode). A folder on the way that became a link fails the restore with a
// LinkedError naming it.

// Ident is a file's identity: its device and inode.
type Ident struct{ Dev, Ino uint64 }

// Anchor is the folder restores below it are resolved beneath, as it was
// when recorded.
type Anchor struct {
	Path  string // symlinks resolved
	Ident Ident
}

// NewAnchor records the folder path (symlinks resolved) as it is now.
func NewAnchor(path string) (Anchor, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return Anchor{}, err
	}
	var st unix.Stat_t
	if err := unix.Stat(real, &st); err != nil {
		return Anchor{}, err
	}
	return Anchor{Path: real, Ident: identOf(&st)}, nil
}

// RealPath is path with the links of its longest existing ancestor
// resolved: where a file is (or would be made) now.
func RealPath(path string) string { return resolveTarget(path) }

// Holds says whether path lies strictly below the anchor.
func (a Anchor) Holds(path string) bool {
	if a.Path == "" {
		return false
	}
	r, err := filepath.Rel(a.Path, filepath.Clean(path))
	return err == nil && r != "." && r != ".." && !strings.HasPrefix(r, "../")
}

// LinkedError is a restore refused because a folder on the way to the
// file is now a link (or the anchor is no longer the recorded folder).
type LinkedError struct {
	Folder string // the folder that is a link now
	Target string // where it leads
}

func (e *LinkedError) Error() string {
	if e.Target == "" {
		return fmt.Sprintf("refused: %s is not the folder it was (replaced since); nothing was written", e.Folder)
	}
	return fmt.Sprintf("refused: its folder %s is now a link (to %s); restores stay inside the workspace and follow no link, nothing was written", e.Folder, e.Target)
}

// Slot is one name in a folder opened below an anchor without following
// a link: what is there can be read, replaced or removed by descriptor.
type Slot struct {
	dir     *os.File
	dirPath string
	name    string
	path    string
}

// Open opens the folder of path (below the anchor) for a restore; create
// makes missing folders (0755). A folder on the way that is a link is a
// *LinkedError.
func (a Anchor) Open(path string, create bool) (*Slot, error) {
	if !a.Holds(path) {
		return nil, fmt.Errorf("%s is outside %s", path, a.Path)
	}
	rootFD, err := unix.Open(a.Path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		return nil, &LinkedError{Folder: a.Path, Target: linkTarget(a.Path)}
	}
	if err != nil {
		return nil, err
	}
	defer unix.Close(rootFD)
	var st unix.Stat_t
	if err := unix.Fstat(rootFD, &st); err != nil {
		return nil, err
	}
	if a.Ident != (Ident{}) && identOf(&st) != a.Ident {
		return nil, &LinkedError{Folder: a.Path}
	}
	rel, _ := filepath.Rel(a.Path, filepath.Clean(path))
	dirRel, name := filepath.Split(rel)
	dirRel = filepath.Clean("./" + dirRel)
	fd, err := openNoLinks(rootFD, a.Path, dirRel, create)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(a.Path, dirRel)
	return &Slot{dir: os.NewFile(uintptr(fd), dir), dirPath: dir, name: name, path: path}, nil
}

// strictWalk opens rel below rootFD one name at a time, following no link:
// a link on the way is a *LinkedError naming it.
func strictWalk(rootFD int, root, rel string, create bool) (int, error) {
	fd, err := unix.Dup(rootFD)
	if err != nil {
		return -1, err
	}
	at := root
	for _, c := range splitPath(rel) {
		if c == "" || c == "." {
			continue
		}
		if c == ".." {
			unix.Close(fd)
			return -1, fmt.Errorf("%s: leads out of %s", rel, root)
		}
		at = filepath.Join(at, c)
		next, err := unix.Openat(fd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) && create {
			if err := unix.Mkdirat(fd, c, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
				unix.Close(fd)
				return -1, err
			}
			next, err = unix.Openat(fd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		}
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			buf := make([]byte, 4096)
			if n, lerr := unix.Readlinkat(fd, c, buf); lerr == nil {
				unix.Close(fd)
				return -1, &LinkedError{Folder: at, Target: string(buf[:n])}
			}
		}
		unix.Close(fd)
		if err != nil {
			return -1, fmt.Errorf("%s: %w", at, err)
		}
		fd = next
	}
	return fd, nil
}

func linkTarget(p string) string {
	t, err := os.Readlink(p)
	if err != nil {
		return "?"
	}
	return t
}

// Path is the file's path as named.
func (s *Slot) Path() string { return s.path }

// Close lets go of the folder.
func (s *Slot) Close() { s.dir.Close() }

// State is what the slot holds now: exists, whether it is a regular file
// (a link is not), its identity, mode and, for a regular file, content.
type State struct {
	Exists, Regular bool
	Ident           Ident
	Mode            fs.FileMode
	Data            []byte
}

// Read is the slot's state, the file opened without following a link.
func (s *Slot) Read() (State, error) {
	dfd := int(s.dir.Fd())
	st, exists, err := statAt(dfd, s.name)
	if err != nil || !exists {
		return State{}, err
	}
	out := State{Exists: true, Ident: identOf(&st), Mode: fs.FileMode(st.Mode & 0o777)}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return out, nil
	}
	fd, err := unix.Openat(dfd, s.name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return out, err
	}
	f := os.NewFile(uintptr(fd), s.path)
	defer f.Close()
	var fst unix.Stat_t
	if err := unix.Fstat(fd, &fst); err != nil || identOf(&fst) != out.Ident {
		return out, fmt.Errorf("%s changed while being read", s.path)
	}
	if out.Data, err = io.ReadAll(f); err != nil {
		return out, err
	}
	out.Regular = true
	return out, nil
}

// Write replaces the file atomically with data and mode perm (a temporary
// file renamed into place in the opened folder) and returns its identity.
func (s *Slot) Write(data []byte, perm fs.FileMode) (Ident, error) {
	dfd := int(s.dir.Fd())
	if err := writeInDir(dfd, s.dirPath, s.name, s.path, data, perm|0o200); err != nil {
		return Ident{}, err
	}
	fd, err := unix.Openat(dfd, s.name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return Ident{}, err
	}
	defer unix.Close(fd)
	if err := unix.Fchmod(fd, uint32(perm)); err != nil {
		return Ident{}, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return Ident{}, err
	}
	return identOf(&st), nil
}

// Remove removes the name (a file, never a folder's content).
func (s *Slot) Remove() error {
	err := unix.Unlinkat(int(s.dir.Fd()), s.name, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	return err
}

func identOf(st *unix.Stat_t) Ident { return Ident{Dev: uint64(st.Dev), Ino: uint64(st.Ino)} }
