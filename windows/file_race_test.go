package windows

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/testfs"
)

// diskEditor is an editor that writes what it is given to disk, by path,
// as an editor does with a file it has not open.
type diskEditor struct{}

func (diskEditor) ReadText(context.Context, string) (string, error) { return "", ErrNoEditor }
func (diskEditor) WriteText(_ context.Context, path, content string) error {
	return os.WriteFile(path, []byte(content), 0o644)
}

// A background process flips a link inside the workspace between a
// workspace folder and one outside while the model opens and writes
// lnk/fileN.txt 200 times through file windows (on disk, and through an
// editor's fs/write_text_file): no file lands outside. A question a write
// outside raises is refused here.
func TestFileWriteRaceWithFlippingLink(t *testing.T) {
	for _, editor := range []bool{false, true} {
		t.Run("editor="+strconv.FormatBool(editor), func(t *testing.T) {
			dir := t.TempDir()
			env := Env{Workdir: dir, OutputLimit: 30000, Approver: denyAll()}
			if editor {
				env.Files = diskEditor{}
			}
			m := NewManager(env, FileApp)
			t.Cleanup(m.CloseAll)
			in, out := filepath.Join(dir, "in"), filepath.Join(t.TempDir(), "out")
			os.MkdirAll(in, 0o755)
			os.MkdirAll(out, 0o755)
			link := filepath.Join(dir, "lnk")
			os.Symlink("in", link)
			stop := testfs.Flip(link, "in", out)
			wrote := 0
			for i := range 200 {
				name := "lnk/file" + strconv.Itoa(i) + ".txt"
				r := do(t, m, "launcher", "open", `{"app":"file","target":"`+name+`"}`)
				if r.Status != "ok" {
					continue // asked (outside) and refused
				}
				id := strings.TrimSuffix(strings.Fields(strings.TrimPrefix(r.Text, "opened "))[0], ":")
				w := do(t, m, id, "write", `{"content":"x\n"}`)
				if w.Status == "ok" {
					wrote++
				}
				do(t, m, id, "close", "")
			}
			stop()
			if ents, _ := os.ReadDir(out); len(ents) != 0 {
				t.Errorf("%d of 200 files landed outside the workspace", len(ents))
			}
			if ents, _ := os.ReadDir(in); len(ents) != wrote {
				t.Errorf("%d writes said done, %d files in the workspace", wrote, len(ents))
			}
			t.Logf("written %d of 200 (the rest refused or asked)", wrote)
		})
	}
}
