//go:build !linux

package textfile

// openDirBeneath opens the folder rel below rootFD (at root) by the walk
// (walkDirBeneath): there is no openat2 here.
func openDirBeneath(rootFD int, root, rel string, create bool) (int, error) {
	return walkDirBeneath(rootFD, root, rel, create)
}

// openNoLinks opens the folder rel below rootFD following no link (the
// strict walk): there is no openat2 here.
func openNoLinks(rootFD int, root, rel string, create bool) (int, error) {
	return strictWalk(rootFD, root, rel, create)
}
