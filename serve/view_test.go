package serve

import (
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// Looking at a session the server does not run (its info, its windows,
// its event stream) loads nothing and locks nothing; the stream follows
// it once a message loads it.
func TestLookingLoadsNothing(t *testing.T) {
	r := newRig(t, []fakeai.Reply{{Content: "first"}, {Content: "second"}})
	id, ev := r.followedSession()
	r.ask(id, "one")
	ev.until(idle)
	ev.close()
	r.must(200, "DELETE", "/api/sessions/"+id, nil, nil) // unloaded; the transcript stays

	var info struct {
		State string
		Turns []struct{ Question, Answer string }
	}
	r.must(200, "GET", "/api/sessions/"+id, nil, &info)
	if info.State != "idle" || len(info.Turns) != 1 || info.Turns[0].Answer != "first" {
		t.Errorf("info %+v", info)
	}
	r.must(200, "GET", "/api/sessions/"+id+"/windows/launcher", nil, nil)
	watch := r.events(id, "")
	waitFor(t, "the stream to open", func() bool { return r.srv.streams.Load() == 1 })
	if r.srv.lookup(id) != nil {
		t.Fatal("looking loaded the session")
	}
	r.ask(id, "two") // sending loads it
	evs := watch.until(idle)
	if got := types(evs); !isSubsequence([]string{"turn", "text", "result", "state:idle"}, got) {
		t.Errorf("the stream after the load: %v", got)
	}
}
