package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/windows"
)

// An old transcript gives the turns a live session showed: the same
// conversation, as an aci from before event records wrote it (its records
// without the events, the question records and the turns' numbers; a
// call's output kept in its call record), gives the live turns — the plan
// mode's question as typed, not as the model got it with the mode's note
// — but for what such a transcript never kept: a command's exit status.
func TestOldTranscriptGivesTheLiveTurns(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	srv := fakeai.New(t,
		fakeai.Reply{Content: "Plan: 1. read a.go"},
		fakeai.Reply{Content: "Opening.\n" + call("launcher", "open", `{"app":"bash"}`)},
		fakeai.Reply{Content: call("bash_1", "run", `{"command":"echo fixed"}`)},
		fakeai.Reply{Content: "Fixed it."},
	)
	f, work := newFactory(t, srv)
	s, err := f.New(context.Background(), Options{Workdir: work, Mode: windows.ModePlan})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.Run(ctx, "how would you fix calc?"); err != nil {
		t.Fatal(err)
	}
	s.SetMode(windows.ModeDefault)
	if _, err := s.Run(ctx, "fix calc then"); err != nil {
		t.Fatal(err)
	}
	live := s.Info().Turns
	id := s.ID()
	s.Close()
	if len(live) != 2 || live[0].Question != "how would you fix calc?" || len(live[1].Actions) != 2 {
		t.Fatalf("live turns: %s", jsonOf(t, live))
	}
	for i := range live {
		for j := range live[i].Actions {
			live[i].Actions[j].ExitCode = nil // an old transcript never kept it
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
	if err != nil {
		t.Fatal(err)
	}
	if len(old.Events) != 0 || len(old.Legacy) == 0 {
		t.Fatalf("the old form has %d events and %d legacy records", len(old.Events), len(old.Legacy))
	}
	if got := StoredTurns(old); !reflect.DeepEqual(jsonOf(t, got), jsonOf(t, live)) {
		t.Errorf("the old transcript's turns\n%s\nthe live ones\n%s", jsonOf(t, got), jsonOf(t, live))
	}
}

// oldForm is the transcript at path as an aci from before event records
// wrote it.
func oldForm(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{} // call id → its output, from its tool_result event
	var recs []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r map[string]any
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		switch r["type"] {
		case "event":
			if ev, _ := r["event"].(map[string]any); ev["type"] == "tool_result" {
				out, _ := ev["output"].(string)
				outputs[ev["call_id"].(string)] = out
			}
			continue
		case "question":
			continue
		case "turn":
			delete(r, "turn")
		}
		recs = append(recs, r)
	}
	var b strings.Builder
	for _, r := range recs {
		if c, ok := r["call"].(map[string]any); ok && outputs[c["id"].(string)] != "" {
			c["output"] = outputs[c["id"].(string)]
		}
		line, _ := json.Marshal(r)
		b.Write(append(line, '\n'))
	}
	return []byte(b.String())
}
