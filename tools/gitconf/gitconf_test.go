package gitconf

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Each surface of git config a command may use to make the person's git
// run, read or reach something is taken out; the inert settings git
// init, clone, remote add and branch tracking write stay.
func TestWhy(t *testing.T) {
	ws := t.TempDir()
	gd := filepath.Join(ws, "repo", ".git", "modules", "sub")
	at := Place{GitDir: gd, Workspace: []string{ws}}
	cases := []struct {
		key, value string
		ok         bool
	}{
		{"core.repositoryformatversion", "0", true},
		{"core.bare", "false", true},
		{"core.filemode", "true", true},
		{"core.logallrefupdates", "true", true},
		{"extensions.objectformat", "sha256", true},
		{"extensions.worktreeconfig", "true", true},
		{"remote.origin.url", "https://example.com/a.git", true},
		{"remote.origin.url", "git@github.com:a/b.git", true},
		{"remote.origin.url", "ssh://git@host:22/a", true},
		{"remote.origin.url", "../other", true},
		{"remote.origin.url", "/srv/repo.git", true},
		{"remote.origin.url", "file:///srv/repo.git", true},
		{"remote.Origin.Url", "ssh://[::1]/x", true},
		{"remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*", true},
		{"branch.main.remote", "origin", true},
		{"branch.main.merge", "refs/heads/main", true},
		{"branch.feature/x.rebase", "true", true},
		{"user.name", "model", true},
		{"submodule.lib.url", "https://h/lib", true},
		{"submodule.lib.update", "rebase", true},
		{"core.worktree", "../../../sub", true},

		{"remote.origin.url", "ext::sh -c touch% /tmp/x", false},
		{"remote.origin.url", "fd::3", false},
		{"remote.origin.pushurl", "ext::sh", false},
		{"remote.origin.url", "foo://host/x", false},
		{"remote.origin.url", "ssh://-oProxyCommand=touch/x", false},
		{"remote.origin.url", "-oProxyCommand=x:y", false},
		{"remote.origin.url", "-upload-pack=touch", false},
		{"branch.main.remote", "ext::sh -c touch x", false},
		{"submodule.lib.url", "ext::sh -c x", false},
		{"submodule.lib.update", "!touch x", false},
		{"protocol.ext.allow", "always", false},
		{"protocol.allow", "always", false},
		{"core.worktree", "/root", false},
		{"core.worktree", "../../../../..", false},
		{"core.fsmonitor", "touch x", false},
		{"core.hookspath", "hooks2", false},
		{"core.sshcommand", "touch x", false},
		{"core.pager", "touch x", false},
		{"core.attributesfile", "/tmp/a", false},
		{"core.excludesfile", "/tmp/a", false},
		{"http.sslkey", "/root/.ssh/id", false},
		{"http.proxy", "http://evil", false},
		{"init.templatedir", "/tmp/t", false},
		{"include.path", "x.cfg", false},
		{"includeif.gitdir:/.path", "x.cfg", false},
		{"url.ext::sh -c x.insteadof", "https://h/", false},
		{"credential.helper", "!touch x", false},
		{"gpg.program", "touch", false},
		{"diff.external", "touch", false},
		{"alias.st", "!touch x", false},
		{"filter.lfs.clean", "git-lfs clean -- %f", false},
		{"remote.origin.uploadpack", "touch x", false},
		{"remote.origin.vcs", "ext", false},
		{"core.bare", "maybe", false},
		{"user.name", "a\x1b[2Jb", false},
		{"nosection", "x", false},
	}
	for _, c := range cases {
		why := Why(Entry{Key: c.key, Value: c.value}, at)
		if (why == "") != c.ok {
			t.Errorf("%s=%q: why %q, want allowed=%v", c.key, c.value, why, c.ok)
		}
	}
}

// What Render writes, git reads back as the same entries, whatever the
// values hold; Parse reads what git reads, not what a line looks like.
func TestRenderParse(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	in := []Entry{
		{Key: "core.bare", Value: "false"},
		{Key: "core.filemode", NoValue: true},
		{Key: "remote.we\"ird\\name.url", Value: `C:\path "q" # ; x`},
		{Key: "remote.we\"ird\\name.fetch", Value: "a\tb"},
		{Key: "core.symlinks", Value: "true"},
		{Key: "user.name", Value: " padded "},
	}
	got, err := Parse(context.Background(), Render(in))
	if err != nil || !slices.Equal(got, in) {
		t.Fatalf("round trip: %v %+v\n%s", err, got, Render(in))
	}
	// A continuation line and a comment do not hide a key from git.
	tricky := "[core]\n\tbare = false \\\n\n[remote \"o\"] url = ext::sh -c x ; c\n"
	got, err = Parse(context.Background(), []byte(tricky))
	if err != nil || !slices.ContainsFunc(got, func(e Entry) bool { return e.Key == "remote.o.url" && strings.HasPrefix(e.Value, "ext::") }) {
		t.Fatalf("parse: %v %+v", err, got)
	}
	if _, err := Parse(context.Background(), []byte("[core\nbare")); err == nil {
		t.Error("a file git cannot read parsed")
	}
}

func TestDiff(t *testing.T) {
	a, b, c := Entry{Key: "x.a", Value: "1"}, Entry{Key: "x.b", Value: "1"}, Entry{Key: "x.a", Value: "2"}
	added, removed := Diff([]Entry{a, b, a}, []Entry{a, c, b})
	if !slices.Equal(added, []Entry{c}) || !slices.Equal(removed, []Entry{a}) {
		t.Errorf("added %v removed %v", added, removed)
	}
}
