package acp

import (
	"encoding/json"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/session"
)

// replay sends a stored session as the updates its events made: the
// questions, the model's words, each call as its window described it
// (the stored tool_call's title, kind and paths) with how it ended. The
// events are the transcript's log (agent/eventlog.go); secrets are
// removed once more, as a transcript is read from disk.
func (a *acpSession) replay(stored agent.Session) {
	send := func(u any) {
		data, _ := json.Marshal(u)
		var clean json.RawMessage = []byte(a.up.redact(string(data)))
		a.up.send(clean)
	}
	status := map[string]string{} // call id → how it ended
	for _, e := range stored.Events {
		if ev, ok := session.Typed(e); ok {
			if r, ok := ev.(session.ToolResult); ok {
				status[r.Call.ID] = r.Result.Status
			}
		}
	}
	for _, e := range stored.Events {
		ev, ok := session.Typed(e)
		if !ok {
			continue
		}
		switch ev := ev.(type) {
		case session.Turn:
			send(chunk{SessionUpdate: "user_message_chunk", Content: textBlock(ev.Question)})
		case session.Text:
			send(chunk{SessionUpdate: "agent_message_chunk", Content: textBlock(ev.Text)})
		case session.ToolCall:
			tc := a.up.described(ev)
			tc.SessionUpdate, tc.Status = "tool_call", statusCompleted
			if st := status[ev.Call.ID]; st == protocol.StatusError || st == protocol.StatusDenied {
				tc.Status = statusFailed
			}
			send(tc)
		}
	}
}
