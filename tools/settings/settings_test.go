package settings

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/testfs"
)

// The person's file is found through XDG_CONFIG_HOME, else ~/.config; the
// workspace's limits are kept apart and may only lower; its network list
// may only deny.
func TestLoad(t *testing.T) {
	home, xdg, ws := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	testfs.File(t, filepath.Join(home, ".config", "aci", "settings.json"), `{"limits": {"memory_mb": 4096, "processes": 100}, "network": {"allow": ["a.example"]}}`)
	testfs.File(t, filepath.Join(ws, ".aci", "settings.json"), `{"limits": {"memory_mb": 99999, "processes": 50, "file_size_mb": 10}, "network": {"allow": ["evil.example"], "deny": ["b.example"]}}`)
	s, problems := load(ws)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	if s.Limits != (Limits{MemoryMB: 4096, Processes: 100}) || s.WorkspaceLimits.Processes != 50 {
		t.Errorf("limits %+v workspace %+v", s.Limits, s.WorkspaceLimits)
	}
	if got := s.Limits.Tighten(s.WorkspaceLimits); got != (Limits{MemoryMB: 4096, Processes: 50, FileSizeMB: 10}) {
		t.Errorf("tightened = %+v", got)
	}
	if strings.Join(s.Network.Allow, ",") != "a.example" || strings.Join(s.Network.Deny, ",") != "b.example" {
		t.Errorf("network %+v", s.Network)
	}
	t.Setenv("XDG_CONFIG_HOME", xdg)
	testfs.File(t, filepath.Join(xdg, "aci", "settings.json"), `{"limits": {"processes": 7}}`)
	if s, _ := load(""); s.Limits.Processes != 7 {
		t.Errorf("XDG_CONFIG_HOME not honoured: %+v", s.Limits)
	}
}

// A broken or negative file is named and left out; a missing one is fine.
func TestLoadProblems(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	if s, p := load(t.TempDir()); len(p) != 0 || s.Limits != (Limits{}) {
		t.Errorf("no files: %+v %v", s, p)
	}
	for _, bad := range []string{`{"limits": {"memory_mb": -1}}`, `{"limits": `, `{"limits": {"processes": "many"}}`} {
		testfs.File(t, filepath.Join(home, ".config", "aci", "settings.json"), bad)
		s, p := load("")
		if len(p) != 1 || !strings.Contains(p[0], "settings.json") || s.Limits != (Limits{}) {
			t.Errorf("%s: %+v %v", bad, s, p)
		}
	}
}

// The programs aci starts for the person (diff_tool, statusLine) come from
// the person's file only: a workspace's file naming them is not read.
func TestPersonOnlyPrograms(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	testfs.File(t, filepath.Join(ws, ".aci", "settings.json"), `{"diff_tool": "evil {old} {new}", "statusLine": {"type": "command", "command": "evil"}}`)
	if p := ReadPerson(); p.DiffTool != "" || p.StatusLine != nil {
		t.Errorf("a workspace named a program: %+v", p)
	}
	testfs.File(t, filepath.Join(home, ".config", "aci", "settings.json"), `{"diff_tool": "meld", "statusLine": {"type": "command", "command": "mine", "padding": 1}}`)
	u := ReadPerson()
	if u.Err != nil || u.DiffTool != "meld" || u.StatusLine == nil || u.StatusLine.Command != "mine" || u.StatusLine.Padding != 1 {
		t.Errorf("the person's programs: %+v", u)
	}
}
