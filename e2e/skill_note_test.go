package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
)

// TestBadSkillSaidOnce: a skill with a bad header is said at the first
// run, not at every one; once the file changes (and is still bad) it is
// said again.
func TestBadSkillSaidOnce(t *testing.T) {
	work, state := t.TempDir(), t.TempDir()
	skill := filepath.Join(work, ".aci", "skills", "broken", "SKILL.md")
	writeFiles(t, work, map[string]string{".aci/skills/broken/SKILL.md": "---\ndescription: no name here\n---\nx"})
	srv := fakeai.New(t)
	for range 3 {
		srv.Push(fakeai.Reply{Content: "ok"})
	}
	env := []string{"XDG_CONFIG_HOME=" + t.TempDir(), "XDG_STATE_HOME=" + state}
	said := func() bool {
		r := aci(t, work, srv, "", env, "-p", "hi")
		if r.code != 0 {
			t.Fatalf("code %d\n%s", r.code, r.stderr)
		}
		return strings.Contains(r.stderr, "skill .aci/skills/broken/SKILL.md skipped")
	}
	if !said() {
		t.Fatal("the bad skill is not said at the first run")
	}
	if said() {
		t.Error("the bad skill is said again at the next run")
	}
	later := time.Now().Add(time.Minute)
	os.Chtimes(skill, later, later)
	if !said() {
		t.Error("the changed (still bad) skill is not said again")
	}
}
