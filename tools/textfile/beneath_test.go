package textfile

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/testfs"
)

// A link inside the workspace flipped between a workspace folder and one
// outside, as fast as a goroutine can, while 200 writes go through it by
// name: none lands outside, whether the window was opened while the link
// led in or out, with openat2 and with the walk that stands in for it.
func TestWriteBeneathLinkFlip(t *testing.T) {
	for _, walk := range []bool{false, true} {
		t.Run("walk="+strconv.FormatBool(walk), func(t *testing.T) {
			noOpenat2 = walk
			defer func() { noOpenat2 = false }()
			tr := newAccessTree(t)
			in := filepath.Join(tr.ws, "in")
			out := filepath.Join(tr.home, "out")
			os.MkdirAll(in, 0o755)
			os.MkdirAll(out, 0o755)
			link := filepath.Join(tr.ws, "lnk")
			os.Symlink(in, link)
			stop := testfs.Flip(link, "in", out)
			var wrote, refusedN int
			for i := range 200 {
				path := filepath.Join(link, "file"+strconv.Itoa(i)+".txt")
				a := tr.access(path) // opened wherever the link led then
				err := a.WriteAtomic(path, []byte("x\n"), 0o644)
				switch {
				case err == nil:
					wrote++
				case strings.Contains(err.Error(), "outside the workspace"):
					refusedN++
				default:
					t.Errorf("write %d: %v", i, err)
				}
			}
			stop()
			if ents, _ := os.ReadDir(out); len(ents) != 0 {
				t.Errorf("%d files landed outside the workspace", len(ents))
			}
			ents, _ := os.ReadDir(in)
			if len(ents) != wrote {
				t.Errorf("%d writes said done, %d files in the workspace", wrote, len(ents))
			}
			t.Logf("written inside %d, refused %d", wrote, refusedN)
		})
	}
}

// Links that stay in the workspace still work: relative and absolute,
// to a folder or to the file, and new folders are made; a path that
// climbs out with .. is refused.
func TestWriteBeneathLinksInside(t *testing.T) {
	for _, walk := range []bool{false, true} {
		t.Run("walk="+strconv.FormatBool(walk), func(t *testing.T) {
			noOpenat2 = walk
			defer func() { noOpenat2 = false }()
			tr := newAccessTree(t)
			os.Symlink(filepath.Join(tr.ws, "sub"), filepath.Join(tr.ws, "abs"))
			os.Symlink("sub", filepath.Join(tr.ws, "relf"))
			os.Symlink("sub/c.txt", filepath.Join(tr.ws, "c-link"))
			for path, real := range map[string]string{
				"abs/c.txt":      "sub/c.txt",
				"relf/new/x.txt": "sub/new/x.txt",
				"c-link":         "sub/c.txt",
			} {
				p := filepath.Join(tr.ws, path)
				if err := tr.access(p).WriteAtomic(p, []byte(path+"\n"), 0o644); err != nil {
					t.Errorf("%s: %v", path, err)
					continue
				}
				if b, _ := os.ReadFile(filepath.Join(tr.ws, real)); string(b) != path+"\n" {
					t.Errorf("%s: %s holds %q", path, real, b)
				}
			}
			os.Symlink("../home", filepath.Join(tr.ws, "up"))
			p := filepath.Join(tr.ws, "up", "notes.txt")
			if err := tr.access(p).WriteAtomic(p, []byte("pwned\n"), 0o644); err == nil {
				t.Errorf("a write through a link to ../home went through")
			}
			if b, _ := os.ReadFile(tr.notes); string(b) != "notes\n" {
				t.Errorf("notes = %q", b)
			}
		})
	}
}
