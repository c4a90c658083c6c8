package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testfs"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/windows"
)

// A session's turns are derived from its events alike whether it runs
// (Info), is read from its transcript (StoredInfo, the list) or is resumed;
// each turn's question is what the person typed, though the model got
// aci's additions too: the plan mode's note, a command's expansion, /init's
// prompt. The model's words are stored as one record, however they were
// streamed, and the result keeps its outcome.
func TestTurnsLiveStoredAndResumedAlike(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	long := strings.Repeat("The answer, streamed in many pieces. ", 20)
	srv := fakeai.New(t,
		fakeai.Reply{Content: "Plan: 1. read a.go"},
		fakeai.Reply{Content: call("launcher", "open", `{"app":"bash"}`)},
		fakeai.Reply{Content: call("bash_1", "run", `{"command":"echo fixed"}`)},
		fakeai.Reply{Content: long},
		fakeai.Reply{Content: "Wrote AGENTS.md."},
	)
	typed := []string{"how would you fix calc?", "/fix-issue 9 low", "/init"}
	f, work, id, live := planThenDefault(t, srv, typed)
	reqs := srv.Requests()
	if got := reqs[0].LastUser(); !strings.Contains(got, "[aci: permission mode plan") {
		t.Errorf("the model was not told the mode: %q", got)
	}
	if got := reqs[1].LastUser(); !strings.Contains(got, "Fix issue #9 (9 low) with care.") {
		t.Errorf("the model did not get the command's prompt: %q", got)
	}
	for i, q := range typed {
		if i >= len(live) || live[i].Question != q {
			t.Fatalf("live turns %+v, want the questions %q", live, typed)
		}
	}
	if live[1].Answer != strings.TrimSpace(long) || len(live[1].Actions) != 2 || live[1].Actions[1].Output == "" {
		t.Errorf("live turn 2: %+v", live[1])
	}

	dir, _ := f.SessionsDir()
	st, err := agent.FindSession(dir, work, id)
	if err != nil {
		t.Fatal(err)
	}
	if stored := StoredInfo(st, work).Turns; !reflect.DeepEqual(jsonOf(t, stored), jsonOf(t, live)) {
		t.Errorf("stored turns\n%s\nlive\n%s", jsonOf(t, stored), jsonOf(t, live))
	}
	list, err := f.List(work)
	if err != nil || len(list) != 1 || list[0].Title() != typed[0] || len(list[0].Turns) != 3 {
		t.Errorf("listed %+v, %v", list, err)
	}
	back, err := f.Open(context.Background(), id, Options{Workdir: work})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if resumed := back.Info().Turns; !reflect.DeepEqual(jsonOf(t, resumed), jsonOf(t, live)) {
		t.Errorf("resumed turns\n%s\nlive\n%s", jsonOf(t, resumed), jsonOf(t, live))
	}
	var questions []string
	for _, ev := range back.Resumed().Events {
		if tu, ok := ev.(Turn); ok {
			questions = append(questions, tu.Question)
		}
	}
	if !reflect.DeepEqual(questions, typed) {
		t.Errorf("replayed questions %q", questions)
	}

	data, _ := os.ReadFile(st.Path)
	texts, results := 0, 0
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, `"event":{"type":"text"`) {
			texts++
		}
		if strings.Contains(line, `"event":{"type":"result"`) {
			results++
			if !strings.Contains(line, `"outcome":"answered"`) {
				t.Errorf("a stored result without its outcome: %s", line)
			}
		}
	}
	if texts != 3 || results != 3 {
		t.Errorf("%d text records (want one a reply with words), %d results", texts, results)
	}
}

// A transcript an older aci wrote, with no event records, gives the turns
// its records tell, as the person typed them.
func TestOldTranscriptTurns(t *testing.T) {
	data, err := os.ReadFile("../serve/testdata/old-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir, work := t.TempDir(), t.TempDir()
	const id = "20261127-195156-0ldf0rm0"
	os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(strings.ReplaceAll(string(data), "/WORKDIR", work)), 0o600)
	st, err := agent.FindSession(dir, work, id)
	if err != nil {
		t.Fatal(err)
	}
	turns := StoredTurns(st)
	if len(turns) != 2 || turns[0].Question != "fix calc" || turns[0].Answer != "Done & dusted." || len(turns[0].Actions) != 5 ||
		len(turns[0].Steers) != 1 || turns[0].Actions[0].Status != "ok" {
		t.Fatalf("old transcript's turns: %s", jsonOf(t, turns))
	}
	evs := StoredEvents(st)
	for _, e := range evs {
		if r := e.Event.(Recorded); r.Typed == nil {
			t.Errorf("event %d (%s) is not typed", e.ID, r.Kind)
		}
	}
	if !reflect.DeepEqual(jsonOf(t, TurnsOf(evs)), jsonOf(t, turns)) {
		t.Error("the turns of its events differ from its turns")
	}
}

// A transcript an aci of early December 2026 wrote (turn, call and
// answer records beside its events, every state event) gives its turns,
// and after one more turn written as aci writes now, all three.
func TestDecemberTranscriptTurns(t *testing.T) {
	data, err := os.ReadFile("../agent/testdata/main-2026-12.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	srv := fakeai.New(t, fakeai.Reply{Content: "Still aci."})
	f, work := newFactory(t, srv)
	dir, _ := f.SessionsDir()
	const id = "20261208-022901-e9d8aa8a"
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(strings.ReplaceAll(string(data), "/WORKDIR", work)), 0o600)
	st, err := agent.FindSession(dir, work, id)
	if err != nil {
		t.Fatal(err)
	}
	turns := StoredTurns(st)
	if len(turns) != 2 || turns[1].Question != "What is this project?" || !strings.HasPrefix(turns[1].Answer, "This is **aci**") ||
		len(turns[1].Actions) != 3 || turns[1].Actions[2].Status != "ok" || turns[1].Actions[2].Output != "README.md" {
		t.Fatalf("its turns: %s", jsonOf(t, turns))
	}
	s, err := f.New(context.Background(), Options{Workdir: work, Resume: true, ResumeID: id})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ask(context.Background(), "and now?"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if st, err = agent.FindSession(dir, work, id); err != nil {
		t.Fatal(err)
	}
	got := StoredTurns(st)
	if len(got) != 3 || !reflect.DeepEqual(jsonOf(t, got[:2]), jsonOf(t, turns)) || got[2].Question != "and now?" || got[2].Answer != "Still aci." {
		t.Errorf("after a turn more: %s", jsonOf(t, got))
	}
	if len(st.Asked) != 3 {
		t.Errorf("%d questions", len(st.Asked))
	}
}

// An old transcript gives the turns a live session showed: the same
// conversation, as an aci from before event records wrote it (oldForm),
// gives the live turns — the plan mode's question as typed, not as the
// model got it with the mode's note — but for what such a transcript never
// kept: a command's exit status.
func TestOldTranscriptGivesTheLiveTurns(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	srv := fakeai.New(t,
		fakeai.Reply{Content: "Plan: 1. read a.go"},
		fakeai.Reply{Content: "Opening.\n" + call("launcher", "open", `{"app":"bash"}`)},
		fakeai.Reply{Content: call("bash_1", "run", `{"command":"echo fixed"}`)},
		fakeai.Reply{Content: "Fixed it."},
	)
	f, work, id, live := planThenDefault(t, srv, []string{"how would you fix calc?", "fix calc then"})
	if len(live) != 2 || live[0].Question != "how would you fix calc?" || len(live[1].Actions) != 2 {
		t.Fatalf("live turns: %s", jsonOf(t, live))
	}
	for _, tu := range live {
		for j := range tu.Actions {
			tu.Actions[j].ExitCode = nil // an old transcript never kept it
		}
	}
	dir, _ := f.SessionsDir()
	st, err := agent.FindSession(dir, work, id)
	if err != nil {
		t.Fatal(err)
	}
	const oldID = "20261127-195156-0ldl1ve0"
	if err := os.WriteFile(filepath.Join(dir, oldID+".jsonl"), oldForm(t, st.Path), 0o600); err != nil {
		t.Fatal(err)
	}
	old, err := agent.FindSession(dir, work, oldID)
	if err != nil || len(old.Events) != 0 || len(old.Legacy) == 0 {
		t.Fatalf("the old form: %d events, %d older records, %v", len(old.Events), len(old.Legacy), err)
	}
	if got := StoredTurns(old); !reflect.DeepEqual(jsonOf(t, got), jsonOf(t, live)) {
		t.Errorf("the old transcript's turns\n%s\nthe live ones\n%s", jsonOf(t, got), jsonOf(t, live))
	}
}

// oldForm is the transcript at path as an aci from before event records
// wrote it: no event or question records; a turn record without its
// number where a turn's event is, a call record (with its output) where
// a call's result is, an answer record where an answered turn's result
// is.
func oldForm(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]map[string]any{} // call id → its tool_call event
	var b []byte
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r["type"] == "question" {
			continue
		}
		if ev, _ := r["event"].(map[string]any); r["type"] == "event" {
			switch id, _ := ev["call_id"].(string); ev["type"] {
			case "turn":
				r = map[string]any{"type": "turn"}
			case "tool_call":
				calls[id] = ev
				continue
			case "tool_result":
				c := map[string]any{"id": id, "window_id": calls[id]["window_id"], "action_id": calls[id]["action_id"], "status": ev["status"]}
				if out, ok := ev["output"].(string); ok && out != "" {
					c["output"] = out
				}
				r = map[string]any{"type": "call", "call": c}
			case "result":
				if ev["outcome"] != "answered" {
					continue
				}
				r = map[string]any{"type": "answer", "content": ev["result"]}
			default:
				continue
			}
		}
		line, _ := json.Marshal(r)
		b = append(append(b, line...), '\n')
	}
	return b
}

// A transcript read while its turn begins, a UserPromptSubmit hook still
// running, has the turn's event but not yet the person's words: Settled
// (what aci logs reads) leaves that turn out until they are stored, so a
// follower shows it once, with its question as typed.
func TestTurnReadAsItBeginsWaitsForItsQuestion(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	testfs.File(t, filepath.Join(cfg, "aci", "settings.json"), `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "sleep 2"}]}]}}`)
	srv := fakeai.New(t, fakeai.Reply{Content: "Plan: 1. read a.go"})
	f, work := newFactory(t, srv)
	s, err := f.New(context.Background(), Options{Workdir: work, Mode: windows.ModePlan})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Start("how would you fix calc?"); err != nil {
		t.Fatal(err)
	}
	dir, _ := f.SessionsDir()
	path := filepath.Join(dir, s.ID()+".jsonl")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if data, _ := os.ReadFile(path); strings.Contains(string(data), `"event":{"type":"turn"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no turn event in the transcript")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the hook had ended: %d model requests", n)
	}
	st, err := agent.FindSession(dir, work, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if turns := TurnsOf(Settled(StoredEvents(st))); len(turns) != 0 {
		t.Errorf("the turn read as it begins, before its question is stored: %s", jsonOf(t, turns))
	}
	s.Wait()
	if st, err = agent.FindSession(dir, work, s.ID()); err != nil {
		t.Fatal(err)
	}
	if turns := TurnsOf(Settled(StoredEvents(st))); len(turns) != 1 || turns[0].Question != "how would you fix calc?" {
		t.Errorf("the turn read once it ran: %s", jsonOf(t, turns))
	}
}

// Each event reads back as it was sent: its one encoding, both ways.
func TestEventsDecodeThemselves(t *testing.T) {
	code := 2
	for _, ev := range []Event{
		Text{Text: "a && b"},
		Turn{Turn: 3, Question: "why?"},
		Steer{Turn: 1, Text: "also x", Step: 2},
		Notice{Kind: "retry", Text: "retrying"},
		Decision{RequestID: "req_1", Decision: "allow", By: "web page"},
		StateEvent{State: StateExecuting},
		ModeEvent{Mode: windows.ModePlan, PlanReady: true},
		Window{ID: "bash_1", App: "bash", Title: "/w", Content: "$ ls"},
		Output{CallID: "c1", WindowID: "bash_1", Text: "out"},
		ToolResult{Call: callOf("c1"), Result: resultOf("ok", "exit 2"), Detail: windows.Result{Output: "x", ExitCode: &code, Failed: true}},
		Result{Outcome: LimitReached, Limit: LimitSteps, Error: "the turn made 50 model requests", SessionID: "s", Denials: []Denial{}},
		Result{Outcome: Failed, Cause: CauseRefused, Error: "refused", Denials: []Denial{}},
		Result{Outcome: Interrupted, Error: "interrupted", Denials: []Denial{}},
	} {
		data, err := Encode(ev)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Decode(ev.Type(), data)
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		again, _ := Encode(back)
		if string(again) != string(data) {
			t.Errorf("%s read back as %s", data, again)
		}
	}
	// A result an older aci stored has no outcome: its error said it.
	old, _ := Decode("result", []byte(`{"type":"result","is_error":true,"result":"","error":"interrupted","session_id":"s"}`))
	if r := old.(Result); r.Outcome != Interrupted {
		t.Errorf("old interrupted result: %+v", r)
	}
	if _, err := Decode("nonsense", []byte(`{}`)); err == nil {
		t.Error("an unknown type decodes")
	}
}

// planThenDefault runs a session in a workspace with a /fix-issue command:
// its first question in plan mode, the others in default mode. It returns
// the factory, the workspace, the session's id and its turns as it ended.
func planThenDefault(t *testing.T, srv *fakeai.Server, typed []string) (*Factory, string, string, []TurnInfo) {
	t.Helper()
	f, work := newFactory(t, srv)
	testfs.File(t, filepath.Join(work, ".aci/commands/fix-issue.md"), "---\ndescription: fix an issue\n---\nFix issue #$1 ($ARGUMENTS) with care.")
	s, err := f.New(context.Background(), Options{Workdir: work, Mode: windows.ModePlan})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i, q := range typed {
		if i == 1 {
			s.SetMode(windows.ModeDefault)
		}
		if _, err := asked(context.Background(), s, q); err != nil {
			t.Fatal(err)
		}
	}
	return f, work, s.ID(), s.Info().Turns
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func callOf(id string) protocol.Call { return protocol.Call{ID: id} }

func resultOf(status, text string) protocol.Result {
	return protocol.Result{Status: status, Text: text}
}

func TestCutOutput(t *testing.T) {
	for _, tc := range []struct {
		in   string
		keep bool
	}{
		{"short", true},
		{strings.Repeat("é", maxRecordedOutput), false},
	} {
		got := cutOutput(tc.in)
		if (got == tc.in) != tc.keep || len(got) > maxRecordedOutput+100 || !utf8.ValidString(got) {
			t.Errorf("cutOutput(%d bytes) = %d bytes", len(tc.in), len(got))
		}
	}
}
