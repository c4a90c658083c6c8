package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// A relative XDG_STATE_HOME is ignored, as the XDG specification says:
// transcripts do not land in the folder aci runs in (the workspace, which
// commands read), but in ~/.local/state/aci.
func TestRelativeXDGStateHomeIgnored(t *testing.T) {
	dir := t.TempDir()
	srv := fakeai.New(t, fakeai.Reply{Content: "hello"})
	env := baseEnv(t, srv, "XDG_STATE_HOME=state", "XDG_CONFIG_HOME=conf")
	var home string
	for _, kv := range env {
		if v, ok := cutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	r := aciEnv(t, dir, env, "", "-p", "hi")
	if r.code != 0 || r.stdout != "hello\n" {
		t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, p := range []string{"state", "conf"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("aci made %s in the workspace", p)
		}
	}
	got, _ := filepath.Glob(filepath.Join(home, ".local", "state", "aci", "sessions", "*"))
	if len(got) == 0 {
		t.Errorf("no transcript under %s/.local/state/aci/sessions", home)
	}
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return "", false
}
