package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The protected-path rule, row by row: what is protected in a repository
// whose session started in a subfolder, and what is not.
func TestProtectedWhy(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	wd := filepath.Join(root, "svc", "api")
	os.MkdirAll(wd, 0o755)
	for _, tc := range []struct {
		path string
		want string // a word of the reason; "" = not protected
	}{
		{"AGENTS.md", "instructions"},
		{"../AGENTS.md", "instructions"},
		{"../../CLAUDE.md", "instructions"},
		{"deep/er/AGENTS.md", "instructions"}, // a later session started there reads it
		{".env", "API key"},
		{"../../.env", "API key"},
		{"../.env", "API key"}, // any depth: a session started there reads it
		{"../../sub/.vscode/tasks.json", "VS Code"},
		{"../../sub/deep/.envrc", "direnv"},
		{"../../node_modules/pkg/.env", ""}, // installed, not the project's
		{".env.local", "settings and secrets"},
		{"../../.env.production", "settings and secrets"},
		{".mcp.json", "start the programs"},
		{"../.mcp.json", "start the programs"},
		{"../../.aci/settings.json", "limits"},
		{"../../.vscode/tasks.json", "VS Code"},
		{"../../.vscode", "VS Code"},
		{"../../proj.code-workspace", "VS Code"},
		{"../../.idea/workspace.xml", "JetBrains"},
		{"../../.devcontainer/devcontainer.json", "container"},
		{"../../.envrc", "direnv"},
		{".envrc", "direnv"},
		{"../../mise.toml", "mise"},
		{"../../.claude/settings.json", "Claude Code"},
		{"../../.husky/pre-commit", "hooks"},
		{"main.go", ""},
		{"../../Makefile", ""},
		{"../../.nvmrc", ""},
		{"../../.tool-versions", ""},
		{"../../docs/AGENTS.md.bak", ""},
		{"../../vscode/tasks.json", ""},
		{"/etc/.env", ""}, // outside the workspace: the guard's business
	} {
		got := ProtectedWhy(wd, tc.path)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("ProtectedWhy(%q) = %q, want a reason with %q", tc.path, got, tc.want)
		}
	}
	// A link whose folder leads into the workspace is judged where it leads.
	os.Symlink(filepath.Join(root), filepath.Join(wd, "up"))
	if got := ProtectedWhy(wd, "up/.envrc"); !strings.Contains(got, "direnv") {
		t.Errorf("through a link: %q", got)
	}
}

// The policy lists every row where it applies: instruction files on the
// chain from the git root down, the rest at the root and the working dir.
func TestProtectedCandidates(t *testing.T) {
	got, standIns := protectedCandidates("/r", "/r/a/b")
	for _, want := range []string{"/r/AGENTS.md", "/r/a/AGENTS.md", "/r/a/b/CLAUDE.md", "/r/a/.mcp.json", "/r/.env", "/r/a/b/.env",
		"/r/.vscode/", "/r/a/b/.aci/", "/r/*.code-workspace"} {
		if !slices.Contains(got, want) {
			t.Errorf("candidates lack %s: %v", want, got)
		}
	}
	if slices.Contains(got, "/r/a/.env") {
		t.Errorf("/r/a/.env is not read by aci: %v", got)
	}
	// Stand-ins: the files aci trusts at its next start, at the root and
	// the working dir only (each costs a mount per command).
	for _, want := range []string{"/r/AGENTS.md", "/r/a/b/AGENTS.md", "/r/.env", "/r/a/b/CLAUDE.md"} {
		if !slices.Contains(standIns, want) {
			t.Errorf("no stand-in for %s: %v", want, standIns)
		}
	}
	for _, not := range []string{"/r/a/AGENTS.md", "/r/.envrc", "/r/.aci/", "/r/*.code-workspace", "/r/.vscode/", "/r/.mcp.json"} {
		if slices.Contains(standIns, not) {
			t.Errorf("a stand-in for %s: %v", not, standIns)
		}
	}
}
