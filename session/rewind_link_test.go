package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/windows"
)

// A turn wrote d/e.txt and made d/new.txt; a later command replaced d
// with a link to a folder outside holding files of the same content.
// Rewinding to the first turn, or /undo, writes and removes nothing
// outside: each path is refused and named, the outside files untouched.
func TestRewindThroughPlantedLink(t *testing.T) {
	for _, how := range []string{"rewind", "undo"} {
		t.Run(how, func(t *testing.T) {
			outside := t.TempDir()
			srv := fakeai.New(t,
				fakeai.Reply{Content: call("launcher", "open", `{"app":"file","target":"d/e.txt"}`) +
					call("file_1", "edit", `{"old_text":"e0","new_text":"e1"}`) +
					call("launcher", "open", `{"app":"file","target":"d/new.txt"}`) +
					call("file_2", "write", `{"content":"n1\n"}`)},
				fakeai.Reply{Content: "one"},
				fakeai.Reply{Content: call("launcher", "open", `{"app":"bash"}`) +
					call("bash_1", "run", `{"command":"mv d d.old && ln -s `+outside+` d"}`)},
				fakeai.Reply{Content: "two"},
			)
			f, work := newFactory(t, srv)
			if err := os.MkdirAll(filepath.Join(work, "d"), 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(work, "d/e.txt"), []byte("e0\n"), 0o644)
			// The outside files are what the turn left, byte for byte.
			os.WriteFile(filepath.Join(outside, "e.txt"), []byte("e1\n"), 0o644)
			os.WriteFile(filepath.Join(outside, "new.txt"), []byte("n1\n"), 0o644)
			ctx := context.Background()
			j := windows.NewUndoJournal()
			s, err := f.New(ctx, Options{Workdir: work, Journal: j, Mode: windows.ModeYes})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			for _, q := range []string{"first", "second"} {
				if _, err := asked(ctx, s, q); err != nil {
					t.Fatal(err)
				}
			}
			if fi, err := os.Lstat(filepath.Join(work, "d")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("the command did not plant the link: %v", err)
			}
			var u windows.UndoResult
			if how == "rewind" {
				res, err := s.Rewind(ctx, 1, true, false)
				if err != nil || res.Files == nil {
					t.Fatalf("rewind: %+v %v", res, err)
				}
				u = *res.Files
			} else {
				// Back to the first turn, one /undo at a time.
				for {
					one, err := j.Undo()
					if err != nil {
						break
					}
					u.Failed = append(u.Failed, one.Failed...)
					u.Restored = append(u.Restored, one.Restored...)
					u.Removed = append(u.Removed, one.Removed...)
				}
			}
			for name, want := range map[string]string{"e.txt": "e1\n", "new.txt": "n1\n"} {
				if b, err := os.ReadFile(filepath.Join(outside, name)); err != nil || string(b) != want {
					t.Errorf("outside %s = %q, %v: the %s reached through the link", name, b, err, how)
				}
			}
			failed := strings.Join(u.Failed, "\n")
			for _, name := range []string{"d/e.txt", "d/new.txt"} {
				if !strings.Contains(failed, filepath.Join(work, name)+": refused: its folder ") || !strings.Contains(failed, "is now a link (to "+outside+")") {
					t.Errorf("%s not refused and named: %+v", name, u)
				}
			}
			if len(u.Restored)+len(u.Removed) != 0 {
				t.Errorf("%s put something back through the link: %+v", how, u)
			}
		})
	}
}
