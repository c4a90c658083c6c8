package serve

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
)

// sameState makes a rig work in workdir with its transcripts in sessions:
// a restarted server over the same state folder.
func sameState(workdir, sessions string) rigOption {
	return func(sc *sessionConfig, c *Config) { sc.SessionsDir, c.Workdir = sessions, workdir }
}

// calcRun is the run the wire and the log tests watch: words with & < >,
// a failing command (its exit code), an edit of calc.py (its diff), an
// uncontained command that asks (it would remove ~/keep), then a turn
// that hangs until cancelled. It writes calc.py in workdir and gives the
// test a HOME of its own.
func calcRun(t *testing.T, workdir string) []fakeai.Reply {
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.MkdirAll(filepath.Join(home, "keep"), 0o755)
	os.WriteFile(filepath.Join(workdir, "calc.py"), []byte("x = 1\n"), 0o644)
	return []fakeai.Reply{
		{Content: "Checking a && b <now>.\n" + fakeai.ToolCall(
			call("launcher", "open", map[string]any{"app": "bash"}),
			call("bash_1", "run", map[string]any{"command": "echo 'a && <b>'; exit 3"}),
			call("launcher", "open", map[string]any{"app": "file", "target": "calc.py"}),
			call("file_1", "edit", map[string]any{"old_text": "x = 1", "new_text": "x = 2 # a < b"}),
			call("bash_1", "run", map[string]any{"command": "rm -rf ~/keep", "uncontained": true}),
		)},
		{Content: "Done & dusted."},
		{Hang: true},
	}
}

// logRun runs one session with words, an approval answered, a steered
// message, a failing command, an edit and a cancelled turn on a server
// over workdir and sessions, and returns its id and every event it sent.
func logRun(t *testing.T, workdir, sessions string) (string, []event, string) {
	t.Helper()
	r := newRig(t, calcRun(t, workdir), sameState(workdir, sessions))
	id, ev := r.followedSession()
	r.ask(id, "fix calc")
	evs := ev.until(is("approval"))
	r.must(202, "POST", "/api/sessions/"+id+"/messages", `{"text":"and keep it short"}`, nil)
	r.must(200, "POST", "/api/sessions/"+id+"/approvals/"+evs[len(evs)-1].Data["request_id"].(string), `{"decision":"allow"}`, nil)
	evs = append(evs, ev.until(idle)...)
	r.ask(id, "wait")
	r.ai.WaitRequests(3, 10*time.Second)
	r.must(200, "POST", "/api/sessions/"+id+"/cancel", nil, nil)
	evs = append(evs, ev.until(idle)...)
	var info struct{ Turns any }
	r.must(200, "GET", "/api/sessions/"+id, nil, &info)
	turns, _ := json.Marshal(info.Turns)
	r.srv.Close()
	r.hs.Close()
	return id, evs, string(turns)
}

// A past session's events, after a restart, are the ones sent live, field
// for field and with their ids: a running command's output pieces, its
// window as it ran and the loop's states within a turn are the only ones
// not kept.
func TestRestartReplaysTheLog(t *testing.T) {
	workdir, sessions := t.TempDir(), t.TempDir()
	id, live, liveTurns := logRun(t, workdir, sessions)
	byID := map[int64]event{}
	for _, e := range live {
		byID[e.ID] = e
	}

	r := newRig(t, []fakeai.Reply{{Content: "Back."}}, sameState(workdir, sessions))
	// The history lists the same turns, read from the log.
	var info struct{ Turns any }
	r.must(200, "GET", "/api/sessions/"+id, nil, &info)
	if turns, _ := json.Marshal(info.Turns); string(turns) != liveTurns {
		t.Errorf("turns after the restart\n%s\nlive\n%s", turns, liveTurns)
	}
	if !strings.Contains(liveTurns, `"exit_code":3`) {
		t.Errorf("live turns lack the exit code: %s", liveTurns)
	}
	unkept := func(e event) bool {
		return e.Type == "output" || e.Type == "window" || e.Type == "state" && e.Data["state"] != "idle"
	}
	var lastKept int64
	for _, l := range live {
		if !unkept(l) {
			lastKept = l.ID
		}
	}
	ev := r.events(id, "0")
	var replayed []event
	for len(replayed) == 0 || replayed[len(replayed)-1].ID < lastKept {
		replayed = append(replayed, ev.next(10*time.Second))
	}
	joined := joinedWords(live)
	kept := map[int64]bool{}
	for _, e := range replayed {
		kept[e.ID] = true
		if e.ID < live[0].ID {
			continue // before the live client came (the launcher's window)
		}
		if e.Type == "text" {
			if w, ok := joined[e.ID]; !ok || e.Data["text"] != w {
				t.Errorf("replayed words %d %s, live pieces joined %q", e.ID, e.Raw, w)
			}
			continue
		}
		if l, ok := byID[e.ID]; !ok || l.Raw != e.Raw || l.Type != e.Type {
			t.Errorf("replayed event %d %s %s\nlive: %s %s", e.ID, e.Type, e.Raw, l.Type, l.Raw)
		}
	}
	for _, l := range live {
		if l.Type == "text" {
			if _, last := joined[l.ID]; last && !kept[l.ID] {
				t.Errorf("live words ending at %d not replayed", l.ID)
			}
			continue
		}
		if !kept[l.ID] && !unkept(l) {
			t.Errorf("live event %d %s %s not replayed", l.ID, l.Type, l.Raw)
		}
	}
	has := func(typ, field, want string) {
		t.Helper()
		for _, e := range replayed {
			if e.Type == typ && strings.Contains(e.Raw, `"`+field+`":`+want) {
				return
			}
		}
		t.Errorf("no replayed %s with %s %s in %v", typ, field, want, types(replayed))
	}
	var words strings.Builder
	for _, e := range replayed {
		if e.Type == "text" {
			words.WriteString(e.Data["text"].(string))
		}
	}
	if !strings.Contains(words.String(), "Checking a && b <now>.") || !strings.Contains(words.String(), "Done & dusted.") {
		t.Errorf("replayed words %q", words.String())
	}
	has("tool_result", "exit_code", "3")
	has("tool_result", "output", `"--- a/calc.py`)
	has("approval", "action_id", `"run"`)
	has("decision", "decision", `"allow","by":"web page"`)
	has("steer", "text", `"and keep it short"`)
	has("result", "error", `"interrupted"`)
	has("window", "id", `"bash_1"`)
	// The bash window's last state is its content after the commands.
	var win string
	for _, e := range replayed {
		if e.Type == "window" && e.Data["id"] == "bash_1" {
			win = e.Data["content"].(string)
		}
	}
	if !strings.Contains(win, "a && <b>") {
		t.Errorf("bash window replayed as %q", win)
	}

	// Loaded by a new question, the session goes on numbering from its log.
	r.ask(id, "again")
	evs := ev.until(idle)
	if first := evs[0]; first.ID <= live[len(live)-1].ID {
		t.Errorf("new event %d %s numbered within the log (last %d)", first.ID, first.Type, live[len(live)-1].ID)
	}
	ev.close()
	// A client reading it from the start now gets the log and the new turn.
	all := r.events(id, "0").until(func(e event) bool { return e.Type == "result" && e.Data["result"] == "Back." })
	for _, e := range all {
		if l, ok := byID[e.ID]; ok && l.Raw != e.Raw && e.Type != "text" {
			t.Errorf("event %d after loading: %s, live %s", e.ID, e.Raw, l.Raw)
		}
	}
}

// joinedWords is how the log keeps live text pieces: each run of them as
// one text event, with the last piece's id (running commands' output and
// windows, which are not kept, do not end a run).
func joinedWords(live []event) map[int64]string {
	joined := map[int64]string{}
	var run strings.Builder
	last := int64(0)
	for _, e := range live {
		switch e.Type {
		case "text":
			run.WriteString(e.Data["text"].(string))
			last = e.ID
		case "output", "window":
		default:
			if last != 0 {
				joined[last] = run.String()
			}
			run.Reset()
			last = 0
		}
	}
	if last != 0 {
		joined[last] = run.String()
	}
	return joined
}

// A transcript written before event records (serve/testdata, made by the
// previous aci) still loads: its history, and events made from its
// records (the words, each action with its output, the steered message,
// a result per turn).
func TestOldTranscriptLoads(t *testing.T) {
	workdir, sessions := t.TempDir(), t.TempDir()
	data, err := os.ReadFile("testdata/old-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	const id = "20261127-195156-0ldf0rm0"
	os.WriteFile(filepath.Join(sessions, id+".jsonl"), []byte(strings.ReplaceAll(string(data), "/WORKDIR", workdir)), 0o600)
	r := newRig(t, []fakeai.Reply{{Content: "Still here."}}, sameState(workdir, sessions))

	var info struct {
		Turns []struct {
			Question string
			Answer   string
			Actions  []struct{ Status, Output string }
			Steers   []string
		}
	}
	r.must(200, "GET", "/api/sessions/"+id, nil, &info)
	if len(info.Turns) != 2 || info.Turns[0].Question != "fix calc" || info.Turns[0].Answer != "Done & dusted." ||
		len(info.Turns[0].Actions) != 5 || len(info.Turns[0].Steers) != 1 {
		t.Fatalf("old transcript's history: %+v", info)
	}
	ev := r.events(id, "0")
	evs := ev.until(func(e event) bool { return e.Type == "result" && e.Data["result"] == "Done & dusted." })
	got := strings.Join(types(evs), " ")
	want := "turn text tool_call tool_result tool_call tool_result tool_call tool_result tool_call tool_result tool_call tool_result steer text result"
	if got != want {
		t.Errorf("old transcript's events\n%s\nwant\n%s", got, want)
	}
	for _, e := range evs {
		if e.Type == "tool_result" && e.Data["call_id"] == "call_1_4" && !strings.Contains(e.Raw, "+x = 2 # a < b") {
			t.Errorf("the edit's result %s", e.Raw)
		}
	}
	// It goes on: a new question is answered, numbered after the old events.
	last := evs[len(evs)-1].ID
	r.ask(id, "still there?")
	more := ev.until(idle)
	if more[len(more)-1].ID <= last {
		t.Errorf("new events numbered %d, not after %d", more[len(more)-1].ID, last)
	}
}
