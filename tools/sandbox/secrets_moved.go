package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
)

// A kept-back file is a mount point inside the command: it can be neither
// renamed nor removed, but a folder above it can be renamed, and the real
// file goes with it, maybe to a place the index does not look into
// (node_modules), where the next command would read it. So each kept
// file's identity is noted when a command keeps it back; after the
// command, one gone from its place is looked for in the workspace by that
// identity and put back.

// keptMaxWalk bounds the entries looked at to find a moved kept file.
const keptMaxWalk = 200000

// noteKept records that path, of status fi, is kept back from a command.
func (s *Sandbox) noteKept(path string, fi fs.FileInfo) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	k := &s.side.kept
	k.mu.Lock()
	if k.ids == nil {
		k.ids = map[string][2]uint64{}
	}
	k.ids[path] = [2]uint64{uint64(st.Dev), st.Ino}
	k.mu.Unlock()
}

// keptPutBack puts back the kept-back files a command moved with a folder
// above them, and says so for each.
func (s *Sandbox) keptPutBack() []string {
	if len(s.policy.Workspace) == 0 {
		return nil
	}
	k := &s.side.kept
	k.mu.Lock()
	defer k.mu.Unlock()
	want := map[[2]uint64]string{}
	for p, id := range k.ids {
		if _, err := os.Lstat(p); err != nil {
			want[id] = p
			delete(k.ids, p)
		}
	}
	if len(want) == 0 {
		return nil
	}
	found := map[string]string{} // old place → where it is now
	n := 0
	filepath.WalkDir(s.policy.Workspace[0], func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if n++; n > keptMaxWalk || len(found) == len(want) {
			return filepath.SkipAll
		}
		if !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			if old, ok := want[[2]uint64{uint64(st.Dev), st.Ino}]; ok {
				found[old] = p
			}
		}
		return nil
	})
	var notes []string
	for old, now := range found {
		if os.MkdirAll(filepath.Dir(old), 0o755) != nil || os.Rename(now, old) != nil {
			notes = append(notes, s.relName(old)+" (moved to "+s.relName(now)+" with a folder above it, and could not be put back): "+whyKept)
			continue
		}
		notes = append(notes, s.relName(old)+" (put back: the command moved it to "+s.relName(now)+" with a folder above it): "+whyKept)
	}
	sort.Strings(notes)
	return notes
}

// whyKept is the reason named for a kept-back file aci put back.
const whyKept = "a secret file kept back from commands stays where the person put it"
