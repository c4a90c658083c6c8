package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// planted are home-relative places whose content runs later, outside the
// sandbox: caches a tool or prompt reads as code, module sources, folders
// on PATH, shell startup files, site-packages.
var planted = []string{
	".cache/p10k-instant-prompt-me.zsh", ".cache/pre-commit/repo/hook.py", "go/pkg/mod/example.com/m@v1.0.0/m.go",
	".cargo/registry/src/build.rs", ".m2/repository/evil.jar", ".gradle/wrapper/dists/gradle.jar",
	".deno/bin/git", ".local/share/pnpm/ls", ".local/bin/ls", ".npm-global/bin/ls", ".cargo/bin/cargo", "go/bin/gopls",
	".pyenv/shims/python", ".bashrc", ".profile", ".zshrc", ".config/fish/config.fish",
	".local/lib/python3.11/site-packages/evil.pth", ".npm/_cacache/index",
}

// A command the guard lets through (a script in the workspace: the paths
// are computed inside it, by sh, python and node) writes to every place
// outside the workspace that runs later; after aci exits, none of it is on
// the machine, and the person's next shell, PATH lookup and build find what
// was there.
func TestE2EWritesOutsideWorkspaceStayOut(t *testing.T) {
	work := t.TempDir()
	containedOrSkip(t, work)
	base, err := os.UserCacheDir()
	if err != nil || strings.HasPrefix(base, "/tmp/") {
		t.Skip("no home-like folder outside /tmp (the session's /tmp hides one there)")
	}
	os.MkdirAll(base, 0o755)
	root, err := os.MkdirTemp(base, "aci-e2e-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { exec.Command("chmod", "-R", "u+w", root).Run(); os.RemoveAll(root) })
	home := filepath.Join(root, "home")
	for _, rel := range planted {
		os.MkdirAll(filepath.Dir(filepath.Join(home, rel)), 0o755)
	}
	os.WriteFile(filepath.Join(home, "go/pkg/mod/example.com/m@v1.0.0/m.go"), []byte("package m\n"), 0o444)
	os.WriteFile(filepath.Join(home, ".bashrc"), []byte("# rc\n"), 0o644)
	path := os.Getenv("PATH")
	for _, d := range []string{".deno/bin", ".local/share/pnpm", ".local/bin", ".npm-global/bin", ".cargo/bin", "go/bin", ".pyenv/shims"} {
		path = filepath.Join(home, d) + ":" + path
	}
	// The paths are data the scripts read: no spelling the guard could
	// judge, as a build script computing them would have.
	var targets strings.Builder
	for _, rel := range planted {
		targets.WriteString(filepath.Join(home, rel) + "\n")
	}
	os.WriteFile(filepath.Join(work, "targets"), []byte(targets.String()), 0o644)
	// The shell's part is data too: plant.py hands it to sh.
	os.WriteFile(filepath.Join(work, "plant.txt"), []byte("while IFS= read -r p; do printf pwned > \"$p\" 2>/dev/null && echo \"sh wrote $p\"; done < targets\n"), 0o755)
	os.WriteFile(filepath.Join(work, "plant.py"), []byte("import subprocess\nsubprocess.run(['sh', 'plant.txt'])\nfor p in open('targets').read().split():\n    try:\n        open(p, 'w').write('pwned'); print('python wrote', p)\n    except OSError: pass\n"), 0o644)
	os.WriteFile(filepath.Join(work, "plant.js"), []byte("const fs = require('fs')\nfor (const p of fs.readFileSync('targets', 'utf8').split('\\n').filter(Boolean)) { try { fs.writeFileSync(p, 'pwned'); console.log('node wrote', p) } catch (e) {} }\n"), 0o644)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	cmd := "python3 plant.py"
	if _, err := exec.LookPath("node"); err == nil {
		cmd += "; node plant.js"
	}
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}), call("bash_1", "run", map[string]any{"command": cmd, "timeout_s": 120}))},
		fakeai.Reply{Content: "done"},
	)
	r := aci(t, work, srv, "", []string{"HOME=" + home, "PATH=" + path, "PNPM_HOME=" + filepath.Join(home, ".local/share/pnpm")}, "-p", "set things up")
	if r.code != 0 {
		t.Fatalf("aci: exit %d\n%s", r.code, r.stderr)
	}
	got := lastMessage(srv)
	t.Logf("inside the sandbox:\n%s", got)
	if !strings.Contains(got, "wrote "+filepath.Join(home, ".cache/p10k-instant-prompt-me.zsh")) {
		t.Errorf("a layered cache refused the write in the session: %s", got)
	}
	if !strings.Contains(got, `action_id="run" status="ok"`) {
		t.Fatalf("the command did not run")
	}
	for _, d := range []string{".deno/bin/", ".local/share/pnpm/", ".local/bin/", ".bashrc", ".profile", "site-packages", "shims"} {
		for _, line := range strings.Split(got, "\n") {
			if strings.Contains(line, " wrote ") && strings.Contains(line, d) {
				t.Errorf("written even inside the sandbox: %s", line)
			}
		}
	}
	for _, rel := range planted {
		if b, err := os.ReadFile(filepath.Join(home, rel)); err == nil && strings.Contains(string(b), "pwned") {
			t.Errorf("~/%s reached the machine", rel)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(home, "go/pkg/mod/example.com/m@v1.0.0/m.go")); string(b) != "package m\n" {
		t.Errorf("the module's source changed: %q", b)
	}
	// The person's next ordinary actions: a PATH lookup and a new shell.
	next := exec.Command("bash", "-c", "command -v ls; ls >/dev/null && echo fine")
	next.Env = []string{"HOME=" + home, "PATH=" + path}
	if out, err := next.CombinedOutput(); err != nil || !strings.HasSuffix(string(out), "fine\n") || strings.Contains(string(out), home) {
		t.Errorf("the next shell: %v %s", err, out)
	}
}
