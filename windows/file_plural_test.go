package windows

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/protocol"
)

// TestFileOneLineSaysLine: a one-line file's window says "1 line", not
// "1 lines".
func TestFileOneLineSaysLine(t *testing.T) {
	m, dir := newTestManager(t, nil)
	writeFile(t, filepath.Join(dir, "one.txt"), "hello\n", 0o640)
	if r := do(t, m, "launcher", "open", `{"app":"file","target":"one.txt"}`); r.Status != protocol.StatusOK {
		t.Fatalf("open = %+v", r)
	}
	if c := content(m, "file_1"); !strings.Contains(c, "one.txt: 1 line, showing 1-1") {
		t.Fatalf("content:\n%s", c)
	}
}
