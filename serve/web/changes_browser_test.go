package web_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// The changes panel lists the files the session changed, a file window's
// edit and a command's new file, each with its diff drawn as text (a
// change that writes <script> shows it, runs nothing), and follows a new
// turn.
func TestPageChangesPanel(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ctx := browser(t)
	workdir := t.TempDir()
	if err := os.WriteFile(filepath.Join(workdir, "a.txt"), []byte("a0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", workdir}, c...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %s", c, out)
		}
	}
	ai := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "file", "target": "a.txt"}),
			call("file_1", "edit", map[string]any{"old_text": "a0", "new_text": "<script>window.ran=1</script>"}))},
		fakeai.Reply{Content: "Changed a."},
		fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}),
			call("bash_1", "run", map[string]any{"command": "echo n1 > n.txt"}))},
		fakeai.Reply{Content: "Made n."},
	)
	w, base := openWatched(t, ctx, ai, workdir)
	ask(t, ctx, "Please change a")
	waitFor(t, ctx, "a.txt in the changes panel",
		`[...document.querySelectorAll('#changes .change')].map(e => e.dataset.path).join(' ') === 'a.txt'`)
	if got := eval[string](t, ctx, `[...document.querySelectorAll('#changes .change[data-path="a.txt"] .d-add')].map(e => e.textContent).join('')`); got != "+<script>window.ran=1</script>\n" {
		t.Errorf("a.txt's added line reads %q", got)
	}
	if eval[bool](t, ctx, `!!window.ran || document.querySelectorAll('#changes script').length > 0`) {
		t.Error("a diff's text became a script")
	}
	waitFor(t, ctx, "turn 1 over", `document.getElementById('state').textContent === 'idle'`)
	ask(t, ctx, "Now make n")
	waitFor(t, ctx, "turn 2 over", `[...document.querySelectorAll('.turn .md')].some(e => e.textContent.includes('Made n.'))`)
	waitFor(t, ctx, "the command's file too",
		`[...document.querySelectorAll('#changes .change')].map(e => e.dataset.path + ':' + e.querySelector('.chg-mark').textContent).join(' ') === 'a.txt:M n.txt:A'`)
	if got := eval[string](t, ctx, `document.getElementById('chg-count').textContent`); got != "2" {
		t.Errorf("the count reads %q", got)
	}
	w.check(t, base)
}
