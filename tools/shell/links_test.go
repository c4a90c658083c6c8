package shell

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Links a command makes are reported when they lead out of the workspace,
// and only then; older links are not reported again. Each way the
// scanner learns what changed is tried: the kernel's word (notify), a
// stat of every folder where it has none (stat), and the look at every
// folder after the kernel lost events (lost); and the first command of a
// shell, run while its first walk is still under way (first).
func TestLinksOut(t *testing.T) {
	for _, mode := range []string{"notify", "stat", "lost", "first"} {
		t.Run(mode, func(t *testing.T) {
			root, _ := filepath.EvalSymlinks(t.TempDir())
			ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
			os.MkdirAll(filepath.Join(ws, "sub", "node_modules"), 0o755)
			os.MkdirAll(home, 0o755)
			if mode == "first" {
				for i := range 3000 {
					os.MkdirAll(filepath.Join(ws, "many", strconv.Itoa(i/100), strconv.Itoa(i%100)), 0o755)
				}
			}
			os.Symlink(home, filepath.Join(ws, "old-link")) // made before: not reported
			ageLinks(t, ws)
			sh, err := NewShell(ws)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(sh.Close)
			cases := []struct {
				cmd  string
				want []string
			}{
				{"ln -s " + home + " h", []string{"h -> " + home}},
				{"ln -s ../../home sub/up; ln -s sub inside; ln -s /nonexistent/x dangling", []string{"dangling -> /nonexistent/x", "sub/up -> ../../home"}},
				{"ln -s " + home + "/.bashrc sub/node_modules/rc", []string{"sub/node_modules/rc -> " + home + "/.bashrc"}},
				{"echo plain > f", nil},
				{"mkdir -p new/deep && ln -s " + home + " new/deep/l", []string{"new/deep/l -> " + home}},
				{"ln -s " + home + " ../tmp-link && mv ../tmp-link sub/renamed", []string{"sub/renamed -> " + home}},
				{"rm -rf sub && mkdir -p sub/again && ln -s / sub/again/root", []string{"sub/again/root -> /"}},
				{"mv new gone && ln -s " + home + " gone/deep/l2", []string{"gone/deep/l2 -> " + home}},
			}
			if mode == "first" {
				cases = []struct {
					cmd  string
					want []string
				}{{"ln -s " + home + " many/29/99/late; ln -s " + home + " many/0/0/early", []string{"many/0/0/early -> " + home, "many/29/99/late -> " + home}}}
			} else {
				sh.Run(context.Background(), "true", 0, 1000) // the first walk is done
			}
			switch mode {
			case "stat":
				sh.links.mu.Lock()
				sh.links.unwatch()
				sh.links.mu.Unlock()
			case "lost":
				sh.links.fw.Close() // its Read says every event was lost
			}
			for _, tc := range cases {
				res, err := sh.Run(context.Background(), tc.cmd, 0, 1000)
				if err != nil || res.ExitCode != 0 {
					t.Fatalf("%s: exit %d %v %q", tc.cmd, res.ExitCode, err, res.Output)
				}
				if strings.Join(res.LinksOut, "|") != strings.Join(tc.want, "|") {
					t.Errorf("%s: links out %q, want %q", tc.cmd, res.LinksOut, tc.want)
				}
				ageLinks(t, ws) // older than the next run's start
			}
		})
	}
}

// ageLinks sets the time of every link under dir an hour back.
func ageLinks(t *testing.T, dir string) {
	t.Helper()
	old := unix.NsecToTimeval(time.Now().Add(-time.Hour).UnixNano())
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type()&fs.ModeSymlink != 0 {
			if err := unix.Lutimes(p, []unix.Timeval{old, old}); err != nil {
				t.Fatal(err)
			}
		}
		return nil
	})
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
			s := newLinkScanner(root)
			s.scan(start)
			s.close()
		}
	})
	b.Run("next", func(b *testing.B) {
		s := newLinkScanner(root)
		b.Cleanup(s.close)
		s.scan(start)
		for b.Loop() {
			s.scan(start)
		}
	})
}
