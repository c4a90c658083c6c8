package textfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// A write to a path inside the workspace resolves that path at the moment
// of writing, from the workspace's own folder (opened once), without ever
// leaving it: a link inside the workspace that leads out, made or swapped
// in since the path was checked (a background command can flip one many
// times a second), fails the write instead of carrying it out of the
// workspace. On Linux the kernel does the resolution (openat2 with
// RESOLVE_BENEATH, no magic links); elsewhere, or where openat2 is
// missing, a walk one folder at a time that never follows a link without
// judging it. The temporary file is made, and renamed into place, inside
// the folder so opened: no name is looked up again by path.

// errEscapes says a path leads out of the workspace now.
var errEscapes = errors.New("leads out of the workspace")

// maxHops bounds the links followed in one resolution.
const maxHops = 40

// WriteAtomic writes data to path atomically (a temporary file renamed
// into place) after the checks: a path inside the workspace is resolved
// beneath it at the moment of writing (see above); any other goes where
// it led when it was checked (writeByPath), and was asked about.
func (a *FileAccess) WriteAtomic(path string, data []byte, perm fs.FileMode) error {
	if root, rel, ok := a.beneath(path); ok {
		return a.writeBeneath(root, rel, path, data, perm)
	}
	return a.writeByPath(path, data, perm)
}

// AllowWrite records that the person allowed the next write to path to go
// where path leads now, outside the workspace (they were asked, naming
// that place): only there may it leave the workspace.
func (a *FileAccess) AllowWrite(path string) {
	if a != nil {
		a.allowedTo = resolveTarget(path)
	}
}

// beneath finds the workspace root path lies in, as named: that root
// (symlinks resolved) and the rest of path below it.
func (a *FileAccess) beneath(path string) (root, rel string, ok bool) {
	if a == nil || len(a.Roots) == 0 {
		return "", "", false
	}
	path = filepath.Clean(path)
	cands := [][2]string{{a.lex, a.Roots[0]}}
	for _, r := range a.Roots {
		cands = append(cands, [2]string{r, r})
	}
	for _, c := range cands {
		named, real := c[0], c[1]
		if named == "" || named == "." {
			continue
		}
		if r, err := filepath.Rel(named, path); err == nil && r != "." && r != ".." && !strings.HasPrefix(r, "../") {
			return real, r, true
		}
	}
	return "", "", false
}

// writeBeneath writes path, which is rel below the workspace folder root.
func (a *FileAccess) writeBeneath(root, rel, path string, data []byte, perm fs.FileMode) error {
	d, dir, base, err := a.resolveBeneath(root, rel, path)
	if errors.Is(err, errEscapes) {
		return a.outside(path, data, perm)
	}
	if err != nil {
		return err
	}
	defer d.Close()
	return writeInDir(int(d.Fd()), dir, base, path, data, perm)
}

// resolveBeneath opens the folder path (rel below root) lies in now, by
// descriptor (dir is where it really is), making missing folders,
// and follows a link in its last name while it stays in the workspace;
// errEscapes when the path leads out of it.
func (a *FileAccess) resolveBeneath(root, rel, path string) (d *os.File, dir, base string, err error) {
	rootFD, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, "", "", fmt.Errorf("write %s: open the workspace: %w", path, err)
	}
	defer unix.Close(rootFD)
	for hop := 0; hop < maxHops; hop++ {
		dirRel, name := filepath.Split(rel)
		dfd, err := openDirBeneath(rootFD, root, filepath.Clean("./"+dirRel), true)
		if err != nil {
			if !errors.Is(err, errEscapes) {
				err = fmt.Errorf("write %s: %w", path, err)
			}
			return nil, "", "", err
		}
		f := os.NewFile(uintptr(dfd), filepath.Join(root, dirRel))
		dir, err := fdPath(f, filepath.Join(root, dirRel))
		if err != nil {
			f.Close()
			return nil, "", "", fmt.Errorf("write %s: %w", path, err)
		}
		st, exists, err := statAt(dfd, name)
		if err != nil {
			f.Close()
			return nil, "", "", fmt.Errorf("write %s: %w", path, err)
		}
		if exists && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			// A link is written through to its target, if that stays in
			// the workspace: resolved again from the root.
			next, err := linkBeneath(dfd, name, root, dir)
			f.Close()
			if err != nil {
				return nil, "", "", err
			}
			rel = next
			continue
		}
		if err := a.check(path, filepath.Join(dir, name)); err != nil {
			f.Close()
			return nil, "", "", err
		}
		return f, dir, name, nil
	}
	return nil, "", "", fmt.Errorf("write %s: too many links", path)
}

// WritePath is where a write to path made by someone else (an editor
// writing its buffer) must go now: inside the workspace, the file's real
// path, resolved beneath the workspace at this moment (folders made as
// needed) so that no link inside it leads the write out; outside it, path
// itself once the checks pass (CheckWrite). The caller hands the editor
// the path returned, and checks again after.
func (a *FileAccess) WritePath(path string) (string, error) {
	if err := a.CheckWrite(path); err != nil {
		return "", err
	}
	root, rel, ok := a.beneath(path)
	if !ok {
		return path, nil
	}
	d, dir, base, err := a.resolveBeneath(root, rel, path)
	if errors.Is(err, errEscapes) {
		target := resolveTarget(path)
		if a.allowedTo != "" && target == a.allowedTo {
			a.allowedTo = ""
			return path, nil
		}
		return "", refused("%s now leads outside the workspace, to %s (a link in it changed since the path was checked); nothing was written", path, target)
	}
	if err != nil {
		return "", err
	}
	d.Close()
	return filepath.Join(dir, base), nil
}

// outside handles a path of the workspace that leads out of it now: the
// write goes on only where the person allowed that very place.
func (a *FileAccess) outside(path string, data []byte, perm fs.FileMode) error {
	target := resolveTarget(path)
	if a.allowedTo != "" && target == a.allowedTo {
		a.allowedTo = ""
		return a.writeByPath(path, data, perm)
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if _, err := os.Stat(path); err != nil {
			return refused("%s is a link to a file that does not exist; nothing was written", path)
		}
	}
	if err := a.check(path, target); err != nil {
		return err
	}
	return refused("%s now leads outside the workspace, to %s (a link in it changed since the path was checked); nothing was written", path, target)
}

// linkBeneath reads the link name in the folder dfd (at dir, below root)
// and returns its target's path from root, or errEscapes.
func linkBeneath(dfd int, name, root, dir string) (string, error) {
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(dfd, name, buf)
	if err != nil {
		return "", err
	}
	target := string(buf[:n])
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	r, err := filepath.Rel(root, filepath.Clean(target))
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, "../") {
		return "", errEscapes
	}
	return r, nil
}

// walkDirBeneath opens the folder rel below rootFD one name at a time,
// never following a link it has not judged: a link's target is walked in
// turn, from the folder it lies in, and a walk that would leave root
// fails with errEscapes. With create, missing folders are made (0755).
func walkDirBeneath(rootFD int, root, rel string, create bool) (int, error) {
	first, err := unix.Dup(rootFD)
	if err != nil {
		return -1, err
	}
	stack := []int{first}
	defer func() {
		for _, fd := range stack[:len(stack)-1] {
			unix.Close(fd)
		}
	}()
	fail := func(err error) (int, error) {
		unix.Close(stack[len(stack)-1])
		return -1, err
	}
	comps := splitPath(rel)
	for hops := 0; len(comps) > 0; {
		c := comps[0]
		comps = comps[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(stack) == 1 {
				return fail(errEscapes)
			}
			unix.Close(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
			continue
		}
		top := stack[len(stack)-1]
		fd, err := unix.Openat(top, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) && create {
			if err := unix.Mkdirat(top, c, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
				return fail(err)
			}
			fd, err = unix.Openat(top, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		}
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			buf := make([]byte, 4096)
			n, lerr := unix.Readlinkat(top, c, buf)
			if lerr != nil {
				return fail(err) // a file, not a folder
			}
			if hops++; hops > maxHops {
				return fail(unix.ELOOP)
			}
			target := string(buf[:n])
			if filepath.IsAbs(target) {
				// Absolute: followed only into the workspace, from its
				// top again.
				r, err := filepath.Rel(root, filepath.Clean(target))
				if err != nil || r == ".." || strings.HasPrefix(r, "../") {
					return fail(errEscapes)
				}
				for _, fd := range stack[1:] {
					unix.Close(fd)
				}
				stack = stack[:1]
				target = r
			}
			comps = append(splitPath(target), comps...)
			continue
		}
		if err != nil {
			return fail(err)
		}
		stack = append(stack, fd)
	}
	out := stack[len(stack)-1]
	stack = stack[:len(stack)-1]
	stack = append(stack, -1) // the deferred close skips the last element
	return out, nil
}

func splitPath(p string) []string { return strings.Split(filepath.ToSlash(p), "/") }
