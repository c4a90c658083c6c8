package transcript

import (
	"errors"
	"fmt"
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
	tr, err := New(dir, Meta{Workdir: "/w", Model: "m"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Write(map[string]string{"type": "message", "role": "user", "content": "hi"}); err != nil {
		t.Fatal(err)
	}
	_, err = Open(tr.Path, "")
	var locked *LockedError
	if !errors.As(err, &locked) || !errors.Is(err, ErrLocked) || locked.PID != os.Getpid() || locked.Command == "" {
		t.Fatalf("second open: %v", err)
	}
	tr.Close()
	if _, err := os.Stat(ownerPath(tr.Path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the owner file stayed: %v", err)
	}
	again, err := Open(tr.Path, "")
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	again.Close()
}

// Pruning keeps the newest transcripts of the working directory written
// to, and leaves other directories' alone.
func TestPruneKeepsTheNewestOfEachDirectory(t *testing.T) {
	dir := t.TempDir()
	write := func(name, workdir string) {
		os.WriteFile(filepath.Join(dir, name+".jsonl"), []byte(`{"type":"meta","workdir":"`+workdir+`"}`+"\n"), 0o600)
	}
	for i := range 5 {
		write(fmt.Sprintf("2026010%d-000000-aaaa", i), "/work")
	}
	write("20250101-000000-zzzz", "/other")
	prune(dir, "/work", 3)
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	want := "20250101-000000-zzzz.jsonl 20260102-000000-aaaa.jsonl 20260103-000000-aaaa.jsonl 20260104-000000-aaaa.jsonl"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("after pruning: %s\nwant %s", got, want)
	}
}
