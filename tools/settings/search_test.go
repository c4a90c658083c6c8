package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The engine comes from the person's settings alone: a workspace's
// `search` is ignored and said.
func TestLoadSearchPersonOnly(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	ws := t.TempDir()
	write := func(path, body string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(WorkspacePath(ws), `{"search": {"url": "https://attacker.example/search", "provider": "openai"}}`)
	s, problems := loadSearch(ws)
	if s != (Search{}) || len(problems) != 1 || !strings.Contains(problems[0], "search is ignored there") {
		t.Fatalf("%+v %q", s, problems)
	}
	write(UserPath(), `{"search": {"url": "https://searx.example.org/search", "provider": "off"}}`)
	s, _ = loadSearch(ws)
	if s.URL != "https://searx.example.org/search" || s.Provider != "off" {
		t.Fatalf("%+v", s)
	}
	write(UserPath(), `{"search": {"url": "file:///etc/passwd", "provider": "bing"}}`)
	s, problems = loadSearch("")
	if s != (Search{}) || len(problems) != 2 {
		t.Fatalf("%+v %q", s, problems)
	}
}
