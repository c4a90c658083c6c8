package acp

import (
	"encoding/json"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/session"
)

// replay sends a stored session as the updates its events made: the
// questions as the person typed them, the model's words (an answer as one
// chunk, however it was streamed), each call as its window described it
// (the stored tool_call's title, kind and paths) with how it ended. The
// events are the transcript's log (session.StoredEvents); secrets are
// removed once more, as a transcript is read from disk.
func (a *acpSession) replay(past session.Past) {
	send := func(u any) {
		data, _ := json.Marshal(u)
		var clean json.RawMessage = []byte(a.up.redact(string(data)))
		a.up.send(clean)
	}
	status := map[string]string{} // call id → how it ended
	for _, ev := range past.Events {
		if r, ok := ev.(session.ToolResult); ok {
			status[r.Call.ID] = r.Result.Status
		}
	}
	words := ""
	flush := func() {
		if words != "" {
			send(chunk{SessionUpdate: "agent_message_chunk", Content: textBlock(words)})
			words = ""
		}
	}
	for _, ev := range past.Events {
		if t, ok := ev.(session.Text); ok {
			words += t.Text // pieces an older aci stored one by one
			continue
		}
		switch ev := ev.(type) {
		case session.Turn:
			flush()
			send(chunk{SessionUpdate: "user_message_chunk", Content: textBlock(ev.Question)})
		case session.ToolCall:
			flush()
			tc := a.up.described(ev)
			tc.SessionUpdate, tc.Status = "tool_call", statusCompleted
			if st := status[ev.Call.ID]; st == protocol.StatusError || st == protocol.StatusDenied {
				tc.Status = statusFailed
			}
			send(tc)
		case session.Result:
			flush()
		}
	}
	flush()
}
