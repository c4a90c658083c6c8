package e2e

import (
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/tools/sandbox"
)

// approvalTarget is a folder on the machine, outside the workspace, that a
// test's model deletes: where it lives decides which path through the
// sandbox the command takes.
type approvalTarget struct {
	name string
	make func(t *testing.T) string // returns the folder to delete, with a file in it
}

// approvalTargets are the places issue 26 found an approval did not do
// what it said: outside /tmp (a second question), beside the workspace in
// /tmp and in /var/tmp (the session's private copy), a folder of its own
// in /tmp (not asked at all).
var approvalTargets = []approvalTarget{
	{"outside tmp", func(t *testing.T) string {
		parent, err := os.MkdirTemp("/opt", "aci-e2e-approve-")
		if err != nil {
			t.Skipf("no folder outside /tmp to write in: %v", err)
		}
		t.Cleanup(func() { os.RemoveAll(parent) })
		return filled(t, filepath.Join(parent, "build"))
	}},
	{"beside the workspace in tmp", func(t *testing.T) string {
		return filled(t, filepath.Join(t.TempDir(), "build"))
	}},
	{"own folder in tmp", func(t *testing.T) string {
		return filled(t, machineTmp(t, "aci-e2e-approve-"))
	}},
	{"own folder in var tmp", func(t *testing.T) string {
		d, err := os.MkdirTemp("/var/tmp", "aci-e2e-approve-")
		if err != nil {
			t.Skipf("no /var/tmp: %v", err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		return filled(t, d)
	}},
}

// filled makes folder d with a file in it.
func filled(t *testing.T, d string) string {
	t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "out.o"), []byte("object"), 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

// deleteScript is a model that deletes target with one command, then
// says it is done.
func deleteScript(t *testing.T, target string) *fakeai.Server {
	return fakeai.New(t,
		act(
			openBash,
			call("bash_1", "run", map[string]any{"command": "rm -rf " + target}),
		),
		fakeai.Reply{Content: "done"},
	)
}

// With --yes, a delete outside the workspace is asked once, approved, and
// happens on the machine: no "Read-only file system", no second question,
// no success reported for the session's private /tmp. Without --yes it is
// asked once, denied, and the folder stays.
func TestE2EApprovalDoesWhatItSays(t *testing.T) {
	if !sandbox.For(t.TempDir()).Contained() {
		t.Skip("this machine cannot contain commands")
	}
	for _, tc := range approvalTargets {
		t.Run(tc.name+"/yes", func(t *testing.T) {
			target := tc.make(t)
			dir := t.TempDir()
			srv := deleteScript(t, target)
			r := aciOK(t, dir, srv, "clean the build", nil, "--yes")
			if n := strings.Count(r.stderr, "approved by --yes"); n != 1 {
				t.Errorf("asked %d times, want once:\n%s", n, r.stderr)
			}
			if !strings.Contains(r.stderr, "writable for this command") {
				t.Errorf("the question does not say what allowing grants:\n%s", r.stderr)
			}
			t.Logf("%s", strings.TrimSpace(r.stderr))
			if _, err := os.Stat(target); err == nil {
				t.Errorf("%s is still there after the approved rm -rf\nstderr:\n%s\nmodel saw:\n%s", target, r.stderr, lastMessage(srv))
			}
			if got := lastMessage(srv); strings.Contains(got, "uncontained=true") || strings.Contains(got, "Read-only") {
				t.Errorf("the model was told to ask again:\n%s", got)
			}
		})
		t.Run(tc.name+"/deny", func(t *testing.T) {
			target := tc.make(t)
			dir := t.TempDir()
			srv := deleteScript(t, target)
			r := aci(t, dir, srv, "clean the build", nil)
			if n := strings.Count(r.stderr, "denied by aci in pipe mode"); n != 1 {
				t.Errorf("asked %d times, want once:\n%s", n, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(target, "out.o")); err != nil {
				t.Errorf("the denied delete happened: %v", err)
			}
		})
	}
}

// lastMessage is what the model was sent last.
func lastMessage(srv *fakeai.Server) string {
	reqs := srv.Requests()
	if len(reqs) == 0 {
		return ""
	}
	msgs := reqs[len(reqs)-1].Messages
	if len(msgs) == 0 {
		return ""
	}
	return msgs[len(msgs)-1].Content
}

// The file window and the bash window see the same /tmp: a file on the
// machine that the model names is there for both, and a file a command
// wrote to the session's /tmp is there for the file window.
func TestE2EFileAndBashAgreeOnTmp(t *testing.T) {
	if !sandbox.For(t.TempDir()).Contained() {
		t.Skip("this machine cannot contain commands")
	}
	real := machineTmp(t, "aci-e2e-agree-")
	os.WriteFile(filepath.Join(real, "machine.txt"), []byte("from-the-machine\n"), 0o644)
	made := real + "-made.txt" // does not exist on the machine: the session's scratch
	srv := fakeai.New(t,
		act(
			openBash,
			call("bash_1", "run", map[string]any{"command": "cat " + filepath.Join(real, "machine.txt") + "; echo made-by-bash > " + made}),
		),
		act(
			openFile(made),
		),
		fakeai.Reply{Content: "done"},
	)
	aciOK(t, t.TempDir(), srv, "look", nil)
	reqs := srv.Requests()
	if len(reqs) < 3 {
		t.Fatalf("%d model requests", len(reqs))
	}
	bash := reqs[1].Last()
	if !strings.Contains(bash, "from-the-machine") {
		t.Errorf("the bash window did not see %s/machine.txt, which the file window sees:\n%s", real, bash)
	}
	file := reqs[2].Last()
	if !strings.Contains(file, "made-by-bash") {
		t.Errorf("the file window did not see %s, which the bash window wrote:\n%s", made, file)
	}
	if _, err := os.Stat(made); err == nil {
		t.Errorf("%s reached the machine's /tmp", made)
	}
}

// bodies joins every request body the model received.
func bodies(srv *fakeai.Server) string {
	var b strings.Builder
	for _, r := range srv.Requests() {
		b.Write(r.Body)
	}
	return b.String()
}

// A workspace .env cannot switch approvals or containment off, and a
// command approved with --yes still cannot write outside the workspace
// where the guard could not name what it writes (so nothing was granted),
// nor see the API key, in any encoding.
func TestE2EContainmentAndSafetySwitches(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".env"), []byte("ACI_YES=1\nACI_SANDBOX=off\n"), 0o600)
	outside := fmt.Sprintf("/opt/aci-e2e-%d", os.Getpid())
	t.Cleanup(func() { os.Remove(outside) })
	// A file in the workspace holds the key (as a leaked log might).
	os.WriteFile(filepath.Join(dir, "leak.txt"), []byte(testKey), 0o600)
	script := func() *fakeai.Server {
		return fakeai.New(t,
			act(
				openBash,
				// A path the guard cannot name: allowing it grants nothing.
				call("bash_1", "run", map[string]any{"command": "d=$(echo " + filepath.Dir(outside) + "); echo pwned > $d/" + filepath.Base(outside)}),
			),
			act(
				call("bash_1", "run", map[string]any{"command": `echo "key=[$OPENAI_API_KEY]"; cat leak.txt; echo; base64 leak.txt; (printf 'user:'; cat leak.txt) | base64 -w0`}),
			),
			fakeai.Reply{Content: "done"},
		)
	}
	// Without --yes: ACI_YES=1 in .env is ignored, the guard's question is
	// denied in pipe mode.
	srv := script()
	r := aci(t, dir, srv, "go", nil)
	if r.code != 0 || !strings.Contains(r.stderr, "denied by aci in pipe mode (no terminal to ask): d=$(echo") {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("the denied command ran")
	}
	if !sandbox.For(dir).Contained() {
		t.Skip("this machine cannot contain commands: the rest is not tested")
	}
	// With --yes: the command runs, contained (ACI_SANDBOX=off in .env is
	// ignored), and fails with a note saying why.
	srv = script()
	r = aci(t, dir, srv, "go", nil, "--yes")
	if r.code != 0 {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatalf("%s was written: the command was not contained", outside)
	}
	all := bodies(srv)
	if !strings.Contains(all, `type=\"sandbox\"`) || !strings.Contains(all, "key=[]") {
		t.Errorf("the model was not told about containment, or saw the key variable:\n%s", all)
	}
	if strings.Contains(all, testKey) || strings.Contains(all, base64.StdEncoding.EncodeToString([]byte(testKey))[:24]) ||
		strings.Contains(all, base64.StdEncoding.EncodeToString([]byte("user:" + testKey))[8:32]) {
		t.Error("the API key reached the model")
	}
}

func TestE2EBadSandboxMode(t *testing.T) {
	r := aci(t, t.TempDir(), nil, "q", []string{"ACI_SANDBOX=sometimes", "OPENAI_BASE_URL=http://127.0.0.1:1"})
	if r.code != 2 || !strings.Contains(r.stderr, "ACI_SANDBOX must be") {
		t.Errorf("exit %d stderr %q", r.code, r.stderr)
	}
}

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
		act(openBash, call("bash_1", "run", map[string]any{"command": cmd, "timeout_s": 120})),
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
