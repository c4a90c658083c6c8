//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// homeTree is a fake home with the places a command could plant what
// runs later: caches (layered: a write stays in the session), folders
// on PATH, shell startup files, site-packages (read-only).
type homeTree struct {
	home, ws string
	layered  []string // home-relative files a command may write in its session only
	refused  []string // home-relative files no command may write at all
}

func newHomeTree(t *testing.T) homeTree {
	t.Helper()
	root, err := filepath.EvalSymlinks(hostDir(t))
	if err != nil {
		t.Fatal(err)
	}
	h := homeTree{home: filepath.Join(root, "home"), ws: filepath.Join(root, "ws")}
	for _, d := range []string{".cache/pre-commit", "go/pkg/mod/example.com/m@v1.0.0", ".deno/bin", ".local/share/pnpm",
		".cargo/registry", ".cargo/bin", ".m2/repository", ".gradle/wrapper", ".local/bin", ".npm-global/bin", "go/bin",
		".pyenv/shims", ".config/fish", ".local/lib/python3.11/site-packages"} {
		os.MkdirAll(filepath.Join(h.home, d), 0o755)
	}
	os.MkdirAll(h.ws, 0o755)
	os.WriteFile(filepath.Join(h.home, "go/pkg/mod/example.com/m@v1.0.0/m.go"), []byte("package m\n"), 0o644)
	os.WriteFile(filepath.Join(h.home, ".bashrc"), []byte("# rc\n"), 0o644)
	h.layered = []string{".cache/p10k-instant-prompt-me.zsh", ".cache/pre-commit/hook", "go/pkg/mod/example.com/m@v1.0.0/m.go",
		".cargo/registry/build.rs", ".m2/repository/evil.jar", ".gradle/wrapper/gradle-wrapper.jar"}
	h.refused = []string{".deno/bin/git", ".local/share/pnpm/ls", ".local/bin/ls", ".bashrc", ".npm-global/bin/ls", ".cargo/bin/cargo",
		"go/bin/gopls", ".pyenv/shims/python", ".config/fish/config.fish", ".local/lib/python3.11/site-packages/evil.pth", ".profile"}
	t.Setenv("HOME", h.home)
	for _, v := range cacheVars {
		t.Setenv(v, "")
	}
	path := os.Getenv("PATH")
	for _, d := range []string{".deno/bin", ".local/share/pnpm", ".local/bin", ".npm-global/bin", ".cargo/bin", "go/bin", ".pyenv/shims"} {
		path = filepath.Join(h.home, d) + ":" + path
	}
	t.Setenv("PATH", path)
	t.Setenv("PNPM_HOME", filepath.Join(h.home, ".local/share/pnpm"))
	return h
}

// writers are the ways a command reaches a home path: shell, and paths
// computed by an interpreter from its idea of home.
func writers(rel string) map[string][]string {
	out := map[string][]string{"sh": {"sh", "-c", `printf pwned > "$HOME/` + rel + `"`}}
	if _, err := exec.LookPath("python3"); err == nil {
		out["python"] = []string{"python3", "-c", "import os; open(os.path.join(os.path.expanduser('~'), '" + rel + "'), 'w').write('pwned')"}
	}
	if _, err := exec.LookPath("node"); err == nil {
		out["node"] = []string{"node", "-e", "require('fs').writeFileSync(require('path').join(require('os').homedir(), '" + rel + "'), 'pwned')"}
	}
	return out
}

// The places outside the workspace a command may write are an
// allow-list: in the session's sandbox the caches are layered (a write
// is seen by the session's next command, never by the machine), and
// folders on PATH, startup files and site-packages are read-only, by
// shell, python or node alike. The one-shot path (a command with a grant)
// has the caches read-only. After the sandbox is gone, the home is as it
// was.
func TestWritesOutsideWorkspaceAllowList(t *testing.T) {
	h := newHomeTree(t)
	p := DefaultPolicy(h.ws)
	for _, want := range []string{".cache", "go/pkg/mod", ".cargo/registry", ".m2/repository", ".gradle/wrapper", ".deno", ".local/share/pnpm"} {
		if !contains(p.Layered, filepath.Join(h.home, want)) {
			t.Errorf("%s is not layered: %v", want, p.Layered)
		}
	}
	for _, w := range p.WritableRoots() {
		if within(w, h.home) {
			t.Errorf("%s is writable on the machine", w)
		}
	}
	s := mustSandbox(t, p, Bwrap)
	defer s.Close()
	for _, rel := range h.layered {
		for how, argv := range writers(rel) {
			out, code, ok := spawnIn(t, s, h.ws, argv...)
			if !ok {
				t.Fatalf("no session: %v", s.sessErr)
			}
			if code != 0 {
				t.Errorf("%s %s: a layered cache refused the write: %s", how, rel, out)
			}
			if got, _, _ := spawnIn(t, s, h.ws, "cat", filepath.Join(h.home, rel)); got != "pwned" {
				t.Errorf("%s %s: the session's next command reads %q", how, rel, got)
			}
			argv1, err := s.Wrap(argv, h.ws)
			if err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(argv1[0], argv1[1:]...).CombinedOutput(); err == nil {
				t.Errorf("%s %s: the one-shot path wrote a cache: %s", how, rel, out)
			}
		}
	}
	for _, rel := range h.refused {
		for how, argv := range writers(rel) {
			if out, code, _ := spawnIn(t, s, h.ws, argv...); code == 0 {
				t.Errorf("%s %s: written in the session: %s", how, rel, out)
			}
			argv1, _ := s.Wrap(argv, h.ws)
			if out, err := exec.Command(argv1[0], argv1[1:]...).CombinedOutput(); err == nil {
				t.Errorf("%s %s: written one-shot: %s", how, rel, out)
			}
		}
	}
	s.Close()
	cleanupForTest()
	checkHome(t, h)
}

// checkHome fails for every planted file that reached the machine.
func checkHome(t *testing.T, h homeTree) {
	t.Helper()
	for _, rel := range append(append([]string{}, h.layered...), h.refused...) {
		b, err := os.ReadFile(filepath.Join(h.home, rel))
		if err == nil && strings.Contains(string(b), "pwned") {
			t.Errorf("~/%s reached the machine", rel)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(h.home, "go/pkg/mod/example.com/m@v1.0.0/m.go")); string(b) != "package m\n" {
		t.Errorf("the module's source changed: %q", b)
	}
}

// go build and go test work in the session's sandbox over the person's
// caches, layered: the person's build cache is read (nothing to rebuild
// that it holds), the session's writes are kept for its next command,
// and the person's cache does not change.
func TestLayeredGoBuild(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	env := func(name string) string {
		out, err := exec.Command(goBin, "env", name).Output()
		if err != nil {
			t.Skip("go env:", err)
		}
		return strings.TrimSpace(string(out))
	}
	gocache, modcache := env("GOCACHE"), env("GOMODCACHE")
	t.Setenv("GOCACHE", gocache)
	t.Setenv("GOMODCACHE", modcache)
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOTOOLCHAIN", "local")
	root := hostDir(t)
	t.Setenv("XDG_STATE_HOME", filepath.Join(root, "state")) // its kept layers
	ws := filepath.Join(root, "ws")
	os.MkdirAll(ws, 0o755)
	os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/layered\n\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"layered\") }\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "main_test.go"), []byte("package main\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n"), 0o644)
	p := DefaultPolicy(ws)
	if !underAny(real(gocache), p.Layered) {
		t.Fatalf("GOCACHE %s is not layered: %v", gocache, p.Layered)
	}
	s := mustSandbox(t, p, Bwrap)
	defer s.Close()
	probe := filepath.Join(gocache, "aci-layer-probe")
	out, code, ok := spawnIn(t, s, ws, "sh", "-c", "go build -o /tmp/x . && /tmp/x && go test -count=1 . && touch "+probe+" && ls "+probe)
	if !ok || code != 0 || !strings.Contains(out, "layered") {
		t.Fatalf("go build in the session: ok %v exit %d: %s (%v)", ok, code, out, s.sessErr)
	}
	// -v names each package it compiles: none, the second time.
	out, code, _ = spawnIn(t, s, ws, "sh", "-c", "go build -v -o /tmp/x . 2>&1; echo done")
	if code != 0 || strings.TrimSpace(out) != "done" {
		t.Errorf("the session's next build did not use its cache: %q", out)
	}
	if _, err := os.Stat(probe); err == nil {
		os.Remove(probe)
		t.Errorf("a write to GOCACHE reached the machine")
	}
}
