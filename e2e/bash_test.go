package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testutil"
)

func TestDangerousCommandDeniedInPipeMode(t *testing.T) {
	dir := t.TempDir()
	home := t.TempDir()
	sentinel := filepath.Join(home, "precious", "sentinel")
	os.MkdirAll(filepath.Dir(sentinel), 0o755)
	os.WriteFile(sentinel, []byte("keep me"), 0o644)
	script := func() *fakeai.Server {
		return fakeai.New(t,
			act(
				openBash,
				bashRun("rm -rf ~/precious"),
			),
			fakeai.Reply{Content: "done"},
		)
	}
	srv := script()
	r := aci(t, dir, srv, "clean up", []string{"HOME=" + home})
	if r.code != 0 || !strings.Contains(r.stderr, "denied by aci in pipe mode (no terminal to ask): rm -rf ~/precious") {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(sentinel); err != nil {
		t.Fatal("the denied command ran")
	}
	res := srv.Requests()[1].Messages
	if got := res[len(res)-1].Content; !strings.Contains(got, `status="denied"`) || !strings.Contains(got, "--yes") {
		t.Errorf("the model is not told how to proceed:\n%s", got)
	}
	// With --yes the guard lets it run; the sandbox is off, since the test's
	// home lies under /tmp, which a contained command sees as its own.
	srv = script()
	r = aci(t, dir, srv, "clean up", []string{"HOME=" + home, "ACI_SANDBOX=off"}, "--yes")
	if r.code != 0 || !strings.Contains(r.stderr, "approved by --yes: rm -rf ~/precious") {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(sentinel); err == nil {
		t.Fatal("--yes did not run the command")
	}
}

func TestBackgroundTaskShowsInWindow(t *testing.T) {
	dir := t.TempDir()
	srv := fakeai.New(t,
		act(
			openBash,
			call("bash_1", "start", map[string]any{"command": "echo task-output-line"}),
		),
		act(bashRun("sleep 0.5")),
		fakeai.Reply{Content: "ok"},
	)
	r := aci(t, dir, srv, "start it", nil)
	if r.code != 0 || !strings.Contains(r.stderr, "start echo task-output-line in the background · started") {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	// The latest rendering of bash_1, wherever it sits in the history.
	msgs := srv.Requests()[2].Messages
	all := ""
	for _, m := range msgs {
		all += m.Content
	}
	win := all[strings.LastIndex(all, `<window id="bash_1"`):]
	win = win[:strings.Index(win, "</window>")]
	if !strings.Contains(all, "completed (exit 0)") || !strings.Contains(all, "task-output-line") || strings.Contains(win, "running for") {
		t.Errorf("window does not show the finished task:\n%s", win)
	}
}

func TestTimeoutKillsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	srv := fakeai.New(t,
		act(
			openBash,
			call("bash_1", "run", map[string]any{"command": "sleep 60.41 & echo $! > child.pid; sleep 60.42", "timeout_s": 1}),
		),
		fakeai.Reply{Content: "timed out"},
	)
	r := aci(t, dir, srv, "wait", nil)
	if r.code != 0 || !strings.Contains(r.stderr, "· error: killed after timeout") {
		t.Fatalf("exit %d stderr:\n%s", r.code, r.stderr)
	}
	// Pids a contained command prints are those of its own pid namespace:
	// look for the processes by their command line.
	testutil.WaitPIDs(t, filepath.Join(dir, "child.pid"))
	if live := testutil.Outlived(0, "sleep 60.4"); len(live) > 0 {
		t.Errorf("the command's children %v survived the timeout", live)
	}
}

func TestHugeOutputIsTruncated(t *testing.T) {
	dir := t.TempDir()
	srv := fakeai.New(t,
		act(
			openBash,
			bashRun("head -c 200000000 /dev/zero | tr '\\0' 'a' | fold -w 100"),
		),
		fakeai.Reply{Content: "big"},
	)
	aciOK(t, dir, srv, "print a lot", nil)
	msgs := srv.Requests()[1].Messages
	win := msgs[len(msgs)-1].Content
	if !strings.Contains(win, `type="output_truncated"`) || len(win) > 40000 {
		t.Errorf("window not truncated: %d bytes", len(win))
	}
}
