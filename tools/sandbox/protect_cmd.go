package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// heldStandIn is a grant's mount point in the session's /tmp
// (grantStubs) in use: how many running commands need it.
type heldStandIn struct {
	n int
}

// protectState is what a Sandbox keeps about the protected names at any
// depth of its workspace (protect_index.go).
type protectState struct {
	once     sync.Once
	index    *protectIndex
	mu       sync.Mutex
	moved    []string // moved away between commands: said at the next release
	watching bool     // the periodic look runs
	// looking is held by a periodic look from its look to its notes, and
	// by a release while it gathers its own: what a periodic look put back
	// just before a command ended is said in that command's result.
	looking sync.Mutex
}

// watchEvery is how often the workspace is looked at while a command or
// task runs, so that what a long background task makes does not wait for
// its end: a stat of each known folder.
const watchEvery = 3 * time.Second

// watchWhileBusy starts the periodic look, unless it runs; it stops once
// nothing runs.
func (s *Sandbox) watchWhileBusy(x *protectIndex) {
	s.prot.mu.Lock()
	defer s.prot.mu.Unlock()
	if s.prot.watching {
		return
	}
	s.prot.watching = true
	go func() {
		for {
			time.Sleep(watchEvery)
			// Under the lock: a command that begins now either is seen
			// running, or finds the watch stopped and starts another.
			s.prot.mu.Lock()
			if !x.running() {
				s.prot.watching = false
				s.prot.mu.Unlock()
				return
			}
			s.prot.mu.Unlock()
			s.side.journal.touch()
			s.prot.looking.Lock()
			_, made := x.look()
			if moved := append(s.quarantineMade(made), s.sealCheck()...); len(moved) > 0 {
				s.prot.mu.Lock()
				s.prot.moved = append(s.prot.moved, moved...)
				s.prot.mu.Unlock()
			}
			s.prot.looking.Unlock()
		}
	}()
}

// indexed is the workspace's index, made at first use.
func (s *Sandbox) indexed() *protectIndex {
	s.prot.once.Do(func() {
		if len(s.policy.Workspace) > 0 {
			s.prot.index = &protectIndex{root: s.policy.Workspace[0]}
		}
	})
	return s.prot.index
}

// warmIndex makes the index's first walk (and its watches) and the seal's
// first record in the background, once: what the first command would
// otherwise wait for, some 50 ms in a repository of 5,000 folders.
func (s *Sandbox) warmIndex() {
	if s.Kind() != Bwrap {
		return
	}
	s.side.warmOnce.Do(func() {
		go func() {
			if x := s.indexed(); x != nil && s.privateTmp() != "" {
				s.sealBegin(x)
			}
		}()
	})
}

// wantLook says a command's setup begins: its first protectedPresent
// looks at the workspace (protectIndex.recent).
func (s *Sandbox) wantLook() {
	if x := s.indexed(); x != nil {
		x.wantLook()
	}
}

// protectedPresent adds the protected paths present at any depth of the
// workspace to list (bound read-only for the command about to start),
// first moving away those that a running command or task made since the
// last look.
func (s *Sandbox) protectedPresent(list []string) []string {
	list = s.withTrusted(list)
	x := s.indexed()
	if x == nil || s.tmpDir == "" {
		return list
	}
	present, made := x.recent()
	if moved := s.quarantineMade(made); len(moved) > 0 {
		s.prot.mu.Lock()
		s.prot.moved = append(s.prot.moved, moved...)
		s.prot.mu.Unlock()
	}
	out := slices.Clip(list)
	for _, p := range present {
		out = appendUnique(out, p)
	}
	return out
}

// quarantineMade moves away protected paths commands made, and says so
// for each ("path (moved to ...): why").
func (s *Sandbox) quarantineMade(made []string) []string {
	var out []string
	for _, p := range made {
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		why := protectedName(filepath.Base(p), fi.IsDir() || fi.Mode()&os.ModeSymlink != 0)
		out = append(out, s.quarantine(p)+": "+why)
	}
	return out
}

// protectCommand sets up, for a command about to start under bwrap, what
// keeps the workspace's protected files as they are, and returns its
// release (see Command): it gives back the grant's mount points, and
// moves away the protected files that appeared at any depth while it (or
// another command or task) ran.
func (s *Sandbox) protectCommand(stubs []string) func() []string {
	record, release := s.protectHeld(stubs)
	record()
	return release
}

// protectHeld is protectCommand for a command that bwrap holds until it
// is let go (--block-fd): the seal's record of the sealed paths before it,
// record, is made meanwhile, while bwrap sets it up, and must be done
// before it is let go. The look at the workspace and the start of the
// command's time span are made now, in that order, as protectCommand
// makes them. release waits for record.
func (s *Sandbox) protectHeld(stubs []string) (record func(), release func() []string) {
	_, unguarded := protectedNow(s.policy)
	mine := s.holdStubs(stubs)
	unwatch := s.watchTrusted()
	end := func() {}
	var rec sync.Once
	recordSeal := func() {}
	record = func() { rec.Do(recordSeal) }
	if x := s.indexed(); x != nil {
		recordSeal = s.sealBeginLook(x)
		end = x.begin()
		s.watchWhileBusy(x)
	}
	var once sync.Once
	return record, func() (created []string) {
		once.Do(func() {
			record() // done already, unless the command never started
			end()
			s.releaseStandIns(mine)
			defer unwatch() // once what it made is moved out
			s.prot.looking.Lock()
			defer s.prot.looking.Unlock()
			back := s.keptPutBack() // before the look takes it for new
			s.prot.mu.Lock()
			created, s.prot.moved = append(s.prot.moved, back...), nil
			s.prot.mu.Unlock()
			if x := s.indexed(); x != nil {
				_, made := x.look()
				created = append(created, s.quarantineMade(made)...)
			}
			sealed := s.sealCheck()
			for _, u := range unguarded {
				if _, err := os.Lstat(u); err == nil {
					created = append(created, s.quarantine(u)+": "+s.policy.protected(u))
				}
			}
			created = append(created, sealed...)
			created = onceEach(created)
		})
		return created
	}
}

// holdStubs counts one more user of the mount points bwrap makes in the
// session's /tmp for a grant (grantStubs), and of those another running
// command holds: bwrap makes them, and the last command that used them
// removes them.
func (s *Sandbox) holdStubs(stubs []string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.standIns == nil {
		s.standIns = map[string]*heldStandIn{}
	}
	var mine []string
	for c, h := range s.standIns {
		if h.n > 0 {
			h.n++
			mine = append(mine, c)
		}
	}
	for _, c := range stubs {
		h := s.standIns[c]
		if h == nil {
			h = &heldStandIn{}
			s.standIns[c] = h
		}
		h.n++
	}
	return append(mine, stubs...)
}

// releaseStandIns gives back one command's mount points, removing those
// no running command uses any more (unless something filled them
// meanwhile).
func (s *Sandbox) releaseStandIns(paths []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range paths {
		h := s.standIns[p]
		if h == nil {
			continue
		}
		if h.n--; h.n > 0 {
			continue
		}
		delete(s.standIns, p)
		dropStandIn(p)
	}
}

// quarantine moves a protected file a command created out of the
// workspace, into the session's temp folder, and says where it went.
func (s *Sandbox) quarantine(path string) string {
	name := path
	if len(s.policy.Workspace) > 0 {
		if r, err := filepath.Rel(s.policy.Workspace[0], path); err == nil && !strings.HasPrefix(r, "..") {
			name = r
		}
	}
	dest := filepath.Join(s.tmpDir, "quarantine", strings.TrimPrefix(path, "/"))
	if os.MkdirAll(filepath.Dir(dest), 0o700) == nil {
		os.RemoveAll(dest)
		if moveOut(path, dest) == nil {
			return name + " (moved to " + dest + ")"
		}
	}
	return name + " (could not be moved away)"
}

// Uncontained is the Sandbox for a command the person allowed to run
// outside the sandbox: it contains nothing, but the protected files that
// appear in the workspace while it runs are still moved away and named
// (it could change existing ones: only containment prevents that). nil
// for a nil or uncontaining Sandbox.
func (s *Sandbox) Uncontained() *Sandbox {
	if s.Kind() != Bwrap {
		return nil
	}
	return &Sandbox{kind: None, policy: s.policy, outer: s}
}

// watchUncontained is an uncontained command's release: it marks the
// time it runs, and moves away what appeared meanwhile.
func (s *Sandbox) watchUncontained() func() []string {
	x := s.indexed()
	if x == nil || s.privateTmp() == "" {
		return func() []string { return nil }
	}
	// What is there before it runs is not its doing; what a running task
	// made is moved away now, and said with this command.
	_, before := x.look()
	early := s.quarantineMade(before)
	resume := s.sealPause() // seal.go
	end := x.begin()
	s.watchWhileBusy(x)
	var once sync.Once
	return func() (created []string) {
		once.Do(func() {
			end()
			resume()
			s.prot.looking.Lock()
			defer s.prot.looking.Unlock()
			_, made := x.look()
			created = append(early, s.quarantineMade(made)...)
			s.prot.mu.Lock()
			created, s.prot.moved = append(created, s.prot.moved...), nil
			s.prot.mu.Unlock()
		})
		return created
	}
}
