package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// moveOut moves path (a file, link or folder) to dest, which must not
// exist. A rename cannot cross file systems (EXDEV: /tmp on a tmpfs, the
// project on disk, as on many machines): then path is copied (modes and
// links kept) to a temporary name beside dest, renamed to dest once whole,
// and removed from the workspace. A copy that fails is removed, and path
// stays where it was.
func moveOut(path, dest string) error {
	err := os.Rename(path, dest)
	if err == nil || !errors.Is(err, syscall.EXDEV) {
		return err
	}
	tmp := dest + ".part"
	os.RemoveAll(tmp)
	if err := copyTree(path, tmp); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("copy %s: %w", path, err)
	}
	if err := os.Rename(tmp, dest); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	makeRemovable(path) // a folder the command made read-only
	if err := os.RemoveAll(path); err != nil {
		// Half removed: what is left is still in the workspace, and says so.
		return fmt.Errorf("remove %s after copying it away: %w", path, err)
	}
	return nil
}

// copyTree copies src to dst (which must not exist): regular files with
// their mode, folders with theirs (set once filled, so a read-only folder
// can be filled), links as links.
func copyTree(src, dst string) error {
	fi, err := os.Lstat(src)
	if err != nil {
		return err
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(src)
		if err != nil {
			return err
		}
		return os.Symlink(target, dst)
	case fi.IsDir():
		if err := os.Mkdir(dst, 0o700); err != nil {
			return err
		}
		ents, err := os.ReadDir(src)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if err := copyTree(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
				return err
			}
		}
		return os.Chmod(dst, fi.Mode().Perm())
	case fi.Mode().IsRegular():
		return copyFile(src, dst, fi.Mode().Perm())
	}
	// A fifo, socket or device: nothing to keep; it is removed with the rest.
	return nil
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, mode)
}

// onceEach keeps the first line said about each path of a list of moved
// files ("name (moved to ...): why"), so that a file seen by two looks is
// said once.
func onceEach(lines []string) []string {
	seen := map[string]bool{}
	out := lines[:0:0]
	for _, l := range lines {
		name, _, _ := strings.Cut(l, " (")
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, l)
	}
	return out
}
