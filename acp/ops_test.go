package acp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
)

// An editor reaches the session's operations as available commands:
// /rewind lists the questions and goes back before one (the next prompt's
// conversation lacks it), /effort and /model set the next requests',
// /compact summarizes; each answers with a message, no turn.
func TestACPOperationsAsCommands(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: "answer one"},
		fakeai.Reply{Content: "answer two"},
		fakeai.Reply{Content: "answer three"},
		fakeai.Reply{Content: "Summary: two questions were asked."},
		fakeai.Reply{Content: "answer four"},
	)
	srv.SetInfo(fakeai.Info{Models: []string{"test-model", "other-model"}})
	e := startInProcess(t, srv, time.Minute)
	e.initialize(false, false)
	sid := e.newSession(t.TempDir())
	e.until("the operations offered as commands", func() bool {
		names := map[string]bool{}
		for _, u := range kinds(e.updates, "available_commands_update") { // under e.mu
			cmds, _ := u["availableCommands"].([]any)
			for _, c := range cmds {
				m, _ := c.(map[string]any)
				names[m["name"].(string)] = true
			}
		}
		return names["compact"] && names["model"] && names["effort"] && names["rewind"]
	})
	for _, q := range []string{"first question", "second question"} {
		if got := e.prompt(sid, q); got != "end_turn" {
			t.Fatalf("%s: stopReason %q", q, got)
		}
	}
	said := func(text, want string) {
		t.Helper()
		before := len(chunkText(e.allUpdates(), "agent_message_chunk"))
		if got := e.prompt(sid, text); got != "end_turn" {
			t.Fatalf("%s: stopReason %q", text, got)
		}
		var got string
		e.until(text+" answered", func() bool {
			got = chunkText(e.updates, "agent_message_chunk")[before:] // under e.mu
			return strings.Contains(got, want)
		})
	}
	said("/rewind", "1. first question\n2. second question")
	said("/rewind 2", "back before question 2")
	said("/rewind 9", "error: no such question 9")
	said("third question", "answer three")
	if read := readAll(srv.Requests()[2]); !strings.Contains(read, "first question") || strings.Contains(read, "second question") {
		t.Errorf("after /rewind 2 the model read:\n%s", read)
	}
	said("/effort extreme", `error: reasoning effort "extreme"`)
	said("/effort high", "reasoning effort: high (test-model takes none")
	said("/model nope", `error: no model "nope" on this server`)
	said("/model", "- * `test-model`")
	said("/model other-model", "model: other-model")
	said("/compact", "tokens")
	said("fourth question", "answer four")
	reqs := srv.Requests()
	if last := reqs[len(reqs)-1]; last.Model != "other-model" || !strings.Contains(readAll(last), "two questions were asked") {
		t.Errorf("the prompt after /model and /compact went to %q with %s", last.Model, readAll(last))
	}
}

// readAll is every message of a request, one after the other.
func readAll(r fakeai.Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Content + "\n")
	}
	return b.String()
}
