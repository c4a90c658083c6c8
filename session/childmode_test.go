package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/windows"
)

// A plan-mode parent's child asked for default is still in plan mode: its
// shell redirection runs on real containment with the workspace read-only.
func TestAgentOfPlanParentStaysPlanOnBwrap(t *testing.T) {
	sc := script{
		"": steps(batch(act("launcher", "open", `{"app":"agent","target":"redirect","mode":"default"}`), act("agent_1", "wait", `{}`)), "ok"),
		"redirect": steps(
			batch(act("launcher", "open", `{"app":"bash"}`), act("bash_1", "run", `{"command":"echo hi > out.txt"}`)),
			"finished"),
	}
	s, _, srv, work := agentSession(t, sc, 0)
	if sandbox.For(work).Kind() != sandbox.Bwrap {
		t.Skip("no bwrap here: plan mode's containment is not tested")
	}
	s.SetMode(windows.ModePlan)
	if _, err := asked(context.Background(), s, "go"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(work, "out.txt")); err == nil {
		t.Error("the child of a plan-mode parent wrote out.txt")
	}
	parent := of(sc, srv.Requests(), "")
	if first := body(parent[1]); !strings.Contains(first, "plan mode, as the parent's mode is plan") {
		t.Errorf("the parent is not told its child is in plan mode:\n%s", first)
	}
	kid := of(sc, srv.Requests(), "redirect")
	if task := body(kid[0]); !strings.Contains(task, "You are in plan mode") {
		t.Errorf("the child is not told it plans:\n%s", task)
	}
	if res := body(kid[len(kid)-1]); !strings.Contains(res, "Read-only file system") {
		t.Errorf("the redirection was not refused by containment:\n%s", res)
	}
}

// A parent that narrows its mode while its child runs narrows the child:
// the child's next write is refused.
func TestAgentNarrowedWhileRunning(t *testing.T) {
	sc := script{"": steps(batch(act("launcher", "open", `{"app":"agent","target":"write late","mode":"default"}`), act("agent_1", "wait", `{}`)), "ok")}
	s, _, srv, work := agentSession(t, sc, 0)
	sc["write late"] = func(step int, _ fakeai.Request) fakeai.Reply {
		switch step {
		case 1:
			return fakeai.Reply{Content: call("launcher", "open", `{"app":"file","target":"out.txt"}`)}
		case 2:
			s.SetMode(windows.ModePlan) // the person switches while the child works
			return fakeai.Reply{Content: call("file_1", "write", `{"content":"hi\n"}`)}
		}
		return fakeai.Reply{Content: "finished"}
	}
	if _, err := asked(context.Background(), s, "go"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(work, "out.txt")); err == nil {
		t.Error("the child wrote after its parent switched to plan")
	}
	kid := of(sc, srv.Requests(), "write late")
	if last := body(kid[len(kid)-1]); !strings.Contains(last, "refused in plan mode") {
		t.Errorf("the child's write was not refused by plan mode:\n%s", last)
	}
}

// /review runs its turn in plan mode: the model is told, a redirection is
// refused by containment, no plan is offered after it, and the person's
// mode is back (and said) at the next question.
func TestReviewRunsInPlanMode(t *testing.T) {
	sc := script{}
	s, live, srv, work := agentSession(t, sc, 0)
	sc[""] = func(step int, _ fakeai.Request) fakeai.Reply {
		switch step {
		case 1:
			// The person picks ask mode while the review runs: it comes
			// after the review, which stays in plan mode.
			s.SetMode(windows.ModeAsk)
			if m, info := s.Mode(), s.Info().Mode; m != windows.ModeAsk || info != "ask" {
				t.Errorf("during /review the person's mode reads %s (info %s), want ask", m, info)
			}
			return fakeai.Reply{Content: batch(act("launcher", "open", `{"app":"bash"}`), act("bash_1", "run", `{"command":"echo fixed > calc.go"}`))}
		case 2:
			return fakeai.Reply{Content: "calc.go:3: [blocker] Add subtracts."}
		}
		return fakeai.Reply{Content: "next answer"}
	}
	contained := sandbox.For(work).Kind() == sandbox.Bwrap
	os.WriteFile(filepath.Join(work, "calc.go"), []byte("package calc\n"), 0o644)
	if _, err := asked(context.Background(), s, "/review"); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(work, "calc.go")); string(data) != "package calc\n" {
		t.Errorf("/review changed calc.go: %q", data)
	}
	reqs := srv.Requests()
	if q := body(reqs[0]); !strings.Contains(q, "permission mode plan for this /review turn") || strings.Contains(q, "The person may accept it") {
		t.Errorf("the model is not told /review's plan mode:\n%s", q)
	}
	if res := reqs[1].LastUser(); contained && !strings.Contains(res, "Read-only file system") || !contained && !strings.Contains(res, "refused in plan mode") {
		t.Errorf("the redirection was not refused (contained %v):\n%s", contained, res)
	}
	if s.Mode() != windows.ModeAsk || s.PlanReady() {
		t.Errorf("after /review: mode %s, plan ready %v; want the person's ask", s.Mode(), s.PlanReady())
	}
	for _, ev := range collect(t, live, "result") {
		if ev.Type == "mode" && ev.Data["mode"] != "ask" || ev.Data["plan_ready"] == true {
			t.Errorf("/review sent a mode event of its own: %v", ev.Data)
		}
	}
	if _, err := asked(context.Background(), s, "and now?"); err != nil {
		t.Fatal(err)
	}
	if q := srv.Requests()[2].LastUser(); !strings.Contains(q, "[aci: permission mode ask") {
		t.Errorf("the model is not told its mode is back:\n%s", q)
	}
}
