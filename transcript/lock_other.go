//go:build !unix

package transcript

import (
	"errors"
	"os"
)

var errWouldBlock = errors.New("locked")

// lockFile does nothing where there is no flock: one writer per
// transcript is then the person's care.
func lockFile(*os.File) error { return nil }
