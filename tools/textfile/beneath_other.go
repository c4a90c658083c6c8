//go:build !linux

package textfile

// openDirBeneath opens the folder rel below rootFD (at root) by the walk
// (walkDirBeneath): there is no openat2 here.
func openDirBeneath(rootFD int, root, rel string, create bool) (int, error) {
	return walkDirBeneath(rootFD, root, rel, create)
}
