//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// After a granted command, EffectCheck names the deletes and writes that
// did not reach the machine (with the link that led elsewhere), and
// nothing for those that did or for a path deleted and made again.
func TestGrantEffectCheck(t *testing.T) {
	tr := newTree(t)
	s := mustSandbox(t, tr.policy, Bwrap)
	base, err := os.MkdirTemp("/tmp", "aci-grant-check-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	for _, d := range []string{"gone", "kept", "again"} {
		os.MkdirAll(filepath.Join(base, d), 0o755)
	}
	priv := base + "-private"
	j := func(p string) string { return filepath.Join(base, p) }
	effects := []Effect{{Path: j("gone"), Gone: true}, {Path: j("kept"), Gone: true}, {Path: j("again"), Gone: true},
		{Path: j("new"), Gone: false}, {Path: j("w/f"), Gone: false},
		{Path: j("tmpf"), Gone: false}, {Path: j("tmpf"), Gone: true}}
	g := Grant{Write: []string{base}}
	check := s.CheckEffects(g.Write, effects)
	script := "rm -rf " + j("gone") + " " + j("again") + " && mkdir " + j("again") + " && echo x > " + j("new") +
		" && mkdir -p " + priv + " && ln -s " + priv + " " + j("w") + " && echo y > " + j("w/f") +
		" && echo z > " + j("tmpf") + " && rm " + j("tmpf")
	if out, code := runGranted(t, s, tr.ws, script, g); code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	missed := strings.Join(check.Missed(), "\n")
	for _, want := range []string{j("kept") + " is still there", j("w/f") + " was not written", "link " + j("w") + " → " + priv, "session's own /tmp"} {
		if !strings.Contains(missed, want) {
			t.Errorf("missed lacks %q:\n%s", want, missed)
		}
	}
	for _, not := range []string{j("gone"), j("again"), j("new") + " ", j("tmpf")} {
		if strings.Contains(missed, not) {
			t.Errorf("missed names %s, which reached the machine:\n%s", not, missed)
		}
	}
	if (*EffectCheck)(nil).Missed() != nil {
		t.Error("a nil check misses something")
	}
}
