package acp

import (
	"fmt"
	"github.com/aci-dev/aci/internal/dirs"
	"log"
	"os"
	"path/filepath"
)

// maxLogBytes is where the log starts over: an editor keeps aci running
// for days.
const maxLogBytes = 10 << 20

// OpenLog opens the connection's log, $XDG_STATE_HOME/aci/acp.log (or
// ~/.local/state/aci/acp.log): stdout carries only protocol messages, and
// an editor seldom shows stderr.
func OpenLog() (*log.Logger, func() error, error) {
	dir, err := dirs.State()
	if err != nil {
		return nil, nil, fmt.Errorf("find the state folder: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("create %s: %w", dir, err)
	}
	path := filepath.Join(dir, "acp.log")
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxLogBytes {
		os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	return log.New(f, fmt.Sprintf("[%d] ", os.Getpid()), log.LstdFlags|log.Lmsgprefix), f.Close, nil
}
