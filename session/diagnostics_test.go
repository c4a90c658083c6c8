package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testutil"
)

const diagMain = "package main\n\nfunc main() {\n\tvar n int = 1\n\t_ = n\n}\n"

// goplsIn counts the gopls processes working in dir.
func goplsIn(dir string) int {
	n := 0
	pids, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range pids {
		comm, _ := os.ReadFile(filepath.Join(p, "comm"))
		cwd, _ := os.Readlink(filepath.Join(p, "cwd"))
		if strings.TrimSpace(string(comm)) == "gopls" && cwd == dir {
			n++
		}
	}
	return n
}

func TestSessionDiagnostics(t *testing.T) {
	testutil.NeedGopls(t)
	for _, off := range []bool{false, true} {
		name := map[bool]string{false: "on", true: "ACI_LSP=off"}[off]
		t.Run(name, func(t *testing.T) {
			if off {
				t.Setenv("ACI_LSP", "off")
			}
			srv := fakeai.New(t,
				fakeai.Reply{Content: call("launcher", "open", `{"app":"file","target":"main.go"}`)},
				fakeai.Reply{Content: call("file_1", "edit", `{"old_text":"= 1","new_text":"= \"one\""}`)},
				fakeai.Reply{Content: "Done."},
			)
			f, work := newFactory(t, srv)
			work, _ = filepath.EvalSymlinks(work)
			os.WriteFile(filepath.Join(work, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644)
			os.WriteFile(filepath.Join(work, "main.go"), []byte(diagMain), 0o644)
			s, live := watchedIn(t, f, work)
			if _, err := s.Start("break it"); err != nil {
				t.Fatal(err)
			}
			var notes []string
			edited := false // the edit's result is out: the person reads it first
			for _, ev := range collect(t, live, "result") {
				if ev.Type == "tool_result" && ev.Data["call_id"] == "call_2_1" {
					edited = true
				}
				if ev.Type == "notice" && ev.Data["kind"] == "diagnostics" {
					if !edited {
						t.Errorf("the diagnostics line comes before the edit's result: %v", ev.Data)
					}
					notes = append(notes, ev.Data["text"].(string))
				}
			}
			reqs := srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d requests", len(reqs))
			}
			last := reqs[2].Last()
			win, _ := s.Window("file_1")
			const shown = "diagnostics (gopls): 1 error\n4:14 cannot use \"one\""
			if off {
				if len(notes) != 0 || strings.Contains(last, "diagnostics") || strings.Contains(win.Content, "diagnostics") {
					t.Errorf("ACI_LSP=off shows diagnostics: notes %q; request:\n%s", notes, last)
				}
				if goplsIn(work) != 0 {
					t.Error("gopls runs with ACI_LSP=off")
				}
				return
			}
			if !strings.Contains(last, shown) {
				t.Errorf("the request after the edit lacks the error:\n%s", last)
			}
			if !strings.Contains(win.Content, shown) {
				t.Errorf("the window the person sees lacks the error:\n%s", win.Content)
			}
			if len(notes) != 1 || !strings.HasPrefix(notes[0], "main.go: 1 error, first 4:14 cannot use \"one\"") {
				t.Errorf("the person was told %q", notes)
			}
			if goplsIn(work) != 1 {
				t.Errorf("%d gopls processes in the workspace, want 1", goplsIn(work))
			}
			s.Close()
			if n := goplsIn(work); n != 0 {
				t.Errorf("%d gopls processes after the session closed", n)
			}
		})
	}
}

// Two sessions in one workspace share its gopls, which stops with the
// last of them.
func TestSessionsShareServers(t *testing.T) {
	testutil.NeedGopls(t)
	srv := fakeai.New(t)
	for range 2 {
		srv.Push(fakeai.Reply{Content: call("launcher", "open", `{"app":"file","target":"main.go"}`)}, fakeai.Reply{Content: "Open."})
	}
	f, work := newFactory(t, srv)
	work, _ = filepath.EvalSymlinks(work)
	os.WriteFile(filepath.Join(work, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(work, "main.go"), []byte(diagMain), 0o644)
	var sessions []*Session
	for range 2 {
		s := opened(t, f, work)
		if _, err := s.Start("open main.go"); err != nil {
			t.Fatal(err)
		}
		s.Wait()
		sessions = append(sessions, s)
	}
	if n := goplsIn(work); n != 1 {
		t.Fatalf("%d gopls processes for two sessions, want 1", n)
	}
	sessions[0].Close()
	if n := goplsIn(work); n != 1 {
		t.Errorf("%d gopls processes after the first session closed, want 1", n)
	}
	sessions[1].Close()
	if n := goplsIn(work); n != 0 {
		t.Errorf("%d gopls processes after both closed", n)
	}
}

// A language server that fails to start is told to the person once, as a
// "diagnostics" notice event (the REPL, the page, stream-json and ACP
// show those), however many of its files the model opens.
func TestSessionServerFailureNotice(t *testing.T) {
	install, err := os.MkdirTemp("/tmp", "aci-person-install-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(install) })
	prog := filepath.Join(install, "broken-ls")
	os.WriteFile(prog, []byte("#!/bin/sh\necho 'broken-ls: no luck' >&2\nexit 2\n"), 0o755)
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	os.MkdirAll(filepath.Join(cfg, "aci"), 0o755)
	os.WriteFile(filepath.Join(cfg, "aci", "settings.json"),
		[]byte(`{"lsp":{"x":{"command":["`+prog+`"],"extensions":[".x"]}}}`), 0o644)
	srv := fakeai.New(t,
		fakeai.Reply{Content: call("launcher", "open", `{"app":"file","target":"a.x"}`)},
		fakeai.Reply{Content: call("launcher", "open", `{"app":"file","target":"b.x"}`)},
		fakeai.Reply{Content: call("file_1", "write", `{"content":"again\n"}`)},
		fakeai.Reply{Content: "Done."},
	)
	f, work := newFactory(t, srv)
	os.WriteFile(filepath.Join(work, "a.x"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(work, "b.x"), []byte("b\n"), 0o644)
	s, live := watchedIn(t, f, work)
	if _, err := s.Start("look"); err != nil {
		t.Fatal(err)
	}
	var told []string
	for _, ev := range collect(t, live, "result") {
		if ev.Type == "notice" && ev.Data["kind"] == "diagnostics" && strings.Contains(ev.Data["text"].(string), "broken-ls") {
			told = append(told, ev.Data["text"].(string))
		}
	}
	if len(told) != 1 || !strings.Contains(told[0], "no diagnostics for x files") {
		t.Errorf("the person was told %q, want one line", told)
	}
}
