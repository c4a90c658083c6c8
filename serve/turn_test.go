package serve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testutil"
	"github.com/aci-dev/aci/windows"
)

// A turn's events come in the order of §7, with rising ids, and carry the
// stream-json objects.
func TestTurnEvents(t *testing.T) {
	r := newRig(t, []fakeai.Reply{
		{Content: "Looking.\n" + fakeai.ToolCall(
			call("launcher", "open", map[string]any{"app": "bash"}),
			call("bash_1", "run", map[string]any{"command": "echo hello-from-bash"}),
		)},
		{Content: "It printed hello."},
	})
	id, ev := r.followedSession()
	r.ask(id, "say hello")
	evs := ev.until(idle)

	var got []string
	for i, e := range evs {
		if i > 0 && e.ID <= evs[i-1].ID {
			t.Errorf("event ids do not rise: %d after %d", e.ID, evs[i-1].ID)
		}
		if typ := types([]event{e})[0]; len(got) == 0 || got[len(got)-1] != typ || typ != "text" {
			got = append(got, typ) // text in pieces counts once
		}
	}
	// The session says it is executing as the first call of a batch begins.
	want := []string{"turn", "state:awaiting_model", "text", "state:executing", "tool_call", "tool_result",
		"tool_call", "tool_result", "window", "state:awaiting_model", "text", "result", "state:idle"}
	if !isSubsequence(want, got) {
		t.Errorf("events\n%v\nwant in this order\n%v", got, want)
	}
	find := func(typ string, match func(map[string]any) bool) map[string]any {
		for _, e := range evs {
			if e.Type == typ && match(e.Data) {
				return e.Data
			}
		}
		t.Errorf("no %s event as wanted in %v", typ, got)
		return nil
	}
	all := func(map[string]any) bool { return true }
	if d := find("turn", all); d != nil && (d["turn"] != 1.0 || d["question"] != "say hello") {
		t.Errorf("turn %v", d)
	}
	call := find("tool_call", func(d map[string]any) bool { return d["window_id"] == "bash_1" })
	if call != nil && (call["type"] != "tool_call" || call["action_id"] != "run" || call["call_id"] == "" ||
		call["params"].(map[string]any)["command"] != "echo hello-from-bash") {
		t.Errorf("tool_call %v", call)
	}
	res := find("tool_result", func(d map[string]any) bool { return call != nil && d["call_id"] == call["call_id"] })
	if res != nil && (res["status"] != "ok" || !strings.Contains(fmt.Sprint(res["output"]), "hello-from-bash")) {
		t.Errorf("tool_result %v", res)
	}
	win := find("window", func(d map[string]any) bool {
		return d["id"] == "bash_1" && strings.Contains(fmt.Sprint(d["content"]), "hello-from-bash")
	})
	if win != nil && (win["app"] != "bash" || !strings.Contains(fmt.Sprint(win["content"]), "hello-from-bash")) {
		t.Errorf("window %v", win)
	}
	result := find("result", all)
	if result != nil && (result["is_error"] != false || result["result"] != "It printed hello." || result["session_id"] != id || result["num_steps"] != 2.0) {
		t.Errorf("result %v", result)
	}
	for _, k := range []string{"duration_ms", "usage", "denials"} {
		if _, ok := result[k]; result != nil && !ok && k != "denials" {
			t.Errorf("result lacks %q", k)
		}
	}
}

// isSubsequence says whether want appears in got in order.
func isSubsequence(want, got []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

// approvalRig has a turn that runs a dangerous command on a folder of a
// temporary HOME; it returns the rig, the session and the folder.
func approvalRig(t *testing.T, replies ...fakeai.Reply) (*rig, string, string) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	keep := filepath.Join(home, "keep")
	os.MkdirAll(keep, 0o755)
	r := newRig(t, replies)
	return r, r.newSession(), keep
}

// rmKeep runs uncontained: the test's home lies under /tmp, which
// contained commands see as their session's own.
var rmKeep = fakeai.ToolCall(
	call("launcher", "open", map[string]any{"app": "bash"}),
	call("bash_1", "run", map[string]any{"command": "rm -rf ~/keep", "uncontained": true}),
)

func TestApprovals(t *testing.T) {
	t.Run("deny", func(t *testing.T) {
		r, id, keep := approvalRig(t, fakeai.Reply{Content: rmKeep}, fakeai.Reply{Content: "Not removed."})
		ev := r.events(id, "")
		r.ask(id, "clean up")
		evs := ev.until(is("approval"))
		q := evs[len(evs)-1].Data
		if q["window_id"] != "bash_1" || q["action_id"] != "run" || q["reason"] == "" || q["request_id"] == "" ||
			q["params"].(map[string]any)["command"] != "rm -rf ~/keep" {
			t.Errorf("approval %v", q)
		}
		if prev := evs[len(evs)-2]; !(prev.Type == "state" && prev.Data["state"] == "awaiting_approval") {
			t.Errorf("before the approval: %v", types(evs))
		}
		var info map[string]any
		r.must(200, "GET", "/api/sessions/"+id, nil, &info)
		if info["state"] != "awaiting_approval" {
			t.Errorf("state %v", info["state"])
		}
		r.must(200, "POST", "/api/sessions/"+id+"/approvals/"+q["request_id"].(string), `{"decision":"deny","message":"use the trash"}`, nil)
		res := ev.until(is("tool_result"))
		if d := res[len(res)-1].Data; d["status"] != "denied" || !strings.Contains(d["text"].(string), "use the trash") {
			t.Errorf("denied result %v", d)
		}
		ev.until(idle)
		if _, err := os.Stat(keep); err != nil {
			t.Error("the denied command ran")
		}
		// The question was answered: a second answer finds nothing.
		code, _ := r.call("POST", "/api/sessions/"+id+"/approvals/"+q["request_id"].(string), `{"decision":"allow"}`, nil)
		if code != 404 {
			t.Errorf("second answer: %d", code)
		}
	})
	t.Run("allow", func(t *testing.T) {
		r, id, keep := approvalRig(t, fakeai.Reply{Content: rmKeep}, fakeai.Reply{Content: "Removed."})
		ev := r.events(id, "")
		r.ask(id, "clean up")
		q := ev.until(is("approval"))
		r.must(200, "POST", "/api/sessions/"+id+"/approvals/"+q[len(q)-1].Data["request_id"].(string), `{"decision":"allow"}`, nil)
		res := ev.until(is("tool_result"))
		if d := res[len(res)-1].Data; d["status"] != "ok" {
			t.Errorf("allowed result %v", d)
		}
		ev.until(idle)
		if _, err := os.Stat(keep); err == nil {
			t.Error("the allowed command did not run")
		}
	})
	t.Run("always", func(t *testing.T) {
		again := fakeai.ToolCall(call("bash_1", "run", map[string]any{"command": "rm -rf ~/keep", "uncontained": true}))
		r, id, keep := approvalRig(t, fakeai.Reply{Content: rmKeep}, fakeai.Reply{Content: "Removed."},
			fakeai.Reply{Content: again}, fakeai.Reply{Content: "Removed again."})
		ev := r.events(id, "")
		r.ask(id, "clean up")
		q := ev.until(is("approval"))
		r.must(200, "POST", "/api/sessions/"+id+"/approvals/"+q[len(q)-1].Data["request_id"].(string), `{"decision":"always"}`, nil)
		ev.until(idle)
		os.MkdirAll(keep, 0o755)
		r.ask(id, "clean up again")
		evs := ev.until(idle)
		if slices.Contains(types(evs), "approval") {
			t.Error("asked again after always")
		}
		if _, err := os.Stat(keep); err == nil {
			t.Error("the remembered command did not run")
		}
	})
	t.Run("timeout", func(t *testing.T) {
		home := t.TempDir()
		t.Setenv("HOME", home)
		os.MkdirAll(filepath.Join(home, "keep"), 0o755)
		r := newRig(t, []fakeai.Reply{{Content: rmKeep}, {Content: "Nobody answered."}},
			func(sc *sessionConfig, _ *Config) { sc.ApprovalTimeout = 300 * time.Millisecond })
		id, ev := r.followedSession()
		r.ask(id, "clean up")
		evs := ev.until(is("tool_result"))
		evs = append(evs, ev.until(is("tool_result"))...)
		if d := evs[len(evs)-1].Data; d["status"] != "denied" {
			t.Errorf("unanswered question: %v", d)
		}
		ev.until(idle)
		if _, err := os.Stat(filepath.Join(home, "keep")); err != nil {
			t.Error("the unanswered command ran")
		}
	})
	t.Run("server approver", func(t *testing.T) {
		home := t.TempDir()
		t.Setenv("HOME", home)
		keep := filepath.Join(home, "keep")
		os.MkdirAll(keep, 0o755)
		var asked atomic.Int32
		r := newRig(t, []fakeai.Reply{{Content: rmKeep}, {Content: "Removed."}}, func(_ *sessionConfig, c *Config) {
			c.Approver = windows.ApproverFunc(func(context.Context, windows.ApprovalRequest) windows.Decision {
				asked.Add(1)
				return windows.Decision{Allow: true}
			})
		})
		id, ev := r.followedSession()
		r.ask(id, "clean up")
		if evs := ev.until(idle); slices.Contains(types(evs), "approval") || asked.Load() != 1 {
			t.Errorf("asked %d; events %v", asked.Load(), types(evs))
		}
		if _, err := os.Stat(keep); err == nil {
			t.Error("the approved command did not run")
		}
	})
	t.Run("cancel", func(t *testing.T) {
		r, id, keep := approvalRig(t, fakeai.Reply{Content: rmKeep})
		ev := r.events(id, "")
		r.ask(id, "clean up")
		ev.until(is("approval"))
		r.must(200, "POST", "/api/sessions/"+id+"/cancel", nil, nil)
		evs := ev.until(idle)
		if res := evs[len(evs)-2]; res.Type != "result" || res.Data["error"] != "interrupted" {
			t.Errorf("cancelled at a question: %v", types(evs))
		}
		if _, err := os.Stat(keep); err != nil {
			t.Error("the cancelled command ran")
		}
	})
}

// Cancel ends a running command: every process it started is gone.
func TestCancelMidCommand(t *testing.T) {
	r := newRig(t, []fakeai.Reply{{Content: fakeai.ToolCall(
		call("launcher", "open", map[string]any{"app": "bash"}),
		call("bash_1", "run", map[string]any{"command": "sleep 60.91 & echo $$ > fg.pid; sleep 60.91"}),
	)}})
	id, ev := r.followedSession()
	r.ask(id, "wait a minute")
	waitPID(t, filepath.Join(r.dir, "fg.pid"))
	// The pid the command wrote is its own pid namespace's when it runs
	// contained: its processes are found by their command line (the
	// shell's holds it too).
	deadline := time.Now().Add(5 * time.Second)
	for len(running("sleep 60.91")) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("processes running the command: %v, want the shell and its sleeps", running("sleep 60.91"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	ev.until(is("state")) // executing
	start := time.Now()
	r.must(200, "POST", "/api/sessions/"+id+"/cancel", nil, nil)
	evs := ev.until(idle)
	if res := evs[len(evs)-2]; res.Type != "result" || res.Data["error"] != "interrupted" {
		t.Errorf("events after cancel: %v", types(evs))
	}
	t.Logf("cancel to idle: %v", time.Since(start))
	deadline = time.Now().Add(5 * time.Second)
	for len(running("sleep 60.91")) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("processes left after cancel: %v", running("sleep 60.91"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// running lists the live processes whose command line holds pattern.
func running(pattern string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), pattern) && testutil.Alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

func waitPID(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(file)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return pid
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no pid in %s", file)
	return 0
}
