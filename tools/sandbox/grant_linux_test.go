//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runGranted is runIn for a command given g.
func runGranted(t *testing.T, s *Sandbox, dir, script string, g Grant) (string, int) {
	t.Helper()
	argv, err := s.WrapGranted([]string{"bash", "-c", script}, dir, nil, g)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = Environ(os.Environ())
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

// A grant makes its paths writable for that command only: a folder
// outside the workspace can be deleted from a granted parent, while what
// stays read-only (startup files) and hidden (secret stores) inside it
// stays so, and the next command without the grant cannot write there.
func TestGrantWrite(t *testing.T) {
	for _, k := range kinds {
		t.Run(string(k), func(t *testing.T) {
			tr := newTree(t)
			t.Setenv("HOME", tr.home)
			s := mustSandbox(t, tr.policy, k)
			// Under Landlock a folder that holds a secret store is granted
			// entry by entry, so nothing can be deleted right in it: the
			// deleted folder's parent holds none here.
			parent := filepath.Join(tr.root, "data")
			if k == Bwrap {
				parent = tr.home
			}
			proj := filepath.Join(parent, "proj")
			os.MkdirAll(proj, 0o755)
			os.WriteFile(filepath.Join(proj, "f"), []byte("x"), 0o644)
			if out, code := runIn(t, s, tr.ws, "rm -rf "+proj); code == 0 {
				t.Fatalf("deleted %s without a grant: %s", proj, out)
			}
			g := Grant{Write: []string{parent}}
			if out, code := runGranted(t, s, tr.ws, "rm -rf "+proj, g); code != 0 {
				t.Fatalf("granted delete: exit %d: %s", code, out)
			}
			if _, err := os.Stat(proj); err == nil {
				t.Errorf("%s is still there", proj)
			}
			if out, code := runGranted(t, s, tr.ws, "cat "+filepath.Join(tr.home, ".ssh", "id_rsa"), g); code == 0 || strings.Contains(out, "PRIVATE") {
				t.Errorf("a grant of home showed ~/.ssh: %s", out)
			}
			if k == Bwrap { // Landlock cannot carve a read-only file out of a writable tree
				if out, code := runGranted(t, s, tr.ws, "echo pwned >> "+filepath.Join(tr.home, ".bashrc"), g); code == 0 {
					t.Errorf("a grant of home made ~/.bashrc writable: %s", out)
				}
			}
			if out, code := runIn(t, s, tr.ws, "touch "+filepath.Join(parent, "later")); code == 0 {
				t.Errorf("the grant outlived its command: %s", out)
			}
		})
	}
}

// A command with the session's own /tmp sees the machine's /tmp paths it
// named, read-only; the file windows find a /tmp path where the commands
// see it (HostPath).
func TestGrantMachineTmp(t *testing.T) {
	tr := newTree(t)
	s := mustSandbox(t, tr.policy, Bwrap)
	real, err := os.MkdirTemp("/tmp", "aci-sbx-machine-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(real) })
	f := filepath.Join(real, "f")
	os.WriteFile(f, []byte("MACHINE-CONTENT"), 0o644)
	if out, _ := runIn(t, s, tr.ws, "cat "+f); strings.Contains(out, "MACHINE-CONTENT") {
		t.Fatalf("without the grant the command saw the machine's /tmp: %s", out)
	}
	g := Grant{Machine: []string{f}}
	if out, code := runGranted(t, s, tr.ws, "cat "+f, g); code != 0 || out != "MACHINE-CONTENT" {
		t.Errorf("named machine path: exit %d: %q", code, out)
	}
	if out, code := runGranted(t, s, tr.ws, "echo x > "+f, g); code == 0 {
		t.Errorf("a named machine path was writable: %s", out)
	}
	// Scratch: what a command writes to /tmp is where the file window looks.
	name := "/tmp/" + filepath.Base(real) + "-scratch"
	if out, code := runIn(t, s, tr.ws, "echo scratch > "+name); code != 0 {
		t.Fatalf("scratch write: %s", out)
	}
	if got := s.HostPath(name); got == name || !strings.HasPrefix(got, s.PrivateTmp()) {
		t.Errorf("HostPath(%s) = %s, want it in %s", name, got, s.PrivateTmp())
	} else if b, _ := os.ReadFile(got); string(b) != "scratch\n" {
		t.Errorf("%s holds %q", got, b)
	}
	if !s.Adds(g) || s.Adds(Grant{Machine: []string{filepath.Join(tr.ws, "x")}}) || s.Adds(Grant{}) {
		t.Errorf("Adds: a named machine path adds, one in the workspace or none does not")
	}
	if got := s.HostPath(f); got != f {
		t.Errorf("HostPath(%s) = %s, want the machine's", f, got)
	}
	if got := s.HostPath(tr.ws); got != tr.ws {
		t.Errorf("HostPath(%s) = %s", tr.ws, got)
	}
}

// A grant of the home folder (rm -rf ~/junk; python3 payload.py) makes ~
// writable minus what runs code or holds settings later: the start-up
// files, keys, ~/.local/bin, systemd units and aci's own configuration
// can be neither created nor changed, renaming a parent does not carry
// them away, and what the command created anyway is gone after it and
// named; the named deletion happened.
func TestGrantKeepsProtectedHomePaths(t *testing.T) {
	tr := newTree(t)
	t.Setenv("HOME", tr.home)
	t.Setenv("XDG_CONFIG_HOME", "")
	os.MkdirAll(filepath.Join(tr.home, "junk"), 0o755)
	os.MkdirAll(filepath.Join(tr.home, ".config", "other"), 0o755)
	s := mustSandbox(t, tr.policy, Bwrap)
	created := []string{".profile", ".bash_profile", ".gitconfig", ".config/git/config", ".ssh/authorized_keys", ".local/bin/git",
		".config/systemd/user/evil.service", ".config/aci/.env", ".config/autostart/evil.desktop", ".zshrc"}
	script := "rm -rf ~/junk; python3 -c \"\nimport os\nhome = os.environ['HOME']\nfor rel in " + pyList(created) + ":\n" +
		"    p = os.path.join(home, rel)\n    try:\n        os.makedirs(os.path.dirname(p), exist_ok=True)\n        open(p, 'w').write('evil')\n    except OSError as e:\n        print(e)\n\"; " +
		"echo evil >> ~/.bashrc; mv ~/.config ~/.cfgx; mkdir -p ~/.config/git && echo evil > ~/.config/git/config; true"
	argv, release, err := s.CommandGranted([]string{"bash", "-c", script}, tr.ws, nil, Grant{Write: []string{tr.home}})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = tr.ws
	cmd.Env = append(Environ(os.Environ()), "HOME="+tr.home)
	out, _ := cmd.CombinedOutput()
	notes := release()
	t.Logf("output: %s\nnotes: %q", out, notes)
	for _, rel := range created {
		if b, err := os.ReadFile(filepath.Join(tr.home, rel)); err == nil && string(b) == "evil" {
			t.Errorf("~/%s was created", rel)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(tr.home, ".bashrc")); string(b) != "# original bashrc\n" {
		t.Errorf("~/.bashrc = %q", b)
	}
	if _, err := os.Stat(filepath.Join(tr.home, "junk")); err == nil {
		t.Error("~/junk, granted, was not deleted")
	}
	if _, err := os.Stat(filepath.Join(tr.home, ".config", "other")); err != nil {
		t.Error("~/.config was carried away by a rename")
	}
	if j := strings.Join(notes, "\n"); !strings.Contains(j, ".profile") || !strings.Contains(j, "a grant never covers it") {
		t.Errorf("notes: %q", notes)
	}
}

func pyList(items []string) string {
	return "['" + strings.Join(items, "', '") + "']"
}

// A granted path reaches the machine's file whatever ".." or links the
// command names it by: the folders a ".." climbs out of are there as on
// the machine (the guard names them in Machine), and a link on the way
// is a link to the granted target, not a read-only copy of it.
func TestGrantReachesTheRealPath(t *testing.T) {
	tr := newTree(t)
	s := mustSandbox(t, tr.policy, Bwrap)
	base, err := os.MkdirTemp("/tmp", "aci-grant-real-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.MkdirAll(filepath.Join(base, "a", "b"), 0o755)
	os.MkdirAll(filepath.Join(base, "c", "d"), 0o755)
	os.WriteFile(filepath.Join(base, "c", "d", "f"), []byte("x"), 0o644)
	target := filepath.Join(tr.root, "elsewhere")
	os.MkdirAll(filepath.Join(target, "old"), 0o755)
	os.Symlink(target, filepath.Join(base, "lnk"))

	g := Grant{Write: []string{filepath.Join(base, "c")}, Machine: []string{filepath.Join(base, "a", "b"), filepath.Join(base, "c", "d")}}
	dotted := filepath.Join(base, "a", "b", "..", "..", "c", "d")
	if out, code := runGranted(t, s, tr.ws, "rm -rf "+dotted, g); code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	if _, err := os.Lstat(filepath.Join(base, "c", "d")); err == nil {
		t.Errorf("%s reported done, but c/d is still on the machine", dotted)
	}
	g = Grant{Write: []string{target}, Machine: []string{filepath.Join(base, "lnk", "old")}}
	if out, code := runGranted(t, s, tr.ws, "rm -rf "+filepath.Join(base, "lnk", "old")+" && echo new > "+filepath.Join(base, "lnk", "new"), g); code != 0 {
		t.Fatalf("through the link: exit %d: %s", code, out)
	}
	if _, err := os.Lstat(filepath.Join(target, "old")); err == nil {
		t.Error("the folder behind the link is still there")
	}
	if b, _ := os.ReadFile(filepath.Join(target, "new")); string(b) != "new\n" {
		t.Errorf("the file written through the link: %q", b)
	}
}
