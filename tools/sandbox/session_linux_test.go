//go:build linux

package sandbox

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// spawnIn runs argv in s's session and returns its output and exit
// status; ok is false when it took the one-shot path.
func spawnIn(t *testing.T, s *Sandbox, dir string, argv ...string) (out string, code int, ok bool) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p, release, ok, err := s.Spawn(SpawnRequest{Argv: argv, Dir: dir, Env: os.Environ(), Output: w})
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return "", -1, false
	}
	b, _ := io.ReadAll(r)
	ws, err := p.Wait()
	release()
	if err != nil {
		t.Fatal(err)
	}
	return string(b), ws.ExitStatus(), true
}

// Commands start in the session's sandbox, each with its own pid
// namespace and the policy's limits; when the session goes away, the next
// command starts another, and a command with a path writable for it alone
// is left to the one-shot path.
func TestSessionSpawn(t *testing.T) {
	ws := t.TempDir()
	s := mustSandbox(t, DefaultPolicy(ws), Bwrap)
	t.Cleanup(s.Close)
	out, code, ok := spawnIn(t, s, ws, "sh", "-c", "echo $$; touch made; touch /usr/aci-session-test 2>/dev/null || echo refused")
	if !ok || code != 0 || out != "2\nrefused\n" {
		t.Fatalf("first command: ok %v exit %d output %q (%v)", ok, code, out, s.sessErr)
	}
	if _, err := os.Stat(filepath.Join(ws, "made")); err != nil {
		t.Errorf("workspace write lost: %v", err)
	}
	if !s.SessionUp() {
		t.Fatal("no session after a command")
	}
	s.sessMu.Lock()
	sess := s.sess
	s.sessMu.Unlock()
	sess.cmd.Process.Kill()
	<-sess.done
	if out, code, ok := spawnIn(t, s, ws, "sh", "-c", "exit 7"); !ok || code != 7 || out != "" {
		t.Errorf("after the session died: ok %v exit %d output %q", ok, code, out)
	}
	if !s.SessionUp() {
		t.Error("the session did not come back")
	}
	if s.TakesInSession([]string{t.TempDir()}) {
		t.Error("a policy delta was taken in the session")
	}
	run, err := s.NewRunDir()
	if err != nil || !strings.HasPrefix(run, s.runsDir()+"/") || !s.TakesInSession([]string{run}) {
		t.Errorf("run folder %q (%v) not taken in the session", run, err)
	}
}

// A secret store replaced on disk while the session runs (removed and
// made again, as a tool rewriting its credentials does) stays hidden: the
// session's cover would be on the old folder, so it starts again.
func TestSessionFollowsReplacedSecrets(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(root, "ws")
	secret := filepath.Join(ws, "secret")
	write := func(key string) {
		t.Helper()
		os.RemoveAll(secret)
		if err := os.MkdirAll(secret, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(secret, "creds"), []byte(key), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("KEY-ONE")
	s := mustSandbox(t, Policy{Workspace: []string{ws}, Hidden: []string{secret}}, Bwrap)
	t.Cleanup(s.Close)
	var task *Spawned
	for _, key := range []string{"KEY-ONE", "KEY-TWO"} {
		write(key)
		out, code, ok := spawnIn(t, s, ws, "cat", filepath.Join(secret, "creds"))
		if !ok || code == 0 || strings.Contains(out, key) {
			t.Errorf("%s: ok %v exit %d output %q", key, ok, code, out)
		}
		if task == nil {
			// A background command of the first session.
			_, w, _ := os.Pipe()
			p, release, ok, err := s.Spawn(SpawnRequest{Argv: []string{"sleep", "30.7"}, Dir: ws, Env: os.Environ(), Output: w})
			w.Close()
			if !ok || err != nil {
				t.Fatalf("background command: ok %v err %v", ok, err)
			}
			t.Cleanup(func() { syscall.Kill(-p.Pid, syscall.SIGKILL); p.Wait(); release() })
			task = p
		}
	}
	// The first session, retired, keeps its running command.
	if err := syscall.Kill(task.Pid, 0); err != nil {
		t.Errorf("the background command ended with its session: %v", err)
	}
}

// The protected and secret files present when the session starts are
// bound in the session itself; one the person replaces afterwards (an
// editor's atomic save), removes or makes is still read-only, or kept
// back, for each command: the command binds it anew.
func TestSessionHeldFilesReplaced(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(ws, "sub", ".vscode"), 0o755)
	files := map[string]string{"sub/.vscode/tasks.json": "{}\n", "sub/AGENTS.md": "mine\n", "sub/.env": "KEY=ONE\n"}
	for name, text := range files {
		os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644)
	}
	s := mustSandbox(t, DefaultPolicy(ws), Bwrap)
	try := "echo evil >> sub/.vscode/tasks.json; echo evil >> sub/AGENTS.md; cat sub/.env; echo done"
	check := func(step, secret string) {
		t.Helper()
		out, _, ok := spawnIn(t, s, ws, "sh", "-c", try+" 2>/dev/null")
		if !ok || !strings.Contains(out, "done") {
			t.Fatalf("%s: ok %v output %q (%v)", step, ok, out, s.sessErr)
		}
		if strings.Contains(out, secret) {
			t.Errorf("%s: the command read the secret file: %q", step, out)
		}
		for _, name := range []string{"sub/.vscode/tasks.json", "sub/AGENTS.md"} {
			if b, _ := os.ReadFile(filepath.Join(ws, name)); strings.Contains(string(b), "evil") {
				t.Errorf("%s: the command changed %s: %q", step, name, b)
			}
		}
	}
	check("as the session found them", "ONE")
	s.sessMu.Lock()
	held := len(s.sess.held)
	s.sessMu.Unlock()
	if held < 3 {
		t.Errorf("the session holds %d files, want the three", held)
	}
	// Replaced by rename, as an editor saves.
	for name, text := range map[string]string{"sub/.vscode/tasks.json": "{\"v\":2}\n", "sub/AGENTS.md": "mine, v2\n", "sub/.env": "KEY=TWO\n"} {
		tmp := filepath.Join(ws, name+".new")
		os.WriteFile(tmp, []byte(text), 0o644)
		if err := os.Rename(tmp, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	check("replaced", "TWO")
	// The folder replaced whole.
	os.Rename(filepath.Join(ws, "sub", ".vscode"), filepath.Join(ws, "old-vscode"))
	os.MkdirAll(filepath.Join(ws, "sub", ".vscode"), 0o755)
	os.WriteFile(filepath.Join(ws, "sub", ".vscode", "tasks.json"), []byte("{}\n"), 0o644)
	check("folder replaced", "TWO")
}

// What must be done before a command runs anything (the seal's record,
// made while bwrap sets the command up) is done before it runs: the
// command sees what the record wrote, however long the record took.
func TestSessionRecordBeforeCommand(t *testing.T) {
	ws := t.TempDir()
	s := mustSandbox(t, DefaultPolicy(ws), Bwrap)
	t.Cleanup(s.Close)
	sess := s.session()
	if sess == nil {
		t.Fatalf("no session: %v", s.sessErr)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	record := func() {
		time.Sleep(300 * time.Millisecond)
		os.WriteFile(filepath.Join(ws, "recorded"), []byte("yes"), 0o644)
	}
	p, err := s.spawn(sess, SpawnRequest{Argv: []string{"sh", "-c", "cat recorded || echo not yet"}, Dir: ws, Env: os.Environ(), Output: w}, record)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r)
	if st, err := p.Wait(); err != nil || st.ExitStatus() != 0 || string(b) != "yes" {
		t.Errorf("the command ran before the record was done: exit %d %v output %q", st.ExitStatus(), err, b)
	}
}

// A protected file the seal first saves for a command (its record made
// while bwrap sets the command up, after the command began) counts as
// saved before the command began: for it and for every command that
// begins later, all bound read-only on it, a change is the person's
// (sealHeld), kept rather than put back.
func TestSealRecordCountsFromTheLook(t *testing.T) {
	ws := t.TempDir()
	s := mustSandbox(t, DefaultPolicy(ws), Bwrap)
	s.privateTmp()
	s.protectCommand(nil)() // the index's first walk
	rules := filepath.Join(ws, "sub", "AGENTS.md")
	os.MkdirAll(filepath.Dir(rules), 0o755)
	os.WriteFile(rules, []byte("rules\n"), 0o644)
	time.Sleep(50 * time.Millisecond) // the person's, made while nothing ran
	s.wantLook()                      // as Spawn asks
	record, release := s.protectHeld(nil)
	time.Sleep(10 * time.Millisecond)
	end := s.indexed().begin() // another command begins before the record is made
	defer end()
	record()
	f, err := os.OpenFile(rules, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("more rules\n")
	f.Close()
	if notes := release(); len(notes) > 0 {
		t.Errorf("the person's change was taken for a command's: %q", notes)
	}
	if b, _ := os.ReadFile(rules); string(b) != "rules\nmore rules\n" {
		t.Errorf("sub/AGENTS.md = %q", b)
	}
}
