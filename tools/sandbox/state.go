package sandbox

import (
	"os"
	"slices"
	"sync"
)

// A Sandbox keeps its state on itself: the session folder (tmp.go), the
// index of its workspace and what watches it (protect_index.go), the seal
// (seal.go), the kept-back secret files (secrets.go), the journal of
// what its commands may leave (protect_journal.go). Close lets go of all
// of it. The process keeps one list, of the sandboxes not closed yet, for
// what is process-wide by nature: aci's own git calls and writes, which
// every seal must hear of (seal_sync.go), and its exit (Cleanup).

// sideState is what a Sandbox keeps beside its policy, mechanism, index
// and seal.
type sideState struct {
	kept keptState // the secret files kept back from its commands (secrets.go)

	// journal writes down the trusted names missing while its commands
	// run (protect_watch.go); watched counts the commands per name.
	journal leftJournal
	watchMu sync.Mutex
	watched map[string]int

	warmOnce  sync.Once // the index's first walk, in the background (warmIndex)
	closeOnce sync.Once
}

// keptState is what a Sandbox keeps of the secret files it keeps back.
type keptState struct {
	namesMu sync.Mutex
	names   map[string]string // stand-in (in the session folder) → the file it stands in for

	mu      sync.Mutex
	ids     map[string][2]uint64 // file → device and inode when kept back (secrets_moved.go)
	watch   *keptWatch           // the watch on the stand-ins, made at first use (secrets_linux.go)
	noWatch bool                 // it could not be made
}

// open are the sandboxes made and not closed yet, in order.
var open struct {
	sync.Mutex
	list []*Sandbox
}

// opened adds s to the open sandboxes and returns it.
func opened(s *Sandbox) *Sandbox {
	open.Lock()
	open.list = append(open.list, s)
	open.Unlock()
	return s
}

// openSandboxes are the sandboxes not closed yet.
func openSandboxes() []*Sandbox {
	open.Lock()
	defer open.Unlock()
	return slices.Clone(open.list)
}

// Close ends the session's sandbox, if any, with the commands still in
// it, stops its watches, closes its journal and removes its session
// folder. A closed Sandbox must not run commands any more.
func (s *Sandbox) Close() {
	if s == nil {
		return
	}
	s.closeSession()
	s.side.closeOnce.Do(func() {
		open.Lock()
		if i := slices.Index(open.list, s); i >= 0 {
			open.list = slices.Delete(open.list, i, i+1)
		}
		open.Unlock()
		s.side.kept.mu.Lock()
		w := s.side.kept.watch
		s.side.kept.watch, s.side.kept.noWatch = nil, true
		s.side.kept.mu.Unlock()
		if w != nil {
			w.close()
		}
		s.side.journal.close()
		if x := s.indexed(); x != nil {
			x.closeWatch()
		}
		s.tmpOnce.Do(func() {}) // none is made from now on
		if s.tmpDir != "" {
			makeRemovable(s.tmpDir)
			os.RemoveAll(s.tmpDir)
		}
	})
}
