package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testfs"
)

func TestCommandsExpandForEveryFrontEnd(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	srv := fakeai.New(t, fakeai.Reply{Content: "one"}, fakeai.Reply{Content: "two"}, fakeai.Reply{Content: "three"})
	f, work := newFactory(t, srv)
	testfs.File(t, filepath.Join(work, ".aci/commands/fix-issue.md"), "---\ndescription: fix an issue\n---\nFix issue #$1 ($ARGUMENTS).")
	testfs.File(t, filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "aci/commands/fix-issue.md"), "the person's, not used")
	testfs.File(t, filepath.Join(work, ".claude/commands/git/commit.md"), "---\nmodel: haiku\n---\nCommit: $ARGUMENTS")
	testfs.File(t, filepath.Join(work, ".aci/commands/bad.md"), "---\ndescription: [x\n")
	s := opened(t, f, work)
	ctx := context.Background()
	if _, err := asked(ctx, s, "/fix-issue 123 urgent"); err != nil {
		t.Fatal(err)
	}
	if _, err := asked(ctx, s, "/git:commit the parser"); err != nil {
		t.Fatal(err)
	}
	if _, err := asked(ctx, s, "/etc/hosts is wrong"); err != nil {
		t.Fatal(err)
	}
	_, err := asked(ctx, s, "/bad x")
	var ce *CommandError
	if !errors.As(err, &ce) || !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "no closing ---") {
		t.Fatalf("/bad: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, want := range []string{"Fix issue #123 (123 urgent).", "Commit: the parser", "/etc/hosts is wrong"} {
		if got := reqs[i].LastUser(); !strings.Contains(got, want) {
			t.Errorf("request %d: user message %q lacks %q", i+1, got, want)
		}
		if reqs[i].Model != "m" {
			t.Errorf("request %d went to model %q (a .claude command's model is not used)", i+1, reqs[i].Model)
		}
	}
	if q := s.Info().Turns[0].Question; q != "/fix-issue 123 urgent" {
		t.Errorf("the turn shows %q, not what was typed", q)
	}
}

func TestReviewChangesNothing(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: call("launcher", "open", `{"app":"file","target":"a.go"}`)},
		fakeai.Reply{Content: call("file_1", "write", `{"content":"broken\n"}`)},
		fakeai.Reply{Content: "a.go:1: [minor] fine"},
		fakeai.Reply{Content: call("file_1", "write", `{"content":"now\n"}`)},
		fakeai.Reply{Content: "written"})
	s, _ := watched(t, srv)
	testfs.File(t, filepath.Join(s.workdir, "a.go"), "package a\n")
	ctx := context.Background()
	if _, err := asked(ctx, s, "/review"); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(s.workdir, "a.go")); string(data) != "package a\n" {
		t.Fatalf("/review changed a.go: %q", data)
	}
	reqs := srv.Requests()
	if !strings.Contains(reqs[0].LastUser(), "uncommitted changes") || !strings.Contains(reqs[2].LastUser(), `status="denied"`) {
		t.Errorf("review prompt %q\nresult %q", reqs[0].LastUser(), reqs[2].LastUser())
	}
	// The next turn may write again.
	if _, err := asked(ctx, s, "now write it"); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(s.workdir, "a.go")); string(data) != "now\n" {
		t.Errorf("after /review a.go = %q", data)
	}
}

func TestSkillListedOpenedAndRun(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	srv := fakeai.New(t,
		fakeai.Reply{Content: call("launcher", "open", `{"app":"skill","target":"pdf"}`)},
		fakeai.Reply{Content: "done"},
		fakeai.Reply{Content: "ran"})
	f, work := newFactory(t, srv)
	testfs.File(t, filepath.Join(work, ".aci/skills/pdf/SKILL.md"), "---\nname: pdf\ndescription: Fill PDF forms\n---\nSECRET-BODY: run scripts/fill.py")
	testfs.File(t, filepath.Join(work, ".aci/skills/pdf/scripts/fill.py"), "print(1)")
	testfs.File(t, filepath.Join(work, ".aci/skills/nameless/SKILL.md"), "---\ndescription: x\n---\n")
	var said []string
	s, err := f.New(context.Background(), Options{Workdir: work, Say: func(l string) { said = append(said, l) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.Contains(strings.Join(said, "\n"), "no name") {
		t.Errorf("no note for the skill without a name: %q", said)
	}
	ctx := context.Background()
	if _, err := asked(ctx, s, "fill the form"); err != nil {
		t.Fatal(err)
	}
	if _, err := asked(ctx, s, "/pdf form.pdf"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	first := string(reqs[0].Body)
	if !strings.Contains(first, "pdf: Fill PDF forms") || strings.Contains(first, "SECRET-BODY") {
		t.Errorf("first request: the skill's line missing, or its body sent before it was opened")
	}
	if !strings.Contains(string(reqs[1].Body), "SECRET-BODY") || !strings.Contains(string(reqs[1].Body), "scripts/fill.py") {
		t.Errorf("the opened skill's window does not show SKILL.md and its files")
	}
	if u := reqs[2].LastUser(); !strings.Contains(u, "Use the skill pdf") || !strings.Contains(u, "ARGUMENTS: form.pdf") {
		t.Errorf("/pdf sent %q", u)
	}
}

func TestCommandModelForItsTurnOnly(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	srv := fakeai.New(t, fakeai.Reply{Content: "one"}, fakeai.Reply{Content: "two"})
	f, work := newFactory(t, srv)
	testfs.File(t, filepath.Join(work, ".aci/commands/quick.md"), "---\nmodel: small-model\n---\nQuick: $ARGUMENTS")
	s := opened(t, f, work)
	asked(context.Background(), s, "/quick look")
	asked(context.Background(), s, "and now")
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Model != "small-model" || reqs[1].Model != "m" {
		t.Errorf("models: %q then %q", reqs[0].Model, reqs[1].Model)
	}
}
