package windows

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/protocol"
)

func newTestManager(t *testing.T, approver Approver) (*Manager, string) {
	t.Helper()
	dir := t.TempDir()
	if approver == nil {
		approver = ApproverFunc(func(context.Context, ApprovalRequest) Decision { return Decision{Message: "test denies"} })
	}
	return NewManager(Env{Workdir: dir, OutputLimit: 30000, Approver: approver}, FileApp), dir
}

// do runs an action with params given as a JSON object.
func do(t *testing.T, m *Manager, window, action, params string) Result {
	t.Helper()
	raw := map[string]json.RawMessage{}
	if params != "" {
		if err := json.Unmarshal([]byte(params), &raw); err != nil {
			t.Fatalf("bad params %s: %v", params, err)
		}
	}
	return m.Execute(context.Background(), window, action, raw)
}

// content renders a window and tells it the model was sent that view, as
// the agent does once a request carrying it has gone out.
func content(m *Manager, id string) string {
	for _, w := range m.Windows() {
		if w.ID() == id {
			v := w.View()
			if o, ok := w.(Observer); ok {
				o.Seen(v)
			}
			return v.Content
		}
	}
	return ""
}

func writeFile(t *testing.T, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}

func TestManagerErrors(t *testing.T) {
	m, _ := newTestManager(t, nil)
	tests := []struct{ window, action, params, want string }{
		{"bash_9", "run", `{}`, `no window "bash_9"; open windows: launcher`},
		{"launcher", "delete", `{}`, `window launcher has no action "delete"; its actions: open`},
		{"launcher", "open", `{}`, `missing required parameter "app"`},
		{"launcher", "open", `{"app":"game"}`, `unknown app "game"; apps: file`},
		{"launcher", "close", `{}`, `no action "close"`},
	}
	for _, tt := range tests {
		r := do(t, m, tt.window, tt.action, tt.params)
		if r.Status != protocol.StatusError || !strings.Contains(r.Text, tt.want) {
			t.Errorf("%s.%s = %+v, want error containing %q", tt.window, tt.action, r, tt.want)
		}
	}
}

func TestFileOpenViewEditWrite(t *testing.T) {
	m, dir := newTestManager(t, nil)
	writeFile(t, filepath.Join(dir, "calc.go"), "package calc\n\nfunc Add(a, b int) int { return a - b }\n", 0o640)
	if r := do(t, m, "launcher", "open", `{"app":"file","target":"calc.go"}`); r.Status != protocol.StatusOK || r.Text != "opened file_1" {
		t.Fatalf("open = %+v", r)
	}
	c := content(m, "file_1")
	if !strings.Contains(c, "calc.go: 3 lines, showing 1-3") || !strings.Contains(c, "3\tfunc Add(a, b int) int { return a - b }") {
		t.Fatalf("content:\n%s", c)
	}
	if c := content(m, "launcher"); !strings.Contains(c, "- file: ") {
		t.Errorf("launcher does not list the file app:\n%s", c)
	}
	r := do(t, m, "file_1", "edit", `{"old_text":"return a - b","new_text":"return a + b"}`)
	if r.Status != protocol.StatusOK || !strings.Contains(r.Text, "replaced 1 occurrence (first at line 3)") {
		t.Fatalf("edit = %+v", r)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "calc.go"))
	if !strings.Contains(string(data), "return a + b") {
		t.Fatalf("file not edited: %s", data)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "calc.go")); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want 0640", fi.Mode().Perm())
	}
	if r := do(t, m, "file_1", "view", `{"start_line":2,"end_line":3}`); r.Status != protocol.StatusOK {
		t.Fatalf("view = %+v", r)
	}
	if c := content(m, "file_1"); !strings.Contains(c, "showing 2-3") || strings.Contains(c, "1\tpackage") {
		t.Errorf("viewport not moved:\n%s", c)
	}
	if r := do(t, m, "file_1", "close", ``); r.Status != protocol.StatusOK {
		t.Fatalf("close = %+v", r)
	}
	if len(m.Windows()) != 1 {
		t.Errorf("window not closed")
	}
}

func TestFileEditErrors(t *testing.T) {
	m, dir := newTestManager(t, nil)
	writeFile(t, filepath.Join(dir, "a.txt"), "x = 1\nx = 1\ny = 2\n", 0o644)
	do(t, m, "launcher", "open", `{"app":"file","target":"a.txt"}`)
	tests := []struct {
		name, params, status, want string
	}{
		{"not found", `{"old_text":"z = 3","new_text":"z = 4"}`, protocol.StatusError, "old_text not found"},
		{"ambiguous", `{"old_text":"x = 1","new_text":"x = 2"}`, protocol.StatusError, "found 2 times"},
		{"empty old", `{"old_text":"","new_text":"q"}`, protocol.StatusError, "old_text is empty"},
		{"missing new", `{"old_text":"y = 2"}`, protocol.StatusError, `missing required parameter "new_text"`},
		{"replace all", `{"old_text":"x = 1","new_text":"x = 2","replace_all":true}`, protocol.StatusOK, "replaced 2 occurrences"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, m, "file_1", "edit", tt.params)
			if r.Status != tt.status || !strings.Contains(r.Text, tt.want) {
				t.Fatalf("edit = %+v, want %s %q", r, tt.status, tt.want)
			}
		})
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "x = 2\nx = 2\ny = 2\n" {
		t.Errorf("content = %q", data)
	}
}

func TestFileWriteCreatesAndDetectsOutsideChange(t *testing.T) {
	m, dir := newTestManager(t, nil)
	if r := do(t, m, "launcher", "open", `{"app":"file","target":"sub/dir/new.txt"}`); r.Status != protocol.StatusOK || !strings.Contains(r.Text, "does not exist yet") {
		t.Fatalf("open = %+v", r)
	}
	if r := do(t, m, "file_1", "write", `{"content":"one\ntwo\n"}`); r.Status != protocol.StatusOK || !strings.Contains(r.Text, "created sub/dir/new.txt (2 lines") {
		t.Fatalf("write = %+v", r)
	}
	path := filepath.Join(dir, "sub/dir/new.txt")
	content(m, "file_1") // the model is shown the file
	// Someone changes the file behind the window's back.
	time.Sleep(10 * time.Millisecond)
	writeFile(t, path, "one\ntwo\nthree (by the person)\n", 0o644)
	r := do(t, m, "file_1", "write", `{"content":"overwritten\n"}`)
	if r.Status != protocol.StatusError || !strings.Contains(r.Text, "changed on disk") {
		t.Fatalf("write over an outside change = %+v", r)
	}
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), "by the person") {
		t.Fatalf("outside change lost: %q", data)
	}
	// edit works against the current disk content.
	r = do(t, m, "file_1", "edit", `{"old_text":"three (by the person)","new_text":"three"}`)
	if r.Status != protocol.StatusOK || !strings.Contains(r.Text, "changed on disk since you last saw it") {
		t.Fatalf("edit after outside change = %+v", r)
	}
	// Once shown again, a write goes through.
	content(m, "file_1")
	if r := do(t, m, "file_1", "write", `{"content":"fresh\n"}`); r.Status != protocol.StatusOK {
		t.Fatalf("write after refresh = %+v", r)
	}
}

func TestFileBinaryAndFolderRefused(t *testing.T) {
	m, dir := newTestManager(t, nil)
	writeFile(t, filepath.Join(dir, "blob.bin"), "ab\x00cd", 0o644)
	if r := do(t, m, "launcher", "open", `{"app":"file","target":"blob.bin"}`); r.Status != protocol.StatusError || !strings.Contains(r.Text, "binary file") {
		t.Errorf("open binary = %+v", r)
	}
	if r := do(t, m, "launcher", "open", `{"app":"file","target":"."}`); r.Status != protocol.StatusError || !strings.Contains(r.Text, "is a folder") {
		t.Errorf("open folder = %+v", r)
	}
	if r := do(t, m, "launcher", "open", `{"app":"file","target":"x.go"}`); r.Text != "opened file_1: new file x.go (does not exist yet; write creates it)" {
		t.Errorf("ids are not reused after failures: %+v", r)
	}
}

func TestFileCRLFAndBOMKept(t *testing.T) {
	m, dir := newTestManager(t, nil)
	path := filepath.Join(dir, "win.txt")
	writeFile(t, path, "\xEF\xBB\xBFalpha\r\nbeta\r\ngamma\r\n", 0o644)
	do(t, m, "launcher", "open", `{"app":"file","target":"win.txt"}`)
	if c := content(m, "file_1"); !strings.Contains(c, "CRLF") || strings.Contains(c, "\r") {
		t.Errorf("content:\n%q", c)
	}
	if r := do(t, m, "file_1", "edit", `{"old_text":"alpha\nbeta","new_text":"alpha\nBETA\ndelta"}`); r.Status != protocol.StatusOK {
		t.Fatalf("edit = %+v", r)
	}
	data, _ := os.ReadFile(path)
	if string(data) != "\xEF\xBB\xBFalpha\r\nBETA\r\ndelta\r\ngamma\r\n" {
		t.Errorf("CRLF/BOM not kept: %q", data)
	}
}

func TestFileLongLinesAndBigFile(t *testing.T) {
	m, dir := newTestManager(t, nil)
	var b strings.Builder
	b.WriteString(strings.Repeat("é", 3000) + "\n")
	for i := 0; i < 5000; i++ {
		b.WriteString("line\n")
	}
	writeFile(t, filepath.Join(dir, "big.txt"), b.String(), 0o644)
	do(t, m, "launcher", "open", `{"app":"file","target":"big.txt"}`)
	c := content(m, "file_1")
	if !strings.Contains(c, "5001 lines, showing 1-60") || !strings.Contains(c, "line cut: 6000 characters") || !strings.Contains(c, "4941 more lines") {
		t.Errorf("content head:\n%.400s", c)
	}
}

func TestFileWriteOutsideWorkspaceAsks(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "out.txt")
	var asked []ApprovalRequest
	answer := Decision{Message: "not there"}
	m, _ := newTestManager(t, ApproverFunc(func(_ context.Context, r ApprovalRequest) Decision {
		asked = append(asked, r)
		return answer
	}))
	do(t, m, "launcher", "open", `{"app":"file","target":"`+outside+`"}`)
	r := do(t, m, "file_1", "write", `{"content":"x"}`)
	if r.Status != protocol.StatusDenied || !strings.Contains(r.Text, "not there") || len(asked) != 1 {
		t.Fatalf("write outside = %+v (asked %d)", r, len(asked))
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("file written despite the denial")
	}
	answer = Decision{Allow: true, Always: true}
	if r := do(t, m, "file_1", "write", `{"content":"x"}`); r.Status != protocol.StatusOK {
		t.Fatalf("approved write = %+v", r)
	}
	content(m, "file_1")
	if r := do(t, m, "file_1", "write", `{"content":"y"}`); r.Status != protocol.StatusOK || len(asked) != 2 {
		t.Fatalf("'always' not remembered: %+v, asked %d", r, len(asked))
	}
}
