package lsp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/testutil"
	"github.com/aci-dev/aci/tools/settings"
)

// personServer is a language server in bash, installed outside the
// workspace (under the machine's /tmp), that first tries to leave a file
// in the folder it runs in (the workspace), then answers initialize and
// publishes one error for each text it is given.
var personServer = bashServer("echo ran > left-behind 2>/dev/null", "", "person error")

// installed writes a program into a folder of its own under the machine's
// /tmp (outside the workspace), as a person's install there would be.
func installed(t *testing.T, name, script string) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "aci-person-install-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// notices collects what the person is told.
type notices struct {
	mu    sync.Mutex
	lines []string
}

func (n *notices) add(l string) { n.mu.Lock(); n.lines = append(n.lines, l); n.mu.Unlock() }
func (n *notices) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.lines...)
}

// waitDiagnostics syncs path and waits until its server published.
func waitDiagnostics(t *testing.T, p *Pool, path, text string) Report {
	t.Helper()
	p.Sync(context.Background(), path, text)
	var r Report
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if r, _ = p.Diagnostics(path); r.Known || strings.Contains(r.Note, "no diagnostics") {
			return r
		}
	}
	t.Fatalf("no diagnostics for %s: %+v", path, r)
	return r
}

// A server installed under the machine's /tmp starts inside the sandbox
// (its folder shown read-only); in plan mode it sees the workspace
// read-only and leaves nothing there; leaving plan mode restarts it with
// the workspace writable again.
func TestServerPlanModeAndTmpInstall(t *testing.T) {
	prog := installed(t, "person-ls", personServer)
	dir := t.TempDir()
	p := NewPool(Options{Workdir: dir, Wait: 10 * time.Second, StartTimeout: 20 * time.Second,
		Servers: map[string]settings.LSPServer{"x": {Command: []string{prog}, Extensions: []string{".x"}}}})
	defer p.Close()
	p.Plan(true)
	path := filepath.Join(dir, "a.x")
	os.WriteFile(path, []byte("v0"), 0o644)
	r := waitDiagnostics(t, p, path, "v0")
	switch {
	case sandboxKind(dir) == "":
		// Nothing contains commands here: plan mode cannot hold, so the
		// server waits for the mode to change.
		if !strings.Contains(r.Note, "must see the workspace read-only") {
			t.Fatalf("uncontained, in plan mode: %+v", r)
		}
	case len(r.List) != 1 || r.List[0].Message != "person error":
		t.Fatalf("the server under /tmp did not serve: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "left-behind")); err == nil {
		t.Fatal("a server in plan mode left a file in the workspace")
	}
	p.Plan(false)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(dir, "left-behind")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("leaving plan mode did not restart the server with the workspace writable")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r := waitDiagnostics(t, p, path, "v1"); len(r.List) != 1 {
		t.Errorf("after the restart: %+v", r)
	}
}

// Real gopls in plan mode: diagnostics as ever, and the workspace holds
// the same files after.
func TestGoplsPlanModeLeavesNothing(t *testing.T) {
	testutil.NeedGopls(t)
	dir := goWorkspace(t)
	path := filepath.Join(dir, "main.go")
	os.WriteFile(path, []byte(badMain), 0o644)
	before := listTree(t, dir)
	p := NewPool(Options{Workdir: dir, Wait: 20 * time.Second})
	p.Plan(true)
	r := waitDiagnostics(t, p, path, badMain)
	p.Refresh(context.Background())
	p.Close()
	if len(r.List) == 0 {
		t.Fatalf("no diagnostics in plan mode: %+v", r)
	}
	if after := listTree(t, dir); after != before {
		t.Errorf("gopls in plan mode changed the workspace:\nbefore %s\nafter  %s", before, after)
	}
}

func listTree(t *testing.T, dir string) string {
	t.Helper()
	var names []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			names = append(names, strings.TrimPrefix(p, dir))
		}
		return nil
	})
	return strings.Join(names, " ")
}

// A server that fails is told to the person once, however often its
// files are synced.
func TestFailingServerToldOnce(t *testing.T) {
	prog := installed(t, "broken-ls", "#!/bin/bash\necho 'broken-ls: no luck' >&2\nexit 2\n")
	dir := t.TempDir()
	var told notices
	p := NewPool(Options{Workdir: dir, Wait: 2 * time.Second, StartTimeout: 10 * time.Second, Notice: told.add,
		Servers: map[string]settings.LSPServer{"x": {Command: []string{prog}, Extensions: []string{".x"}}}})
	defer p.Close()
	for i, name := range []string{"a.x", "b.x", "a.x"} {
		waitDiagnostics(t, p, filepath.Join(dir, name), "v"+string(rune('0'+i)))
	}
	time.Sleep(200 * time.Millisecond)
	lines := told.all()
	if len(lines) != 1 || !strings.Contains(lines[0], "broken-ls") || !strings.Contains(lines[0], "no diagnostics for x files") {
		t.Errorf("the person was told %q, want one line naming the server", lines)
	}
}

// A server that is the workspace's own (a settings entry naming a file of
// it, or found on a PATH through the workspace's node_modules/.bin) is not
// run in an untrusted folder; the person is told once. Trusted, it runs.
func TestWorkspaceServerNeedsTrust(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "node_modules", ".bin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "typescript-language-server"), []byte(personServer), 0o755)
	os.WriteFile(filepath.Join(dir, "srv.sh"), []byte(personServer), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, trusted := range []bool{false, true} {
		var told notices
		p := NewPool(Options{Workdir: dir, Wait: 10 * time.Second, StartTimeout: 20 * time.Second, Trusted: trusted, Notice: told.add,
			Servers: map[string]settings.LSPServer{"x": {Command: []string{"./srv.sh"}, Extensions: []string{".x"}}}})
		rx := waitDiagnostics(t, p, filepath.Join(dir, "a.x"), "v0")
		var rts Report
		if ts := filepath.Join(dir, "a.ts"); !trusted && p.Serves(ts) {
			// The person's own server, found off the workspace's PATH.
			rts = waitDiagnostics(t, p, ts, "let x: number = 1\n")
		}
		p.Close()
		if trusted {
			if len(rx.List) != 1 {
				t.Errorf("trusted: the workspace's server did not run: %+v", rx)
			}
			continue
		}
		if len(rx.List) != 0 || !strings.Contains(rx.Note, "srv.sh is not started: it is the workspace's own") {
			t.Errorf("untrusted: %+v", rx)
		}
		if strings.Contains(rts.Note, "person error") || len(rts.List) != 0 {
			t.Errorf("untrusted: the workspace's typescript-language-server ran: %+v", rts)
		}
		if n := len(told.all()); n < 1 {
			t.Errorf("the person was not told: %q", told.all())
		}
	}
}

// needTSLS makes typescript-language-server findable: on PATH, or
// installed from npm under $ACI_TSLS (.ci/run), with TypeScript beside it.
func needTSLS(t *testing.T) {
	t.Helper()
	needNPM(t, "typescript-language-server", "ACI_TSLS", "typescript-language-server typescript")
}

// plantedTSServer is a workspace's node_modules/typescript/lib/tsserver.js
// that leaves a marker in the workspace when run.
const plantedTSServer = `require('fs').writeFileSync(require('path').join(__dirname, '..', '..', '..', 'MARKER'), 'ran');
process.exit(1);
`

// The real typescript-language-server in a workspace whose node_modules
// holds a TypeScript of its own: untrusted, the person's TypeScript
// serves (a type error is found) and the workspace's never runs; trusted,
// the workspace's is the one run (which shows the plant is real).
func TestTypeScriptServerTakesThePersonsTypeScript(t *testing.T) {
	needTSLS(t)
	for _, trusted := range []bool{false, true} {
		dir := t.TempDir()
		lib := filepath.Join(dir, "node_modules", "typescript", "lib")
		os.MkdirAll(lib, 0o755)
		os.WriteFile(filepath.Join(dir, "node_modules", "typescript", "package.json"), []byte(`{"name":"typescript","version":"5.9.3","main":"lib/typescript.js"}`), 0o644)
		os.WriteFile(filepath.Join(lib, "tsserver.js"), []byte(plantedTSServer), 0o644)
		os.WriteFile(filepath.Join(lib, "typescript.js"), []byte(plantedTSServer), 0o644)
		os.WriteFile(filepath.Join(dir, "tsconfig.json"), []byte(`{"compilerOptions":{"strict":true,"plugins":[{"name":"evil-plugin"}]}}`), 0o644)
		// The plugin tsconfig.json names, in the workspace's node_modules.
		plugin := filepath.Join(dir, "node_modules", "evil-plugin")
		os.MkdirAll(plugin, 0o755)
		os.WriteFile(filepath.Join(plugin, "package.json"), []byte(`{"name":"evil-plugin","main":"index.js"}`), 0o644)
		os.WriteFile(filepath.Join(plugin, "index.js"), []byte(`require('fs').writeFileSync(require('path').join(__dirname, '..', '..', 'PLUGIN_MARKER'), 'ran');
module.exports = () => ({ create: (info) => info.languageService });
`), 0o644)
		path := filepath.Join(dir, "a.ts")
		text := "const n: number = \"one\";\nexport {};\n"
		os.WriteFile(path, []byte(text), 0o644)
		p := NewPool(Options{Workdir: dir, Wait: 30 * time.Second, StartTimeout: 30 * time.Second, Trusted: trusted})
		marker := filepath.Join(dir, "MARKER")
		if !trusted {
			r := waitDiagnostics(t, p, path, text)
			// The syntax pass may publish first; the type error follows.
			for deadline := time.Now().Add(30 * time.Second); len(r.List) == 0 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
				r, _ = p.Diagnostics(path)
			}
			p.Close()
			if len(r.List) == 0 || !strings.Contains(r.List[0].Message, "string") {
				t.Errorf("untrusted: the person's TypeScript found no type error: %+v", r)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("untrusted: the workspace's tsserver.js ran")
			}
			if _, err := os.Stat(filepath.Join(dir, "PLUGIN_MARKER")); err == nil {
				t.Error("untrusted: the plugin tsconfig.json names was loaded from the workspace")
			}
			continue
		}
		p.Sync(context.Background(), path, text)
		deadline := time.Now().Add(30 * time.Second)
		for {
			if _, err := os.Stat(marker); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Error("trusted: the workspace's tsserver.js did not run; the untrusted case proves nothing")
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		p.Close()
	}
}

// pyright asks a python for its search paths: in an untrusted folder
// never the workspace's (an activated .venv/bin on PATH), whose python
// would leave a marker.
func TestPyrightNeverRunsTheWorkspacesPython(t *testing.T) {
	needPyright(t)
	if _, err := exec.LookPath("basedpyright-langserver"); err == nil {
		t.Skip("basedpyright is installed and would be used instead")
	}
	dir := t.TempDir()
	venv := filepath.Join(dir, ".venv", "bin")
	os.MkdirAll(venv, 0o755)
	fake := "#!/bin/sh\necho ran > " + filepath.Join(dir, "MARKER") + "\nexit 1\n"
	for _, name := range []string{"python", "python3"} {
		os.WriteFile(filepath.Join(venv, name), []byte(fake), 0o755)
	}
	t.Setenv("PATH", venv+string(os.PathListSeparator)+os.Getenv("PATH"))
	path := filepath.Join(dir, "m.py")
	text := "x: int = \"one\"\n"
	os.WriteFile(path, []byte(text), 0o644)
	p := NewPool(Options{Workdir: dir, Wait: 30 * time.Second, StartTimeout: 30 * time.Second})
	r := waitDiagnostics(t, p, path, text)
	p.Close()
	if len(r.List) == 0 {
		t.Errorf("pyright found no type error: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "MARKER")); err == nil {
		t.Error("pyright ran the workspace's python")
	}
}
