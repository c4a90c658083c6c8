//go:build linux

package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A journal nobody holds is swept: each file still as aci left it (same
// inode, still empty for a stand-in) is removed; one written to, replaced,
// or struck off is kept; a held journal is left alone.
func TestSweepLeftovers(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	dir := journalDir()
	os.MkdirAll(dir, 0o700)
	mk := func(name, content string) string {
		p := filepath.Join(ws, name)
		os.WriteFile(p, []byte(content), 0o644)
		return p
	}
	standIn := mk(".env", "")
	written := mk("AGENTS.md", "")
	replaced := mk("CLAUDE.md", "")
	struck := mk("sub-AGENTS.md", "")
	temp := mk(".main.go.aci-1a2b", "half written")
	entry := func(p string) leftEntry {
		fi, _ := os.Lstat(p)
		return leftEntry{Path: p, Kind: leftStandIn, Ino: inode(p), Ctime: ctime(fi).UnixNano()}
	}
	entries := []leftEntry{
		entry(standIn), entry(written), entry(replaced), entry(struck),
		{Path: struck, Gone: true},
		{Path: temp, Kind: leftTemp, Ino: inode(temp)},
	}
	var lines []string
	for _, e := range entries {
		b, _ := json.Marshal(e)
		lines = append(lines, string(b))
	}
	lines = append(lines, `{"path": "/cut-by-the-cr`) // the crash cut the last line
	os.WriteFile(filepath.Join(dir, "999999-dead"), []byte(strings.Join(lines, "\n")), 0o600)
	os.WriteFile(written, []byte("the person's\n"), 0o644)
	os.Remove(replaced)
	time.Sleep(10 * time.Millisecond)
	os.WriteFile(replaced, nil, 0o644) // a new, empty file, maybe with the same inode: not aci's

	// A live aci's journal (locked) is not touched.
	live := openJournal()
	if live == nil {
		t.Fatal("cannot make a journal")
	}
	defer live.Close()
	liveFile := mk("live-stand-in", "")
	b, _ := json.Marshal(leftEntry{Path: liveFile, Kind: leftStandIn, Ino: inode(liveFile)})
	live.Write(append(b, '\n'))

	sweepLeftovers()
	for p, want := range map[string]bool{standIn: false, written: true, replaced: true, struck: true, temp: false, liveFile: true} {
		if _, err := os.Lstat(p); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "999999-dead")); err == nil {
		t.Error("the swept journal is still there")
	}
	if _, err := os.Stat(live.Name()); err != nil {
		t.Error("the live journal was removed")
	}
}
