package windows

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/testutil"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/lsp"
	"github.com/aci-dev/aci/tools/settings"
)

const diagGoMod = "module example.com/m\n\ngo 1.22\n"

const diagBad = "package main\n\nfunc main() {\n\tvar n int = \"one\"\n\t_ = n\n}\n"

// newDiagManager is a manager with file and bash windows whose file
// windows take diagnostics from pool options opt.
func newDiagManager(t *testing.T, opt lsp.Options) (*Manager, string, *[]string) {
	t.Helper()
	dir := t.TempDir()
	opt.Workdir = dir
	var notes []string
	pool := lsp.NewPool(opt)
	t.Cleanup(pool.Close)
	env := Env{Workdir: dir, OutputLimit: 30000, Approver: denyAll(), Diagnostics: pool,
		DiagnosticsNote: func(s string) { notes = append(notes, s) }}
	m := NewManager(env, FileApp, BashApp)
	t.Cleanup(m.CloseAll)
	return m, dir, &notes
}

// waitView waits up to within for window id's view to contain want, and
// returns the view's text then or when the time is up.
func waitView(m *Manager, id, want string, within time.Duration) string {
	deadline := time.Now().Add(within)
	for {
		_, v := viewOf(m, id)
		if strings.Contains(v.Content, want) || time.Now().After(deadline) {
			return v.Content
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func viewOf(m *Manager, id string) (Window, View) {
	for _, w := range m.Windows() {
		if w.ID() == id {
			return w, w.View()
		}
	}
	return nil, View{}
}

func TestFileDiagnosticsGopls(t *testing.T) {
	testutil.NeedGopls(t)
	// Generous bounds: a loaded machine may take gopls long to load the
	// module; a passing test does not wait for them.
	m, dir, notes := newDiagManager(t, lsp.Options{Wait: 20 * time.Second})
	writeFile(t, filepath.Join(dir, "go.mod"), diagGoMod, 0o644)
	writeFile(t, filepath.Join(dir, "main.go"), diagBad, 0o644)

	if r := do(t, m, "launcher", "open", `{"app":"file","target":"main.go"}`); r.Status != protocol.StatusOK {
		t.Fatal(r.Text)
	}
	w, before := viewOf(m, "file_1")
	if !strings.Contains(before.Content, "diagnostics (gopls): 1 error\n4:14 ") {
		t.Fatalf("the type error is not shown:\n%s", before.Content)
	}

	// The fix, through the window: the error goes, said as a change.
	if r := do(t, m, "file_1", "edit", `{"old_text":"\"one\"","new_text":"1"}`); r.Status != protocol.StatusOK {
		t.Fatal(r.Text)
	}
	_, after := viewOf(m, "file_1")
	if strings.Contains(after.Content, "diagnostics") {
		t.Fatalf("diagnostics after the fix:\n%s", after.Content)
	}
	change, ok := w.(Incremental).Changes(before, after)
	if !ok || !strings.Contains(change, "lines 4-4 changed") || !strings.HasSuffix(change, "\ndiagnostics: none now") {
		t.Errorf("the change is %q (ok %v)", change, ok)
	}
	if len(*notes) != 1 || (*notes)[0] != "main.go: no errors or warnings now" {
		t.Errorf("the person was told %q", *notes)
	}

	// A command's change to the file is picked up after it ran.
	if r := do(t, m, "launcher", "open", `{"app":"bash"}`); r.Status != protocol.StatusOK {
		t.Fatal(r.Text)
	}
	if r := do(t, m, "bash_1", "run", `{"command":"sed -i 's/_ = n/_ = n + \"x\"/' main.go"}`); r.Status != protocol.StatusOK {
		t.Fatal(r.Text)
	}
	_, later := viewOf(m, "file_1")
	if !strings.Contains(later.Content, "diagnostics (gopls): 1 error\n5:") {
		t.Fatalf("the command's type error is not shown:\n%s", later.Content)
	}
	change, ok = w.(Incremental).Changes(after, later)
	if !ok || !strings.Contains(change, "lines 5-5 changed") || !strings.Contains(change, "\ndiagnostics (gopls): 1 error\n5:") {
		t.Errorf("the change is %q (ok %v)", change, ok)
	}
	if len(*notes) != 1 {
		t.Errorf("a command's change told the person %q", *notes)
	}
}

func TestFileDiagnosticsOff(t *testing.T) {
	testutil.NeedGopls(t)
	t.Setenv("ACI_LSP", "off")
	m, dir, _ := newDiagManager(t, lsp.Options{})
	writeFile(t, filepath.Join(dir, "go.mod"), diagGoMod, 0o644)
	writeFile(t, filepath.Join(dir, "main.go"), diagBad, 0o644)
	start := time.Now()
	if r := do(t, m, "launcher", "open", `{"app":"file","target":"main.go"}`); r.Status != protocol.StatusOK {
		t.Fatal(r.Text)
	}
	if _, v := viewOf(m, "file_1"); strings.Contains(v.Content, "diagnostics") {
		t.Fatalf("ACI_LSP=off shows diagnostics:\n%s", v.Content)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("opening took %s with diagnostics off", d)
	}
}

// fakeServer writes an executable script named name whose body is
// script, in dir (where contained commands see it: /tmp is their own).
func fakeServer(t *testing.T, dir, name, script string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	writeFile(t, path, "#!/bin/bash\n"+script, 0o755)
	return path
}

func TestFileDiagnosticsServerHangs(t *testing.T) {
	// A "server" that reads nothing and never answers initialize.
	token := "aci-lsp-hang-" + strings.ReplaceAll(t.Name(), "/", "-")
	wait, startup := 500*time.Millisecond, 1500*time.Millisecond
	m, dir, _ := newDiagManager(t, lsp.Options{Wait: wait, StartTimeout: startup, Trusted: true,
		Servers: map[string]settings.LSPServer{"go": {Command: []string{"./hang.sh"}, Extensions: []string{".go"}}}})
	fakeServer(t, dir, "hang.sh", "exec -a "+token+" sleep 600\n")
	writeFile(t, filepath.Join(dir, "main.go"), diagBad, 0o644)

	start := time.Now()
	if r := do(t, m, "launcher", "open", `{"app":"file","target":"main.go"}`); r.Status != protocol.StatusOK {
		t.Fatal(r.Text)
	}
	if d := time.Since(start); d > wait+time.Second {
		t.Errorf("opening took %s; the bound is %s", d, wait)
	}
	got := waitView(m, "file_1", "diagnostics:", startup+10*time.Second)
	want := "\ndiagnostics: hang.sh did not answer initialize within 1.5s; no diagnostics for go files this session"
	if !strings.HasSuffix(got, want) {
		t.Fatalf("want one line on the hung server, got:\n%s", got)
	}
	// Off now: an edit does not wait for it.
	start = time.Now()
	if r := do(t, m, "file_1", "edit", `{"old_text":"\"one\"","new_text":"1"}`); r.Status != protocol.StatusOK {
		t.Fatal(r.Text)
	}
	if d := time.Since(start); d > 300*time.Millisecond {
		t.Errorf("an edit took %s with the server off", d)
	}
	if out, err := exec.Command("pgrep", "-f", token).Output(); err == nil {
		t.Errorf("the hung server still runs: %s", out)
	}
}

func TestFileDiagnosticsServerCrashes(t *testing.T) {
	// Answers initialize, then dies: restarted once, then off.
	m, dir, _ := newDiagManager(t, lsp.Options{Wait: 300 * time.Millisecond, StartTimeout: 5 * time.Second, Trusted: true,
		Servers: map[string]settings.LSPServer{"go": {Command: []string{"./crash.sh"}, Extensions: []string{".go"}}}})
	starts := filepath.Join(dir, "starts")
	fakeServer(t, dir, "crash.sh", `echo x >> `+starts+`
read -r line; read -r blank; n=${line#Content-Length: }; n=${n%$'\r'}; head -c "$n" >/dev/null
body='{"jsonrpc":"2.0","id":1,"result":{"capabilities":{}}}'
printf 'Content-Length: %d\r\n\r\n%s' ${#body} "$body"
echo "crash.sh: out of luck" >&2
sleep 0.2
exit 3
`)
	writeFile(t, filepath.Join(dir, "main.go"), diagBad, 0o644)
	if r := do(t, m, "launcher", "open", `{"app":"file","target":"main.go"}`); r.Status != protocol.StatusOK {
		t.Fatal(r.Text)
	}
	got := waitView(m, "file_1", "stopped again", 15*time.Second)
	want := "\ndiagnostics: crash.sh stopped again (exit status 3: crash.sh: out of luck); no diagnostics for go files this session"
	if !strings.HasSuffix(got, want) {
		t.Fatalf("want one line on the crashed server, got:\n%s", got)
	}
	if b, _ := os.ReadFile(starts); strings.Count(string(b), "x") != 2 {
		t.Errorf("started %d times, want 2 (restarted once)", strings.Count(string(b), "x"))
	}
}

func TestFileDiagnosticsAfterRestore(t *testing.T) {
	testutil.NeedGopls(t)
	m, dir, _ := newDiagManager(t, lsp.Options{Wait: 20 * time.Second})
	writeFile(t, filepath.Join(dir, "go.mod"), diagGoMod, 0o644)
	writeFile(t, filepath.Join(dir, "main.go"), diagBad, 0o644)
	if got := m.Restore(t.Context(), []WindowState{{ID: "file_3", App: "file", Target: "main.go"}}); len(got) != 1 {
		t.Fatalf("reopened %v", got)
	}
	want := "diagnostics (gopls): 1 error\n4:14 "
	if got := waitView(m, "file_3", want, 20*time.Second); !strings.Contains(got, want) {
		t.Fatalf("a reopened window shows no diagnostics:\n%s", got)
	}
}

// A command's change to a file no window shows: the diagnostics of the
// file shown follow.
func TestFileDiagnosticsOtherFileChanged(t *testing.T) {
	testutil.NeedGopls(t)
	m, dir, _ := newDiagManager(t, lsp.Options{Wait: 20 * time.Second})
	writeFile(t, filepath.Join(dir, "go.mod"), diagGoMod, 0o644)
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n\nfunc main() {\n\t_ = add(1, 2)\n}\n", 0o644)
	writeFile(t, filepath.Join(dir, "helper.go"), "package main\n\nfunc add(a, b int) int { return a + b }\n", 0o644)
	for _, c := range [][3]string{
		{"launcher", "open", `{"app":"file","target":"main.go"}`},
		{"launcher", "open", `{"app":"bash"}`},
		{"bash_1", "run", `{"command":"sed -i 's/a, b int) int { return a + b/a int) int { return a/' helper.go"}`},
	} {
		if r := do(t, m, c[0], c[1], c[2]); r.Status != protocol.StatusOK {
			t.Fatal(r.Text)
		}
	}
	if _, v := viewOf(m, "file_1"); !strings.Contains(v.Content, "diagnostics (gopls): 1 error\n4:13 too many arguments") {
		t.Errorf("main.go after helper.go changed:\n%s", v.Content)
	}
}
