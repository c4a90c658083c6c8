package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// benchFiles is the workspace size of the figure (20,000 files).
const benchFiles = 20000

// bigWorkspace makes n .go files in folders of 100.
func bigWorkspace(tb testing.TB, n int) string {
	tb.Helper()
	dir := tb.TempDir()
	for i := 0; i < n; i++ {
		d := filepath.Join(dir, fmt.Sprintf("p%03d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(d, 0o755); err != nil {
				tb.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%03d.go", i%100)), []byte("package p\n"), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// The per-action cost of finding the files a command changed, at 20,000
// files, with one file changed by the action: by a scan compared with the
// last one (before), and by the kernel's notification (now).
//
//	go test -run '^$' -bench ChangeDetection -benchtime 200x ./tools/lsp/
func BenchmarkChangeDetection(b *testing.B) {
	dir := bigWorkspace(b, benchFiles)
	exts := map[string]bool{".go": true}
	for _, how := range []string{"scan", "notify"} {
		b.Run(how, func(b *testing.B) {
			p := NewPool(Options{Workdir: dir})
			defer p.Close()
			if how == "scan" {
				p.noNotifyWhy = "benchmark"
			}
			p.changes(exts) // the baseline
			if how == "notify" && p.watcher == nil {
				b.Skip("no notification here: " + p.noNotifyWhy)
			}
			target := filepath.Join(dir, "p042", "f042.go")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				os.WriteFile(target, []byte(fmt.Sprintf("package p\n// %d\n", i)), 0o644)
				b.StartTimer()
				if ch := p.changes(exts); how == "notify" && ch[target] != 2 {
					b.Fatalf("the change was not seen: %v", ch)
				}
			}
		})
	}
}

// Notification sees what a command does between two actions: a file
// changed, one made, one removed, a folder made with a file in it; one
// in node_modules or a hidden folder is not watched.
func TestChangesByNotification(t *testing.T) {
	dir := bigWorkspace(t, 300)
	p := NewPool(Options{Workdir: dir})
	defer p.Close()
	exts := map[string]bool{".go": true}
	p.changes(exts)
	if p.watcher == nil {
		t.Skip("no notification here: " + p.noNotifyWhy)
	}
	os.MkdirAll(filepath.Join(dir, "node_modules", "x"), 0o755)
	os.MkdirAll(filepath.Join(dir, "new", "deeper"), 0o755)
	writes := map[string]string{"p001/f001.go": "package p\n// changed\n", "p002/made.go": "package p\n",
		"new/deeper/n.go": "package deeper\n", "node_modules/x/ignored.go": "package x\n", "p001/notes.txt": "x"}
	for name, text := range writes {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Remove(filepath.Join(dir, "p000", "f000.go"))
	got := p.changes(exts)
	want := map[string]int{"p001/f001.go": 2, "p002/made.go": 1, "new/deeper/n.go": 1, "p000/f000.go": 3}
	if len(got) != len(want) {
		t.Errorf("changes %v, want %v", got, want)
	}
	for name, kind := range want {
		if got[filepath.Join(dir, name)] != kind {
			t.Errorf("%s: %d, want %d (all: %v)", name, got[filepath.Join(dir, name)], kind, got)
		}
	}
	if again := p.changes(exts); len(again) != 0 {
		t.Errorf("the same changes twice: %v", again)
	}
}
