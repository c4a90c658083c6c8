package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	NeedGopls(t)
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
	NeedGopls(t)
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
