package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/testutil"
	"github.com/aci-dev/aci/tools/settings"
)

const goMod = "module example.com/m\n\ngo 1.22\n"

const goodMain = "package main\n\nfunc main() {\n\tvar n int = 1\n\t_ = n\n}\n"

const badMain = "package main\n\nfunc main() {\n\tvar n int = \"one\"\n\t_ = n\n}\n"

func goWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(goMod), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestPoolGopls(t *testing.T) {
	testutil.NeedGopls(t)
	dir := goWorkspace(t)
	path := filepath.Join(dir, "main.go")
	if err := os.WriteFile(path, []byte(badMain), 0o644); err != nil {
		t.Fatal(err)
	}
	p := NewPool(Options{Workdir: dir, Wait: 20 * time.Second})
	defer p.Close()
	ctx := context.Background()
	p.Sync(ctx, path, badMain)
	r, ok := p.Diagnostics(path)
	if !ok || !r.Known || len(r.List) == 0 {
		t.Fatalf("no diagnostics for a type error: %+v ok=%v", r, ok)
	}
	d := r.List[0]
	if d.Line != 4 || d.Severity != Error || !strings.Contains(d.Message, "string") {
		t.Errorf("diagnostic %+v, want a type error on line 4", d)
	}
	if r.Server != "gopls" {
		t.Errorf("server %q", r.Server)
	}
	if err := os.WriteFile(path, []byte(goodMain), 0o644); err != nil {
		t.Fatal(err)
	}
	p.Sync(ctx, path, goodMain)
	if r, _ := p.Diagnostics(path); len(r.List) != 0 || !r.Known {
		t.Errorf("diagnostics after the fix: %+v", r)
	}
}

func TestServerContained(t *testing.T) {
	testutil.NeedGopls(t)
	dir := goWorkspace(t)
	p := NewPool(Options{Workdir: dir})
	defer p.Close()
	s := p.server(filepath.Join(dir, "x.go"))
	if s == nil {
		t.Fatal("no server for a .go file")
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		s.mu.Lock()
		proc := s.proc
		s.mu.Unlock()
		if proc != nil {
			want := "gopls"
			if k := sandboxKind(dir); k != "" {
				want = k
			}
			if got := filepath.Base(proc.cmd.Args[0]); got != want && !strings.Contains(strings.Join(proc.cmd.Args, " "), want) {
				t.Errorf("server runs as %q, want it contained by %s", proc.cmd.Args, want)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("gopls did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestPoolServesTheWorkspaceOnly(t *testing.T) {
	testutil.NeedGopls(t)
	dir := goWorkspace(t)
	p := NewPool(Options{Workdir: dir})
	defer p.Close()
	tests := []struct {
		path string
		want bool
	}{
		{filepath.Join(dir, "main.go"), true},
		{filepath.Join(dir, "sub", "x.go"), true},
		{filepath.Join(dir, "notes.txt"), false},
		{filepath.Join(dir, "Makefile"), false},
		{filepath.Join(t.TempDir(), "other.go"), false},
		{filepath.Join(dir, "..", "sibling.go"), false},
	}
	for _, tt := range tests {
		if got := p.Serves(tt.path); got != tt.want {
			t.Errorf("Serves(%s) = %v, want %v", tt.path, got, tt.want)
		}
	}
	t.Setenv("ACI_LSP", "off")
	if NewPool(Options{Workdir: dir}) != nil {
		t.Error("ACI_LSP=off still makes a pool")
	}
}

func TestLanguagesFromSettings(t *testing.T) {
	langs := languages(map[string]settings.LSPServer{
		"lua":    {Command: []string{"lua-language-server"}, Extensions: []string{".lua"}},
		"python": {Command: []string{"pylsp"}, Extensions: []string{".py"}},
		"vue":    {Command: []string{"vls"}, Extensions: []string{".ts"}},
	})
	tests := []struct{ path, lang, id, prog string }{
		{"a.lua", "lua", "lua", "lua-language-server"},
		{"a.py", "python", "python", "pylsp"},
		{"a.pyi", "", "", ""}, // python's entry replaced the built-in one, .pyi with it
		{"a.ts", "vue", "vue", "vls"},
		{"a.tsx", "typescript", "typescriptreact", "typescript-language-server"},
		{"a.GO", "go", "go", "gopls"},
		{"a.cpp", "c", "cpp", "clangd"},
		{"README", "", "", ""},
	}
	for _, tt := range tests {
		l, ok := languageOf(langs, tt.path)
		if !ok {
			if tt.lang != "" {
				t.Errorf("%s: no language, want %s", tt.path, tt.lang)
			}
			continue
		}
		if l.Name != tt.lang || l.languageID(tt.path) != tt.id || l.Commands[0][0] != tt.prog {
			t.Errorf("%s: %s (%s) by %v, want %s (%s) by %s", tt.path, l.Name, l.languageID(tt.path), l.Commands, tt.lang, tt.id, tt.prog)
		}
	}
}

func TestPoolHoldForget(t *testing.T) {
	testutil.NeedGopls(t)
	dir := goWorkspace(t)
	path := filepath.Join(dir, "main.go")
	os.WriteFile(path, []byte(badMain), 0o644)
	p := NewPool(Options{Workdir: dir, Wait: 20 * time.Second})
	defer p.Close()
	// Two windows on the file (a parent's and a child agent's): one
	// letting go keeps the other's diagnostics.
	p.Hold(path)
	p.Hold(path)
	p.Sync(context.Background(), path, badMain)
	p.Forget(path)
	if r, _ := p.Diagnostics(path); len(r.List) != 1 {
		t.Fatalf("after one of two let go: %+v", r)
	}
	p.Forget(path)
	if r, _ := p.Diagnostics(path); r.Known || len(r.List) != 0 {
		t.Errorf("after both let go: %+v", r)
	}
}

func TestPoolMissingServer(t *testing.T) {
	dir := t.TempDir()
	p := NewPool(Options{Workdir: dir,
		Servers: map[string]settings.LSPServer{"x": {Command: []string{"aci-no-such-language-server"}, Extensions: []string{".x"}}}})
	defer p.Close()
	path := filepath.Join(dir, "a.x")
	start := time.Now()
	p.Sync(context.Background(), path, "text")
	if p.Serves(path) || time.Since(start) > 100*time.Millisecond {
		t.Errorf("a missing server serves (or cost %s)", time.Since(start))
	}
	if r, ok := p.Diagnostics(path); ok || r.Note != "" {
		t.Errorf("a missing server shows %+v", r)
	}
}

// A change on disk to a file no window shows reaches the server: the open
// file's diagnostics follow.
func TestPoolRefreshUnopenedFile(t *testing.T) {
	testutil.NeedGopls(t)
	dir := goWorkspace(t)
	main := filepath.Join(dir, "main.go")
	helper := filepath.Join(dir, "helper.go")
	mainText := "package main\n\nfunc main() {\n\t_ = add(1, 2)\n}\n"
	os.WriteFile(main, []byte(mainText), 0o644)
	os.WriteFile(helper, []byte("package main\n\nfunc add(a, b int) int { return a + b }\n"), 0o644)
	p := NewPool(Options{Workdir: dir, Wait: 20 * time.Second})
	defer p.Close()
	ctx := context.Background()
	p.Sync(ctx, main, mainText)
	p.Refresh(ctx) // the baseline
	if r, _ := p.Diagnostics(main); !r.Known || len(r.List) != 0 {
		t.Fatalf("diagnostics of a good file: %+v", r)
	}
	os.WriteFile(helper, []byte("package main\n\nfunc add(a int) int { return a }\n"), 0o644)
	p.Refresh(ctx)
	r, _ := p.Diagnostics(main)
	if len(r.List) != 1 || r.List[0].Line != 4 || !strings.Contains(r.List[0].Message, "too many arguments") {
		t.Errorf("after helper.go changed: %+v", r)
	}
}

// A change in another package is sent without waiting: gopls need not
// publish again for the open file.
func TestPoolRefreshElsewhereDoesNotWait(t *testing.T) {
	testutil.NeedGopls(t)
	dir := goWorkspace(t)
	main := filepath.Join(dir, "main.go")
	mainText := "package main\n\nfunc main() {\n}\n"
	os.WriteFile(main, []byte(mainText), 0o644)
	os.MkdirAll(filepath.Join(dir, "other"), 0o755)
	os.WriteFile(filepath.Join(dir, "other", "o.go"), []byte("package other\n\nfunc X() {}\n"), 0o644)
	p := NewPool(Options{Workdir: dir, Wait: 5 * time.Second})
	defer p.Close()
	ctx := context.Background()
	p.Sync(ctx, main, mainText)
	p.Refresh(ctx)
	os.WriteFile(filepath.Join(dir, "other", "o.go"), []byte("package other\n\nfunc X() { var y int }\n"), 0o644)
	start := time.Now()
	p.Refresh(ctx)
	if d := time.Since(start); d > time.Second {
		t.Errorf("a change in another package waited %s", d)
	}
}
