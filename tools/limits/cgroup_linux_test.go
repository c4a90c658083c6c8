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
