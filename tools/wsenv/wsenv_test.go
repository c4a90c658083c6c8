package wsenv

import (
	"github.com/aci-dev/aci/tools/settings"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAllowList(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "aci"), 0o700)
	path := filepath.Join(dir, "aci", "settings.json")
	os.WriteFile(path, []byte(`{"workspace_env": ["GITHUB_TOKEN"]}`), 0o600)
	l, probs := load(t, path)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	for name, want := range map[string]bool{
		"HOME": true, "PATH": true, "LC_ALL": true, "GOPATH": true, "GITHUB_TOKEN": true,
		"OPENAI_API_KEY": false, "OPENROUTER_API_KEY": false, "DATABASE_URL": false, "AWS_SECRET_ACCESS_KEY": false, "SOME_VAR": false,
	} {
		if got := l.Allowed(name); got != want {
			t.Errorf("Allowed(%s) = %v, want %v", name, got, want)
		}
	}
	env := l.Environ([]string{"HOME=/h", "OPENAI_API_KEY=sk-x", "GITHUB_TOKEN=g", "X=1"})
	if strings.Join(env, " ") != "HOME=/h GITHUB_TOKEN=g" {
		t.Errorf("Environ = %v", env)
	}
	os.WriteFile(path, []byte(`{"workspace_env": "GITHUB_TOKEN"}`), 0o600)
	if _, probs := load(t, path); len(probs) != 1 || !strings.Contains(probs[0], "workspace_env") {
		t.Errorf("a malformed list: %v", probs)
	}
	if got := (List{}).Refused("a ${OPENAI_API_KEY} ${HOME} ${X:-d}"); strings.Join(got, ",") != "OPENAI_API_KEY,X" {
		t.Errorf("Refused = %v", got)
	}
}

// load reads the list of the settings file at path as ReadPerson would.
func load(t *testing.T, path string) (List, []string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", filepath.Dir(filepath.Dir(path)))
	return FromSettings(settings.ReadPerson())
}
