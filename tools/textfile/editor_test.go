package textfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CheckWrite refuses what WriteAtomic would refuse, without writing.
func TestCheckWrite(t *testing.T) {
	tr := newAccessTree(t)
	a := filepath.Join(tr.ws, "a.txt")
	if err := tr.access(a).CheckWrite(a); err != nil {
		t.Errorf("plain file: %v", err)
	}
	fresh := filepath.Join(tr.ws, "sub", "new.txt")
	if err := tr.access(fresh).CheckWrite(fresh); err != nil {
		t.Errorf("new file: %v", err)
	}
	// A harmless name swapped for a link to a file outside, or to a key.
	for _, target := range []string{tr.bashrc, tr.key} {
		p := filepath.Join(tr.ws, "b.txt")
		acc := tr.access(p)
		relink(t, p, target)
		if err := acc.CheckWrite(p); !errors.Is(err, ErrRefused) {
			t.Errorf("link to %s: err = %v", target, err)
		}
	}
	dangling := filepath.Join(tr.ws, "dangling.txt")
	os.Symlink(filepath.Join(tr.ws, "missing"), dangling)
	wantRefused(t, "dangling link", tr.access(dangling).CheckWrite(dangling), "does not exist")
	linked := filepath.Join(tr.ws, "sub", "c.txt")
	os.Link(linked, filepath.Join(tr.ws, "other-name.txt"))
	wantRefused(t, "hard link", tr.access(linked).CheckWrite(linked), "hard links")
	ro := filepath.Join(tr.ws, "ro.txt")
	os.WriteFile(ro, []byte("x"), 0o444)
	if err := tr.access(ro).CheckWrite(ro); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("read-only: %v", err)
	}
	if b, _ := os.ReadFile(a); string(b) != "harmless\n" {
		t.Errorf("CheckWrite changed a.txt: %q", b)
	}
}

func TestParseTextAndLinesOf(t *testing.T) {
	tf, err := ParseText("x", []byte("\xEF\xBB\xBFone\r\ntwo\r\n"), 0o600)
	if err != nil || tf.Text != "one\ntwo\n" || !tf.CRLF || !tf.BOM || tf.Mode != 0o600 {
		t.Errorf("ParseText = %+v, %v", tf, err)
	}
	if _, err := ParseText("bin", []byte("a\x00b"), 0o644); !errors.Is(err, ErrBinary) {
		t.Errorf("binary: %v", err)
	}
	lr := LinesOf("a\nb\nc\n", 2, 3, 100)
	if lr.Total != 3 || lr.Start != 2 || strings.Join(lr.Lines, ",") != "b,c" {
		t.Errorf("LinesOf = %+v", lr)
	}
}
