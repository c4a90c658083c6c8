package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A transcript about to be appended to ends with a whole line: a cut
// record is removed (and counted), a whole one missing its line end gets
// it, anything else is left alone.
func TestDropCutTail(t *testing.T) {
	meta := `{"type":"meta","workdir":"/w"}` + "\n"
	whole := `{"type":"message","role":"user","content":"hi"}`
	long := `{"type":"message","role":"user","content":"` + strings.Repeat("x", 200<<10) + `"}`
	tests := []struct {
		name, in, want string
		dropped        int
	}{
		{"empty", "", "", 0},
		{"whole", meta + whole + "\n", meta + whole + "\n", 0},
		{"cut record", meta + whole[:20], meta, 1},
		{"cut long record", meta + long[:150<<10], meta, 1},
		{"whole record without its line end", meta + whole, meta + whole + "\n", 0},
		{"one cut line and nothing else", whole[:10], "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			os.WriteFile(path, []byte(tt.in), 0o600)
			f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			dropped, err := dropCutTail(f)
			f.Close()
			got, _ := os.ReadFile(path)
			if err != nil || dropped != tt.dropped || string(got) != tt.want {
				t.Errorf("dropped %d (%v), file %.60q; want %d, %.60q", dropped, err, got, tt.dropped, tt.want)
			}
		})
	}
}

// One writer per transcript: a second open is refused naming this
// process, and allowed once the first is closed; the owner file goes with it.
func TestTranscriptClaim(t *testing.T) {
	dir := t.TempDir()
	tr, err := NewTranscript(dir, "/w", "m", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Write(Record{Type: "message", Role: "user", Content: "hi"}); err != nil {
		t.Fatal(err)
	}
	_, err = ResumeTranscript(tr.Path, "")
	var locked *LockedError
	if !errors.As(err, &locked) || !errors.Is(err, ErrLocked) || locked.PID != os.Getpid() || locked.Command == "" {
		t.Fatalf("second open: %v", err)
	}
	tr.Close()
	if _, err := os.Stat(ownerPath(tr.Path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the owner file stayed: %v", err)
	}
	again, err := ResumeTranscript(tr.Path, "")
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	again.Close()
}

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
