package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SessionPath finds an exact id by one file, a prefix by the names, and
// nothing of another workspace.
func TestSessionPath(t *testing.T) {
	dir := t.TempDir()
	write := func(name, workdir string) {
		os.WriteFile(filepath.Join(dir, name+".jsonl"), []byte(`{"type":"meta","workdir":"`+workdir+`"}`+"\n"), 0o600)
	}
	write("20260101-000000-aaaa", "/w")
	write("20260101-000000-aabb", "/w")
	write("20260102-000000-cccc", "/other")
	tests := []struct {
		id     string
		prefix bool
		want   string // a name, or an error's words
	}{
		{"20260101-000000-aaaa", false, "20260101-000000-aaaa"},
		{"20260101-000000-aaaa.jsonl", false, "20260101-000000-aaaa"},
		{"20260101-000000-aa", false, "no session"},
		{"20260101-000000-aa", true, "ambiguous"},
		{"20260101-000000-aab", true, "20260101-000000-aabb"},
		{"20260102-000000-cccc", true, "no session"},
		{"../x", true, "bad session id"},
		{"..", true, "bad session id"},
	}
	for _, tt := range tests {
		got, err := SessionPath(dir, "/w", tt.id, tt.prefix)
		name := strings.TrimSuffix(filepath.Base(got), ".jsonl")
		if (err == nil && name != tt.want) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("SessionPath(%q, %v) = %q, %v; want %q", tt.id, tt.prefix, name, err, tt.want)
		}
	}
}
