//go:build linux

package textfile

import (
	"errors"

	"golang.org/x/sys/unix"
)

// noOpenat2 makes openDirBeneath take the walk, as on a kernel without
// openat2 (tests).
var noOpenat2 bool

// openDirBeneath opens the folder rel below rootFD (at root) for a write,
// making missing folders when create is set: the kernel resolves it
// (openat2, RESOLVE_BENEATH: no step out of root, by "..", an absolute
// link or a magic link), so nothing can swap a link in between. A path
// the kernel refuses (an absolute link, which may still point inside) or
// a kernel without openat2 takes the walk (walkDirBeneath).
func openDirBeneath(rootFD int, root, rel string, create bool) (int, error) {
	if noOpenat2 {
		return walkDirBeneath(rootFD, root, rel, create)
	}
	fd, done, err := openat2Dir(rootFD, rel, unix.RESOLVE_BENEATH|unix.RESOLVE_NO_MAGICLINKS, create)
	switch {
	case done:
		return fd, err
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.EXDEV), errors.Is(err, unix.ENOSYS),
		errors.Is(err, unix.EPERM), errors.Is(err, unix.EAGAIN):
		return walkDirBeneath(rootFD, root, rel, create)
	}
	return -1, err
}

// openat2Dir opens the folder rel below rootFD for reading, the kernel
// resolving it as resolve says. It is done when that settles it: the
// folder opened, or missing where nothing is to be made (!create).
func openat2Dir(rootFD int, rel string, resolve uint64, create bool) (fd int, done bool, err error) {
	how := unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: resolve}
	fd, err = unix.Openat2(rootFD, rel, &how)
	switch {
	case err == nil:
		return fd, true, nil
	case errors.Is(err, unix.ENOENT) && !create:
		return -1, true, err
	}
	return -1, false, err
}

// openNoLinks opens the folder rel below rootFD (at root) following no
// link at all (openat2, RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS): a link
// on the way is a *LinkedError, found by the strict walk that names it.
// Missing folders (with create) and a kernel without openat2 take the
// walk too.
func openNoLinks(rootFD int, root, rel string, create bool) (int, error) {
	if noOpenat2 {
		return strictWalk(rootFD, root, rel, create)
	}
	if fd, done, err := openat2Dir(rootFD, rel, unix.RESOLVE_BENEATH|unix.RESOLVE_NO_SYMLINKS|unix.RESOLVE_NO_MAGICLINKS, create); done {
		return fd, err
	}
	return strictWalk(rootFD, root, rel, create)
}
