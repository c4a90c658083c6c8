package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/transcript"
)

// twoTurns runs two turns: the first opens a.txt, the second opens b.txt
// and closes a.txt.
func twoTurns(t *testing.T, srv *fakeai.Server, a *Agent) {
	t.Helper()
	srv.Push(
		fakeai.Reply{Content: openFile("a.txt")},
		fakeai.Reply{Content: "ANSWER-ONE"},
		fakeai.Reply{Content: openFile("b.txt") + fakeai.ToolCall(call("file_1", "close", nil))},
		fakeai.Reply{Content: "ANSWER-TWO"},
	)
	for _, q := range []string{"QUESTION-ONE", "QUESTION-TWO"} {
		if _, err := a.Run(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
}

// A fork of turn 1 continues with turn 1 and without turn 2, its windows
// those open when turn 2 began; it writes itself to its own transcript,
// from which it resumes.
func TestForkFirstTurn(t *testing.T) {
	srv := fakeai.New(t)
	a, dir, _ := newAgent(t, srv, false)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("beta\n"), 0o644)
	twoTurns(t, srv, a)

	s, err := a.Fork(1)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Windows) != 1 || s.Windows[0].ID != "file_1" || s.Windows[0].Target != "a.txt" {
		t.Errorf("windows at the fork: %+v", s.Windows)
	}
	if s.Questions != 1 || len(s.Asked) != 1 || s.Asked[0].Text != "QUESTION-ONE" || s.Turn != 2 {
		t.Errorf("fork: %d questions, asked %+v, %d replies", s.Questions, s.Asked, s.Turn)
	}

	sessions := t.TempDir()
	tr, err := newTestLog(sessions, dir, "m", "sk-test")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := newAgentIn(t, srv, false, dir)
	if got := b.Resume(context.Background(), s); len(got) != 1 || got[0] != "file_1" {
		t.Fatalf("reopened %v", got)
	}
	b.SetTranscript(tr.File)
	srv.Push(fakeai.Reply{Content: "ANSWER-FORK"})
	if _, err := b.Run(context.Background(), "QUESTION-FORK"); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	reqs := srv.Requests()
	got := reqs[len(reqs)-1].Text()
	for _, want := range []string{"QUESTION-ONE", "ANSWER-ONE", "QUESTION-FORK", "alpha"} {
		if !strings.Contains(got, want) {
			t.Errorf("the forked request lacks %q", want)
		}
	}
	for _, not := range []string{"QUESTION-TWO", "ANSWER-TWO", "file_2"} {
		if strings.Contains(got, not) {
			t.Errorf("the forked request holds %q of turn 2", not)
		}
	}

	back, err := LatestSession(sessions, dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.Questions != 2 || len(back.History) != 6 || back.Asked[0].Text != "QUESTION-ONE" {
		data, _ := os.ReadFile(back.Path)
		t.Errorf("fork's transcript replays %d questions, %d messages:\n%s", back.Questions, len(back.History), data)
	}
}

// Forks from a session restored from its transcript find the turns and
// the windows from the history.
func TestForkAfterResume(t *testing.T) {
	srv := fakeai.New(t)
	dir, sessions, _ := twoTurnsWritten(t, srv)
	s, err := LatestSession(sessions, dir)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := newAgentIn(t, srv, false, dir)
	b.Resume(context.Background(), s)
	if n := b.Conversation().Turns(); n != 2 {
		t.Fatalf("restored %d turns, want 2", n)
	}
	f, err := b.Fork(1)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.History) != 4 || len(f.Windows) != 1 || f.Windows[0].Target != "a.txt" {
		t.Errorf("fork of the restored session: %d messages, windows %+v", len(f.History), f.Windows)
	}
	if f, err := b.Fork(2); err != nil || len(f.History) != len(s.History) || len(f.Windows) != 1 || f.Windows[0].ID != "file_2" {
		t.Errorf("fork of the last turn: %v, windows %+v", err, f.Windows)
	}
}

// Turns a compression summarised cannot be split; later ones can.
func TestForkAcrossCompression(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: "ANSWER-ONE", PromptTokens: 9000},
		fakeai.Reply{Content: "## Goal\nSUMMARY"},
		fakeai.Reply{Content: "ANSWER-TWO"},
		fakeai.Reply{Content: "ANSWER-THREE"},
	)
	a, _, _ := newAgent(t, srv, false)
	a.conv.cfg.CompressTokens = 5000
	for _, q := range []string{"QUESTION-ONE", "QUESTION-TWO", "QUESTION-THREE"} {
		if _, err := a.Run(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		turns int
		err   string
	}{
		{0, "no turn 0"},
		{4, "no turn 4"},
		{1, "compressed into one summary"},
		{2, ""},
		{3, ""},
	} {
		s, err := a.Fork(tc.turns)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Fork(%d): %v, want %q", tc.turns, err, tc.err)
			}
			continue
		}
		if err != nil || s.Summary != "## Goal\nSUMMARY" {
			t.Errorf("Fork(%d): %v, summary %q", tc.turns, err, s.Summary)
			continue
		}
		text := ""
		for _, e := range s.History {
			text += e.Text
		}
		if tc.turns == 2 && (strings.Contains(text, "THREE") || !strings.Contains(text, "ANSWER-TWO")) {
			t.Errorf("Fork(2) history: %q", text)
		}
	}
}

// A conversation restored from its transcript writes its windows as
// references to what that file holds, and only there: written to another
// file, its windows go whole, and each file reads back as the model got it.
func TestRestoredWritesReferencesToItsOwnFileOnly(t *testing.T) {
	srv := fakeai.New(t)
	dir, sessions, id := twoTurnsWritten(t, srv)

	for _, own := range []bool{true, false} {
		f, s, err := ResumeSession(sessions, dir, id, "sk-test")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := newAgentIn(t, srv, false, dir)
		b.Resume(context.Background(), s)
		if !own {
			f.Close()
			if f, err = transcript.New(t.TempDir(), transcript.Meta{Workdir: dir}, "sk-test"); err != nil {
				t.Fatal(err)
			}
		}
		size := fileSize(f.Path)
		b.SetTranscript(f)
		srv.Push(fakeai.Reply{Content: "ANSWER-MORE"})
		if _, err := b.Run(context.Background(), "QUESTION-MORE"); err != nil {
			t.Fatal(err)
		}
		f.Close()
		data, _ := os.ReadFile(f.Path)
		added := string(data[size:])
		if refs := strings.Contains(added, `"same":`); refs != own {
			t.Errorf("own file %v: references written %v:\n%s", own, refs, added)
		}
		got, _, err := replay(f.Path)
		if err != nil || got.Damaged != 0 {
			t.Fatalf("own file %v: %v, %d damaged", own, err, got.Damaged)
		}
		want := b.conv.History()
		for i, e := range got.History[len(got.History)-2:] {
			if m := e.message(); m.Content != want[len(want)-2+i].Content {
				t.Errorf("own file %v: message read back\n%s\nsent\n%s", own, m.Content, want[len(want)-2+i].Content)
			}
		}
	}
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// twoTurnsWritten runs twoTurns in a working folder holding a.txt and
// b.txt, written to a transcript in sessions, and returns the folders and
// the session's id.
func twoTurnsWritten(t *testing.T, srv *fakeai.Server) (dir, sessions, id string) {
	t.Helper()
	a, dir, _ := newAgent(t, srv, false)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("beta\n"), 0o644)
	sessions = t.TempDir()
	tr, err := newTestLog(sessions, dir, "m", "sk-test")
	if err != nil {
		t.Fatal(err)
	}
	a.SetTranscript(tr.File)
	twoTurns(t, srv, a)
	tr.Close()
	return dir, sessions, strings.TrimSuffix(filepath.Base(tr.Path), ".jsonl")
}
