package serve

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/session"
)

// TestRoutesBindEveryOperation: each operation the session's table gives
// an HTTP form is a route of this server, by method and pattern.
func TestRoutesBindEveryOperation(t *testing.T) {
	routed := map[string]bool{}
	for _, rt := range (&Server{}).routes() {
		routed[rt.method+" "+rt.pattern] = true
	}
	for _, o := range session.OpsOf(func(o session.Op) bool { return o.HTTP != "" }) {
		if !routed[o.HTTP] {
			t.Errorf("%s: %q is in session.Ops but no route", o.Name, o.HTTP)
		}
	}
}

// POST .../compact, .../model and .../effort are the REPL's /compact,
// /model NAME and /effort LEVEL: the next request goes to the model
// chosen, with what the compaction left of the conversation.
func TestCompactModelEffortOverAPI(t *testing.T) {
	r := newRig(t, []fakeai.Reply{
		{Content: "the first answer"},
		{Content: "Summary: the person asked one question."},
		{Content: "the second answer"},
	})
	r.ai.SetInfo(fakeai.Info{Models: []string{"test-model", "other-model"}})
	id := r.newSession()
	base := "/api/sessions/" + id
	if code, body := r.call("POST", base+"/compact", nil, nil); code != 409 || !strings.Contains(body, "nothing to compress yet") {
		t.Errorf("compact before a turn: %d %s", code, body)
	}
	ev := r.events(id, "")
	defer ev.close()
	r.ask(id, "first question")
	ev.until(func(e event) bool { return e.Type == "result" })
	ev.until(idle)

	var c struct {
		Before, After int64
		Line          string
	}
	r.must(200, "POST", base+"/compact", map[string]string{"focus": "the question"}, &c)
	if c.Line == "" {
		t.Errorf("compact answered %+v", c)
	}
	ev.until(func(e event) bool { return e.Type == "notice" && e.Data["kind"] == "compression" })
	if code, body := r.call("POST", base+"/compact", `{"focus": 3}`, nil); code != 400 {
		t.Errorf("a bad focus: %d %s", code, body)
	}

	if code, body := r.call("POST", base+"/model", map[string]string{"model": "nope"}, nil); code != 400 || !strings.Contains(body, `no model \"nope\" on this server`) {
		t.Errorf("an unknown model: %d %s", code, body)
	}
	var m struct{ Model string }
	r.must(200, "POST", base+"/model", map[string]string{"model": "other-model"}, &m)
	if m.Model != "other-model" {
		t.Errorf("model %q", m.Model)
	}
	if code, body := r.call("POST", base+"/effort", map[string]string{"effort": "extreme"}, nil); code != 400 || !strings.Contains(body, "want one of low, medium, high") {
		t.Errorf("an unknown effort: %d %s", code, body)
	}
	var e struct {
		Level, Model string
		Sent         bool
	}
	r.must(200, "POST", base+"/effort", map[string]string{"effort": "high"}, &e)
	if e.Level != "high" || e.Model != "other-model" || e.Sent {
		t.Errorf("effort %+v", e)
	}
	var info struct{ Model, Effort string }
	r.must(200, "GET", base, nil, &info)
	if info.Model != "other-model" || info.Effort != "high" {
		t.Errorf("the session's model %q, effort %q", info.Model, info.Effort)
	}

	r.ask(id, "second question")
	ev.until(func(e event) bool { return e.Type == "result" })
	reqs := r.ai.Requests()
	last := reqs[len(reqs)-1]
	msgs, _ := json.Marshal(last.Raw["messages"])
	if last.Model != "other-model" || !strings.Contains(string(msgs), "the person asked one question") {
		t.Errorf("the turn after the switch asked %q with %s", last.Model, msgs)
	}
	if _, ok := last.Raw["reasoning_effort"]; ok {
		t.Errorf("effort sent to a model that takes none: %v", last.Raw["reasoning_effort"])
	}
}
