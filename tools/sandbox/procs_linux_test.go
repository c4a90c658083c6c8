//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// In its own pid namespace a command sees and reaches only its own
// processes: kill -1 spares a process outside.
func TestPIDNamespace(t *testing.T) {
	tr := newTree(t)
	s := mustSandbox(t, tr.policy, Bwrap)
	bystander := exec.Command("sleep", "60")
	if err := bystander.Start(); err != nil {
		t.Fatal(err)
	}
	defer bystander.Process.Kill()
	out, code := runIn(t, s, tr.ws, `echo "pid $$"; ls -d /proc/[0-9]* | wc -l; kill -9 -1; echo after`)
	if !strings.Contains(out, "pid 2\n") {
		t.Errorf("bash is not pid 2 of its own namespace: exit %d %q", code, out)
	}
	if err := bystander.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("kill -1 in the sandbox reached a process outside: %v", err)
	}
}

// /tmp is the session's own: the machine's temp files are out of sight,
// what a command leaves there is kept for the next one, and Cleanup
// removes it.
func TestPrivateTmp(t *testing.T) {
	for _, k := range kinds {
		t.Run(string(k), func(t *testing.T) {
			tr := newTree(t)
			s := mustSandbox(t, tr.policy, k)
			marker, err := os.CreateTemp("", "aci-host-temp-")
			if err != nil {
				t.Fatal(err)
			}
			marker.Close()
			defer os.Remove(marker.Name())
			out, _ := runIn(t, s, tr.ws, `echo kept > "${TMPDIR:-/tmp}/scratch"; ls `+marker.Name()+` 2>&1`, s.Env()...)
			if k == Bwrap && !strings.Contains(out, "No such file") {
				t.Errorf("the machine's /tmp is visible: %q", out)
			}
			priv := s.PrivateTmp()
			if b, err := os.ReadFile(filepath.Join(priv, "scratch")); err != nil || string(b) != "kept\n" {
				t.Errorf("private tmp %s: %q %v", priv, b, err)
			}
			if out, _ := runIn(t, s, tr.ws, `cat "${TMPDIR:-/tmp}/scratch"`, s.Env()...); out != "kept\n" {
				t.Errorf("the next command does not find it: %q", out)
			}
			cleanupForTest()
			if _, err := os.Stat(priv); err == nil {
				t.Errorf("%s left after Cleanup", priv)
			}
		})
	}
}

// A contained command can neither change nor create the protected files:
// an existing one is read-only (the failure says why), a new one is moved
// out once the command is released; no stand-in is left in the workspace.
func TestProtectedContained(t *testing.T) {
	tr := newTree(t)
	os.WriteFile(filepath.Join(tr.ws, ".env"), []byte("OPENAI_MODEL=m\n"), 0o600)
	os.WriteFile(filepath.Join(tr.ws, "AGENTS.md"), []byte("rules\n"), 0o644)
	os.WriteFile(filepath.Join(tr.ws, ".env.local"), []byte("X=1\n"), 0o600)
	tr.policy.Protected, tr.policy.StandIns = protectedCandidates(tr.ws, tr.ws)
	s := mustSandbox(t, tr.policy, Bwrap)
	for _, tc := range []struct {
		script string
		moved  string // "": refused; else the file moved away afterwards
	}{
		{"echo OPENAI_BASE_URL=http://evil >> .env", ""}, {"echo more >> AGENTS.md", ""}, {"rm AGENTS.md", ""},
		{"echo Y=2 >> .env.local", ""}, {"echo rules > CLAUDE.md", "CLAUDE.md"},
		{"mkdir -p .vscode && echo {} > .vscode/tasks.json", ".vscode"}, {"echo {} > .mcp.json", ".mcp.json"},
		{"echo x > .envrc", ".envrc"}, {"mkdir .aci && echo {} > .aci/settings.json", ".aci"},
	} {
		argv, release, err := s.Command([]string{"bash", "-c", tc.script}, tr.ws)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = tr.ws
		out, err := cmd.CombinedOutput()
		moved := strings.Join(release(), "\n")
		switch {
		case tc.moved != "":
			if err != nil || !strings.HasPrefix(moved, tc.moved+" (moved to ") {
				t.Errorf("%s: err %v, moved %q", tc.script, err, moved)
			}
		case err == nil:
			t.Errorf("%s: succeeded", tc.script)
		default:
			if why := s.Explain(string(out), 1, tr.ws); !strings.Contains(why, "is protected") {
				t.Errorf("%s: explained as %q (output %q)", tc.script, why, out)
			}
		}
	}
	for name, want := range map[string]string{".env": "OPENAI_MODEL=m\n", "AGENTS.md": "rules\n", ".env.local": "X=1\n"} {
		if b, _ := os.ReadFile(filepath.Join(tr.ws, name)); string(b) != want {
			t.Errorf("%s = %q", name, b)
		}
	}
	ents, _ := os.ReadDir(tr.ws)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != ".env .env.local AGENTS.md main.go" {
		t.Errorf("the workspace holds %s", got)
	}
	// git init, config and remote add still work (.git/config does not
	// exist before, and is protected by the guard, not here).
	out, code := runIn(t, s, tr.ws, "git init -q . && git config user.name me && git remote add origin https://example.com/r.git && git config --get remote.origin.url")
	if code != 0 || !strings.Contains(out, "example.com/r.git") {
		t.Errorf("git: exit %d %q", code, out)
	}
	cleanupForTest()
}
