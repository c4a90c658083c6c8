//go:build linux

package limits

import (
	"os"
	"path/filepath"
	"testing"
)

// The kernel's counters are read from events-like files.
func TestCounter(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "memory.events"), []byte("low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\n"), 0o644)
	if n := counter(dir, "memory.events", "oom_kill"); n != 1 {
		t.Errorf("oom_kill = %d", n)
	}
	if n := counter(dir, "memory.events", "max"); n != 12 {
		t.Errorf("max = %d", n)
	}
	if n := counter(dir, "pids.events", "max"); n != 0 {
		t.Errorf("missing file = %d", n)
	}
}

// A cgroup's memory limit is read as MB; "max" and v1's huge "no limit"
// mean none.
func TestParseMemLimit(t *testing.T) {
	for in, want := range map[string]int64{"max\n": 0, "9223372036854771712\n": 0, "4294967296\n": 4096, "junk": 0, "0": 0} {
		if got := parseMemLimit(in); got != want {
			t.Errorf("parseMemLimit(%q) = %d, want %d", in, got, want)
		}
	}
}
