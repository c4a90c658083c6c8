package windows

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aci-dev/aci/protocol"
)

// editorFiles is an editor's side of Files: buffers that may differ from
// the disk, and a log of the calls made.
type editorFiles struct {
	mu      sync.Mutex
	buffers map[string]string
	reads   []string
	writes  []string
	failAll bool
	noWrite bool // the editor does not offer writes
}

func (e *editorFiles) ReadText(_ context.Context, path string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.reads = append(e.reads, path)
	if e.failAll {
		return "", errors.New("editor gone")
	}
	if text, ok := e.buffers[path]; ok {
		return text, nil
	}
	data, err := os.ReadFile(path) // an editor reads a file it has not open
	return string(data), err
}

func (e *editorFiles) WriteText(_ context.Context, path, content string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.noWrite {
		return ErrNoEditor
	}
	e.writes = append(e.writes, path)
	e.buffers[path] = content
	return nil
}

func (e *editorFiles) buffer(path string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.buffers[path]
}

func newEditorManager(t *testing.T) (*Manager, *editorFiles, string) {
	t.Helper()
	dir := t.TempDir()
	ed := &editorFiles{buffers: map[string]string{}}
	deny := ApproverFunc(func(context.Context, ApprovalRequest) Decision { return Decision{Message: "test denies"} })
	return NewManager(Env{Workdir: dir, OutputLimit: 30000, Approver: deny, Files: ed}, FileApp), ed, dir
}

// The model sees the editor's unsaved text, edits it in the editor's
// buffer (the disk stays as it was), and the result carries the whole text
// before and after.
func TestFileWindowReadsAndWritesThroughEditor(t *testing.T) {
	m, ed, dir := newEditorManager(t)
	path := filepath.Join(dir, "calc.go")
	writeFile(t, path, "package calc\n// saved\n", 0o644)
	ed.buffers[path] = "package calc\n// unsaved\n"
	if r := do(t, m, "launcher", "open", `{"app":"file","target":"calc.go"}`); r.Status != protocol.StatusOK {
		t.Fatalf("open = %+v", r)
	}
	if c := content(m, "file_1"); !strings.Contains(c, "// unsaved") || strings.Contains(c, "// saved") {
		t.Fatalf("view shows %q, want the unsaved buffer", c)
	}
	r := do(t, m, "file_1", "edit", `{"old_text":"// unsaved","new_text":"// edited"}`)
	if r.Status != protocol.StatusOK {
		t.Fatalf("edit = %+v", r)
	}
	if got := ed.buffer(path); got != "package calc\n// edited\n" {
		t.Errorf("buffer = %q", got)
	}
	if b, _ := os.ReadFile(path); string(b) != "package calc\n// saved\n" {
		t.Errorf("disk = %q, want it untouched", b)
	}
	want := FileChange{Path: path, Before: "package calc\n// unsaved\n", After: "package calc\n// edited\n"}
	if r.File == nil || *r.File != want {
		t.Errorf("File = %+v, want %+v", r.File, want)
	}
	// Typing in the editor changes what the model sees, and a write over
	// text it has not seen is refused.
	content(m, "file_1")
	ed.mu.Lock()
	ed.buffers[path] = "package calc\n// typed by the person\n"
	ed.mu.Unlock()
	if r := do(t, m, "file_1", "write", `{"content":"x\n"}`); r.Status != protocol.StatusError || !strings.Contains(r.Text, "changed") {
		t.Errorf("write over unseen typing = %+v", r)
	}
	if c := content(m, "file_1"); !strings.Contains(c, "typed by the person") {
		t.Errorf("view after typing = %q", c)
	}
	if r := do(t, m, "file_1", "write", `{"content":"x\n"}`); r.Status != protocol.StatusOK || r.File == nil || !strings.Contains(r.File.Before, "typed") {
		t.Errorf("write = %+v", r)
	}
}

// aci's checks run before the editor is asked: a path that now leads
// outside the workspace is neither read nor written through it, nor is a
// file with several hard links written.
func TestFileWindowEditorChecksFirst(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	m, ed, dir := newEditorManager(t)
	outside := filepath.Join(home, ".bashrc")
	writeFile(t, outside, "export SAFE=1\n", 0o644)
	notes := filepath.Join(dir, "notes.txt")
	writeFile(t, notes, "harmless\n", 0o644)
	linked := filepath.Join(dir, "linked.txt")
	writeFile(t, linked, "one\n", 0o644)
	if err := os.Link(linked, filepath.Join(dir, "other-name.txt")); err != nil {
		t.Fatal(err)
	}
	do(t, m, "launcher", "open", `{"app":"file","target":"notes.txt"}`)
	do(t, m, "launcher", "open", `{"app":"file","target":"linked.txt"}`)
	content(m, "file_1")
	content(m, "file_2")
	os.Remove(notes)
	if err := os.Symlink(outside, notes); err != nil {
		t.Fatal(err)
	}
	ed.mu.Lock()
	ed.reads = nil
	ed.mu.Unlock()
	if c := content(m, "file_1"); !strings.Contains(c, "outside the workspace") {
		t.Errorf("view through swapped link = %q", c)
	}
	if r := do(t, m, "file_1", "write", `{"content":"pwned\n"}`); r.Status == protocol.StatusOK {
		t.Errorf("write through swapped link = %+v", r)
	}
	if r := do(t, m, "file_2", "edit", `{"old_text":"one","new_text":"two"}`); r.Status == protocol.StatusOK || !strings.Contains(r.Text, "hard links") {
		t.Errorf("edit of a hard-linked file = %+v", r)
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	for _, p := range ed.reads {
		if p == notes {
			t.Errorf("the editor was asked to read %s after it became a link outside", p)
		}
	}
	if len(ed.writes) != 0 {
		t.Errorf("the editor was asked to write %v", ed.writes)
	}
}

// An editor that cannot give a file leaves the window on the disk's text.
func TestFileWindowEditorFailureFallsBackToDisk(t *testing.T) {
	m, ed, dir := newEditorManager(t)
	writeFile(t, filepath.Join(dir, "a.txt"), "on disk\n", 0o644)
	ed.failAll = true
	do(t, m, "launcher", "open", `{"app":"file","target":"a.txt"}`)
	if c := content(m, "file_1"); !strings.Contains(c, "on disk") {
		t.Errorf("view = %q", c)
	}
}

// An editor that reads but does not write leaves writes to the disk.
func TestFileWindowEditorWithoutWrites(t *testing.T) {
	m, ed, dir := newEditorManager(t)
	path := filepath.Join(dir, "a.txt")
	writeFile(t, path, "saved\n", 0o644)
	ed.noWrite = true
	ed.buffers[path] = "unsaved\n"
	do(t, m, "launcher", "open", `{"app":"file","target":"a.txt"}`)
	content(m, "file_1")
	if r := do(t, m, "file_1", "edit", `{"old_text":"unsaved","new_text":"edited"}`); r.Status != protocol.StatusOK {
		t.Fatalf("edit = %+v", r)
	}
	if b, _ := os.ReadFile(path); string(b) != "edited\n" {
		t.Errorf("disk = %q", b)
	}
}
