//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The files aci itself trusts at its next start (AGENTS.md, CLAUDE.md and
// .env at the workspace root and the working directory: Policy.StandIns)
// used to get an empty stand-in in the real workspace while a command ran,
// so that bwrap could cover them. The person's editor, git and the
// command itself saw those files. Now nothing is made: one that a command
// creates is moved out when it ends (protectCommand). Should aci be killed
// first, the journal says which of them were missing while a command ran,
// from when; the next aci to start moves out each one made since then and
// before the dead aci was last known alive (its journal's last touch, at
// least every watchEvery while commands run), into the state folder.

// leftWatch is a journal entry for a trusted name missing while a
// command ran: Ctime is when the command started.
const leftWatch = "watch"

// watchTrusted writes down the trusted names missing now, for a command
// about to start; done strikes them off once it ended and what it made
// was moved out.
func (s *Sandbox) watchTrusted() (done func()) {
	start := time.Now().Add(-ctimeSlack)
	var mine []string
	sd := &s.side
	sd.watchMu.Lock()
	defer sd.watchMu.Unlock()
	for _, c := range s.policy.StandIns {
		c = strings.TrimSuffix(c, "/")
		if _, err := os.Lstat(c); err == nil {
			continue
		}
		if sd.watched == nil {
			sd.watched = map[string]int{}
		}
		if sd.watched[c] == 0 && !sd.journal.write(leftEntry{Path: c, Kind: leftWatch, Ctime: start.UnixNano()}) {
			continue
		}
		sd.watched[c]++
		mine = append(mine, c)
	}
	return func() {
		sd.watchMu.Lock()
		defer sd.watchMu.Unlock()
		for _, c := range mine {
			if sd.watched[c]--; sd.watched[c] <= 0 {
				delete(sd.watched, c)
				sd.journal.write(leftEntry{Path: c, Gone: true})
			}
		}
	}
}

// moveWatched moves out a trusted file a command of a dead aci made (see
// above), to the state folder's moved-out, keeping its path below it.
func moveWatched(e leftEntry, fi os.FileInfo) {
	c := ctime(fi).UnixNano()
	if c < e.Ctime || e.Until != 0 && c > e.Until {
		return // there before the command, or made after its aci was gone
	}
	dir := journalDir()
	if dir == "" {
		return
	}
	dest := filepath.Join(filepath.Dir(dir), "moved-out", strings.TrimPrefix(e.Path, "/"))
	if os.MkdirAll(filepath.Dir(dest), 0o700) != nil {
		return
	}
	for i := 1; ; i++ {
		if _, err := os.Lstat(dest); err != nil {
			break
		}
		dest = strings.TrimSuffix(dest, "."+strconv.Itoa(i-1)) + "." + strconv.Itoa(i)
	}
	moveOut(e.Path, dest)
}

// touch marks the journal, if any, as written now: aci is alive.
func (j *leftJournal) touch() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f != nil {
		now := time.Now()
		os.Chtimes(j.f.Name(), now, now)
	}
}
