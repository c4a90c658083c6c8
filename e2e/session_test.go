package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testutil"
)

func TestTranscriptAndResume(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("remember the milk\n"), 0o644)
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "file", "target": "notes.txt"}))},
		fakeai.Reply{Content: "It says to remember the milk."},
		fakeai.Reply{Content: "You asked about notes.txt."},
	)
	env := []string{"XDG_STATE_HOME=" + state}
	if r := aci(t, dir, srv, "", env, "-p", "FIRST: what is in notes.txt?"); r.code != 0 {
		t.Fatalf("first run: %d %s", r.code, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(state, "aci", "sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("transcripts: %v", files)
	}
	fi, _ := os.Stat(files[0])
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("transcript mode %v, want 0600", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(files[0])
	for _, want := range []string{`"type":"meta"`, `FIRST: what is in notes.txt?`, `"type":"call"`, `"type":"usage"`, `"type":"windows"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("transcript lacks %s", want)
		}
	}
	if strings.Contains(string(data), testKey) {
		t.Error("the API key is in the transcript")
	}
	r := aci(t, dir, srv, "", env, "--resume", "-p", "SECOND: what did I ask?")
	if r.code != 0 || !strings.Contains(r.stderr, "resumed") || !strings.Contains(r.stderr, "reopened file_1") {
		t.Fatalf("resume: %d %s", r.code, r.stderr)
	}
	msgs := srv.Requests()[2].Messages
	var all []string
	for _, m := range msgs {
		all = append(all, m.Content)
	}
	joined := strings.Join(all, "\n")
	if !strings.Contains(joined, "FIRST: what is in notes.txt?") || !strings.Contains(joined, "It says to remember the milk.") {
		t.Error("resumed request lacks the earlier history")
	}
	if !strings.Contains(msgs[len(msgs)-1].Content, `<window id="file_1" app="file" title="notes.txt">`) {
		t.Errorf("file_1 not reopened:\n%s", msgs[len(msgs)-1].Content)
	}
	// Another directory has no session to resume.
	r = aci(t, t.TempDir(), fakeai.New(t, fakeai.Reply{Content: "fresh"}), "", env, "--resume", "-p", "hi")
	if r.code != 0 || !strings.Contains(r.stderr, "starting a new session") {
		t.Errorf("resume elsewhere: %d %s", r.code, r.stderr)
	}
}

func TestResumeAfterKillMidTurn(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	srv := fakeai.New(t,
		fakeai.Reply{Content: "Looking.\n" + fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}))},
		fakeai.Reply{Hang: true},
		fakeai.Reply{Content: "resumed fine"},
	)
	run := start(t, dir, baseEnv(t, srv, "XDG_STATE_HOME="+state), "-p", "KILLED-QUESTION")
	srv.WaitRequests(2, 20*time.Second)
	run.signal(syscall.SIGKILL)
	run.exited(t, 30*time.Second)
	r := aci(t, dir, srv, "", []string{"XDG_STATE_HOME=" + state}, "--resume", "-p", "go on")
	if r.code != 0 || r.stdout != "resumed fine\n" {
		t.Fatalf("%d %q %s", r.code, r.stdout, r.stderr)
	}
	msgs := srv.Requests()[2].Messages
	if !strings.Contains(msgs[1].Content, "KILLED-QUESTION") || !strings.Contains(msgs[3].Content, "opened bash_1") {
		t.Errorf("resumed history: %+v", msgs[:min(4, len(msgs))])
	}
}

func TestSigtermKillsRunningCommands(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			srv := fakeai.New(t, fakeai.Reply{Content: fakeai.ToolCall(
				call("launcher", "open", map[string]any{"app": "bash"}),
				call("bash_1", "start", map[string]any{"command": "sleep 60.51 & echo $! > bg.pid; wait"}),
				call("bash_1", "run", map[string]any{"command": "echo $$ > fg.pid; sleep 60.52"}),
			)})
			run := start(t, dir, baseEnv(t, srv), "-p", "run things")
			testutil.WaitPIDs(t, filepath.Join(dir, "bg.pid"), filepath.Join(dir, "fg.pid"))
			run.signal(sig)
			if code := run.exited(t, 30*time.Second); code != 128+int(sig) {
				t.Errorf("exit %d, want %d; stderr %s", code, 128+int(sig), run.stderr)
			}
			// The pids the commands wrote are those of their own pid
			// namespaces: find the processes by their command line.
			if live := testutil.Outlived(0, "sleep 60.5"); len(live) > 0 {
				t.Errorf("processes %v survived aci", live)
			}
		})
	}
}
