package shell

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Links a command makes are reported when they lead out of the workspace,
// and only then; older links are not reported again.
func TestLinksOut(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	os.MkdirAll(filepath.Join(ws, "sub", "node_modules"), 0o755)
	os.MkdirAll(home, 0o755)
	os.Symlink(home, filepath.Join(ws, "old-link")) // made before: not reported
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(ws, "old-link"), old, old)
	sh, err := NewShell(ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cmd  string
		want []string
	}{
		{"ln -s " + home + " h", []string{"h -> " + home}},
		{"ln -s ../../home sub/up; ln -s sub inside; ln -s /nonexistent/x dangling", []string{"dangling -> /nonexistent/x", "sub/up -> ../../home"}},
		{"ln -s " + home + "/.bashrc sub/node_modules/rc", []string{"sub/node_modules/rc -> " + home + "/.bashrc"}},
		{"echo plain > f", nil},
	} {
		time.Sleep(1100 * time.Millisecond) // earlier links are older than the next run's start
		res, err := sh.Run(context.Background(), tc.cmd, 0, 1000)
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("%s: exit %d %v %q", tc.cmd, res.ExitCode, err, res.Output)
		}
		if strings.Join(res.LinksOut, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: links out %q, want %q", tc.cmd, res.LinksOut, tc.want)
		}
	}
}

// BenchmarkLinksOut measures the scan after a command on a tree of 2,000
// folders of 10 files each.
func BenchmarkLinksOut(b *testing.B) {
	root := b.TempDir()
	for i := range 2000 {
		d := filepath.Join(root, "d"+string(rune('a'+i%26)), "e"+strings.Repeat("x", i%7), "f"+string(rune('0'+i%10))+string(rune('a'+i/260)))
		os.MkdirAll(d, 0o755)
		for j := range 10 {
			os.WriteFile(filepath.Join(d, "file"+string(rune('0'+j))), nil, 0o644)
		}
	}
	start := time.Now()
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			newLinkScanner(root).scan(start)
		}
	})
	b.Run("next", func(b *testing.B) {
		s := newLinkScanner(root)
		s.scan(start)
		for b.Loop() {
			s.scan(start)
		}
	})
}
