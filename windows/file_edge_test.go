package windows

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/protocol"
)

func TestFileEditThroughSymlink(t *testing.T) {
	m, dir := newTestManager(t, nil)
	os.Mkdir(filepath.Join(dir, "real"), 0o755)
	target := filepath.Join(dir, "real", "a.txt")
	writeFile(t, target, "one\n", 0o600)
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(filepath.Join("real", "a.txt"), link); err != nil {
		t.Fatal(err)
	}
	do(t, m, "launcher", "open", `{"app":"file","target":"link.txt"}`)
	if r := do(t, m, "file_1", "edit", `{"old_text":"one","new_text":"two"}`); r.Status != protocol.StatusOK {
		t.Fatalf("edit = %+v", r)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced by a file")
	}
	if data, _ := os.ReadFile(target); string(data) != "two\n" {
		t.Errorf("target = %q", data)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("target mode %v", fi.Mode().Perm())
	}
}

func TestFileReadOnlyGivesClearError(t *testing.T) {
	m, dir := newTestManager(t, nil)
	path := filepath.Join(dir, "ro.txt")
	writeFile(t, path, "locked\n", 0o444)
	do(t, m, "launcher", "open", `{"app":"file","target":"ro.txt"}`)
	r := do(t, m, "file_1", "edit", `{"old_text":"locked","new_text":"open"}`)
	if r.Status != protocol.StatusError || !strings.Contains(r.Text, "read-only") {
		t.Fatalf("edit = %+v", r)
	}
	if data, _ := os.ReadFile(path); string(data) != "locked\n" {
		t.Errorf("content changed: %q", data)
	}
}

func TestFileNotUTF8KeptByEdits(t *testing.T) {
	m, dir := newTestManager(t, nil)
	path := filepath.Join(dir, "latin1.txt")
	orig := []byte("caf\xe9 au lait\nprice: 3\n")
	os.WriteFile(path, orig, 0o644)
	do(t, m, "launcher", "open", `{"app":"file","target":"latin1.txt"}`)
	if c := content(m, "file_1"); !strings.Contains(c, "not valid UTF-8") || !strings.Contains(c, "caf\uFFFD au lait") {
		t.Errorf("content:\n%s", c)
	}
	if r := do(t, m, "file_1", "edit", `{"old_text":"price: 3","new_text":"price: 4"}`); r.Status != protocol.StatusOK {
		t.Fatalf("edit = %+v", r)
	}
	data, _ := os.ReadFile(path)
	if !bytes.Equal(data, []byte("caf\xe9 au lait\nprice: 4\n")) {
		t.Errorf("bytes not kept: %q", data)
	}
}

func TestHugeFileViewedNotRewritten(t *testing.T) {
	m, dir := newTestManager(t, nil)
	path := filepath.Join(dir, "huge.log")
	f, _ := os.Create(path)
	line := strings.Repeat("x", 99) + "\n"
	for i := 0; i < 120000; i++ { // 12 MB
		f.WriteString(line)
	}
	f.WriteString("THE END\n")
	f.Close()
	do(t, m, "launcher", "open", `{"app":"file","target":"huge.log"}`)
	do(t, m, "file_1", "view", `{"start_line":120000,"end_line":120001}`)
	if c := content(m, "file_1"); !strings.Contains(c, "120001 lines, showing 120000-120001") || !strings.Contains(c, "120001\tTHE END") {
		t.Errorf("content:\n%s", c)
	}
	r := do(t, m, "file_1", "edit", `{"old_text":"THE END","new_text":"the end"}`)
	if r.Status != protocol.StatusError || !strings.Contains(r.Text, "over the 10 MB") {
		t.Errorf("edit = %+v", r)
	}
	content(m, "file_1")
	if r := do(t, m, "file_1", "write", `{"content":"small"}`); r.Status != protocol.StatusError {
		t.Errorf("write = %+v", r)
	}
}
