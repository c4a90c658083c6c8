package e2e

import (
	"os"
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
		d, err := os.MkdirTemp("/tmp", "aci-e2e-approve-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		return filled(t, d)
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
		fakeai.Reply{Content: fakeai.ToolCall(
			call("launcher", "open", map[string]any{"app": "bash"}),
			call("bash_1", "run", map[string]any{"command": "rm -rf " + target}),
		)},
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
			r := aci(t, dir, srv, "clean the build", nil, "--yes")
			if r.code != 0 {
				t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
			}
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
	real, err := os.MkdirTemp("/tmp", "aci-e2e-agree-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(real) })
	os.WriteFile(filepath.Join(real, "machine.txt"), []byte("from-the-machine\n"), 0o644)
	made := real + "-made.txt" // does not exist on the machine: the session's scratch
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(
			call("launcher", "open", map[string]any{"app": "bash"}),
			call("bash_1", "run", map[string]any{"command": "cat " + filepath.Join(real, "machine.txt") + "; echo made-by-bash > " + made}),
		)},
		fakeai.Reply{Content: fakeai.ToolCall(
			call("launcher", "open", map[string]any{"app": "file", "target": made}),
		)},
		fakeai.Reply{Content: "done"},
	)
	r := aci(t, t.TempDir(), srv, "look", nil)
	if r.code != 0 {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) < 3 {
		t.Fatalf("%d model requests", len(reqs))
	}
	bash := reqs[1].Messages[len(reqs[1].Messages)-1].Content
	if !strings.Contains(bash, "from-the-machine") {
		t.Errorf("the bash window did not see %s/machine.txt, which the file window sees:\n%s", real, bash)
	}
	file := reqs[2].Messages[len(reqs[2].Messages)-1].Content
	if !strings.Contains(file, "made-by-bash") {
		t.Errorf("the file window did not see %s, which the bash window wrote:\n%s", made, file)
	}
	if _, err := os.Stat(made); err == nil {
		t.Errorf("%s reached the machine's /tmp", made)
	}
}
