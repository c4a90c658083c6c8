package rules

import (
	"path/filepath"
	"testing"

	"github.com/aci-dev/aci/tools/settings"
)

func TestParseAndCover(t *testing.T) {
	for _, tc := range []struct {
		pattern, kind, subject string
		allow, deny            bool
	}{
		{"bash:npm test", "command", "npm test", true, true},
		{"bash:npm test", "command", "npm test -- --watch", true, true},
		{"bash:npm test", "command", "npm test; rm -rf ~", false, true},
		{"bash:npm test", "command", "npm testdata", false, false},
		{"bash:go test *", "command", "go test ./...", true, true},
		{"Bash(go test:*)", "command", "go test ./x", true, true},
		{"bash:rm -rf", "command", "ls && rm -rf /", false, true},
		{"bash:git * --force", "command", "git push --force", true, true},
		{"web:docs.python.org", "fetch", "fetch https://docs.python.org/3/", true, true},
		{"web:*.python.org", "fetch", "fetch https://docs.python.org/3/", true, true},
		{"web:docs.python.org", "network", "connect to docs.python.org:443", true, true},
		{"WebFetch(domain:docs.python.org)", "fetch", "fetch https://evil.org/?docs.python.org", false, false},
		{"mcp:gh.create_issue", "tool", `gh.create_issue {"title":"x"}`, true, true},
		{"mcp__gh__create_issue", "tool", `gh.create_issue {}`, true, true},
		{"mcp:gh.*", "tool", `gh.delete_repo {}`, true, true},
		{"mcp:gh.create_issue", "tool", `gh.create_issue_comment {}`, false, false},
	} {
		r, err := Parse(tc.pattern)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.pattern, err)
			continue
		}
		if got := r.Covers(tc.kind, tc.subject, "any"); got != tc.allow {
			t.Errorf("%s covers %q = %v, want %v", tc.pattern, tc.subject, got, tc.allow)
		}
		if got := r.Refuses(tc.kind, tc.subject); got != tc.deny {
			t.Errorf("%s refuses %q = %v, want %v", tc.pattern, tc.subject, got, tc.deny)
		}
	}
	for _, bad := range []string{"npm test", "bash:", "bash:*", "bash:npm test; rm", "web:https://x.org/", "mcp:server", "shell:ls", "web:a.*.org"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) took a pattern that matches nothing", bad)
		}
	}
	// A rule saved for one reason covers only that reason.
	r := Rule{Kind: "bash", Pattern: "npm test", Reason: "ask mode: the command may change something"}
	if !r.Covers("command", "npm test", r.Reason) || r.Covers("command", "npm test", "publishes the package") {
		t.Error("a rule covered another reason than its own")
	}
}

// Project rules live in the person's configuration: saved, seen by a new
// set, listed, removed. The project's settings deny but never allow.
func TestSetProjectRules(t *testing.T) {
	xdg, ws := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	pol := settings.Policy{
		Person:  settings.Permissions{Deny: []settings.Entry{{Pattern: "bash:rm -rf", Source: "person"}}},
		Project: settings.Permissions{Allow: []settings.Entry{{Pattern: "bash:curl", Source: "proj"}}, Deny: []settings.Entry{{Pattern: "bash:git push", Source: "proj"}}},
	}
	s, problems := Load(ws, pol)
	if len(problems) != 1 {
		t.Errorf("problems %v, want the project's allow said unused", problems)
	}
	if _, ok := s.Allowed("command", "curl x", ""); ok {
		t.Error("a project's allow widened")
	}
	if _, ok := s.Denied("command", "git push origin"); !ok {
		t.Error("a project's deny was not applied")
	}
	if err := s.Add(Rule{Kind: "bash", Pattern: "make"}, ScopeProject); err != nil {
		t.Fatal(err)
	}
	if dir := filepath.Dir(ProjectPath(ws)); filepath.Dir(dir) != filepath.Join(xdg, "aci") {
		t.Errorf("project rules kept in %s", dir)
	}
	s2, _ := Load(ws, pol)
	if _, ok := s2.Allowed("command", "make all", ""); !ok {
		t.Fatal("the project rule is not seen by a new session")
	}
	list := s2.List()
	n := 0
	for i, l := range list {
		if l.Rule.Pattern == "make" {
			n = i + 1
		}
	}
	if _, err := s2.Remove(1); err == nil {
		t.Error("removed a rule of the settings file")
	}
	if _, err := s2.Remove(n); err != nil {
		t.Fatal(err)
	}
	s3, _ := Load(ws, pol)
	if _, ok := s3.Allowed("command", "make all", ""); ok {
		t.Error("the removed rule still allows")
	}
	if err := s3.Add(Rule{Kind: "web", Pattern: "https://x"}, ScopeProject); err == nil {
		t.Error("saved a pattern that matches nothing")
	}
}
