package session

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/aci-dev/aci/agent"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/settings"
)

// Each settings file is read once per start: main reads the person's and
// the project's, the factory hands them to every session (rules, hooks,
// trust, language servers, search, network, workspace_env); a second
// session in the same folder reads nothing again.
func TestSettingsReadOnce(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	writeFile := func(path, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	person := filepath.Join(cfg, "aci", "settings.json")
	writeFile(person, `{"permissions": {"deny": ["bash:rm -rf"]}, "lsp": {"x": {"command": ["x-ls"], "extensions": [".x"]}},
		"search": {"provider": "off"}, "workspace_env": ["GITHUB_TOKEN"], "network": {"deny": ["pypi.org"]},
		"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`)
	srv := fakeai.New(t)
	work := t.TempDir()
	root := sandbox.WorkspaceRoot(work)
	paths := settings.ProjectPaths(root)
	writeFile(paths[0], `{"permissions": {"deny": ["bash:curl"]}, "network": {"deny": ["github.com"]}}`)
	writeFile(paths[1], `{"permissions": {"deny": ["bash:wget"]}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo hi"}]}]}}`)
	// What main does at start, then the factory it hands the values to.
	f := NewFactory(Config{
		Client:      agent.ClientConfig{BaseURL: srv.URL, APIKey: "sk-test-secret-key-123456", Model: "m", Stream: true},
		Agent:       agent.Config{BasePrompt: "You are aci."},
		SessionsDir: t.TempDir(),
		Person:      settings.ReadPerson(),
		Project:     settings.ReadProject(root),
	})

	for i := 0; i < 2; i++ {
		s, err := f.New(context.Background(), Options{Workdir: work})
		if err != nil {
			t.Fatal(err)
		}
		f.FolderCode(work)
		for _, cmd := range []string{"rm -rf /", "curl x", "wget y"} {
			if _, denied := s.Rules().Denied("command", cmd); !denied {
				t.Errorf("session %d: %q not denied: the settings did not reach the rules", i, cmd)
			}
		}
		s.Close()
	}
	for _, p := range append([]string{person}, paths...) {
		if n := settings.Reads(p); n != 1 {
			t.Errorf("%s read %d times, want once", p, n)
		}
	}
}
