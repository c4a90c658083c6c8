package sandbox

import (
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aci-dev/aci/tools/safegit"
)

// How the seal meets the rest of aci (seal.go): the check before aci's
// own git calls, commands allowed to run uncontained, aci's own writes.

// sealHook hooks the check into aci's git calls, once per process, at
// the first seal.
var sealHook sync.Once

func sealRegister() { sealHook.Do(func() { safegit.BeforeEach(resealRunning) }) }

// sealed reports whether s keeps a seal.
func (s *Sandbox) sealed() bool {
	s.seal.mu.Lock()
	defer s.seal.mu.Unlock()
	return s.seal.saved != nil
}

// resealRunning puts back what the running commands and tasks of each
// open sandbox changed so far, before aci runs git on the machine; what
// it did is said with the next command that ends.
func resealRunning() {
	for _, s := range openSandboxes() {
		if !s.sealed() {
			continue
		}
		x := s.indexed()
		if x == nil || !x.running() {
			continue
		}
		if notes := s.sealCheck(); len(notes) > 0 {
			s.prot.mu.Lock()
			s.prot.moved = append(s.prot.moved, notes...)
			s.prot.mu.Unlock()
		}
	}
}

// sealPause stops the checks while a command the person allowed to run
// outside the sandbox runs (a git remote add, a submodule added there are
// theirs); resume takes what it changed as the new saved copy.
func (s *Sandbox) sealPause() (resume func()) {
	s.seal.mu.Lock()
	s.seal.paused++
	s.seal.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			var present []string
			if x := s.indexed(); x != nil {
				present = x.presentProtected()
			}
			roots := s.sealRoots(append(present, s.policy.Protected...))
			s.seal.mu.Lock()
			s.seal.paused--
			s.seal.mu.Unlock()
			s.sealBeginRoots(roots, true, time.Now())
		})
	}
}

// aciWrites are the paths aci itself is writing (a file window's atomic
// write, asked of the person where the file is protected): the seal
// neither takes them for a command's change nor puts them back.
var aciWrites struct {
	sync.Mutex
	n map[string]int
}

// sealAciWrite notes that aci is about to put temp file tmp (".NAME.aci-…")
// in place of NAME; done takes what it wrote as the saved copy.
func sealAciWrite(tmp string) (done func()) {
	base := filepath.Base(tmp)
	i := strings.LastIndex(base, ".aci-")
	if !strings.HasPrefix(base, ".") || i <= 1 {
		return func() {}
	}
	final := filepath.Join(filepath.Dir(tmp), base[1:i])
	aciWrites.Lock()
	if aciWrites.n == nil {
		aciWrites.n = map[string]int{}
	}
	aciWrites.n[final]++
	aciWrites.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			for _, s := range openSandboxes() {
				s.seal.mu.Lock()
				for _, r := range s.seal.roots {
					if within(final, r.path) {
						s.sealSave(r)
					}
				}
				s.seal.mu.Unlock()
			}
			aciWrites.Lock()
			if aciWrites.n[final]--; aciWrites.n[final] <= 0 {
				delete(aciWrites.n, final)
			}
			aciWrites.Unlock()
		})
	}
}

// aciWriting reports whether aci is writing a path within root r.
func aciWriting(r sealRoot) bool {
	aciWrites.Lock()
	defer aciWrites.Unlock()
	for p := range aciWrites.n {
		if within(p, r.path) {
			return true
		}
	}
	return false
}
