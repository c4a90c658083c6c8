package session

import "github.com/aci-dev/aci/agent"

// StoredInfo is a transcript as a session not loaded shows it (read
// without taking its lock): idle, every turn with its actions and steered
// messages, the windows it had open, each with its content as its last
// window event gave it (eventlog.go).
func StoredInfo(st agent.Session, workdir string) Info {
	wins := []WindowInfo{{ID: "launcher", App: "launcher", Title: "Launcher"}}
	for _, w := range st.Windows {
		wins = append(wins, WindowInfo{ID: w.ID, App: w.App, Title: w.Target})
	}
	evs := StoredEvents(st)
	lastWindows(evs, wins)
	u, steps, cost := storedSpend(evs)
	return Info{
		ID: st.ID, Model: st.Model, Cwd: workdir, State: StateIdle, Parent: st.Parent, FromTurn: st.FromTurn,
		Turns: TurnsOf(evs), Windows: wins, Usage: u.asInfo(steps), Cost: costInfo(cost),
	}
}

// Past is a stored session as a front end shows it again on resuming it:
// its id and its events, typed.
type Past struct {
	ID     string
	Events []Event
}

// pastOf is a stored session's events (StoredEvents) as the front ends
// replay them.
func pastOf(id string, evs []Numbered) *Past {
	p := &Past{ID: id}
	for _, e := range evs {
		if r, _ := e.Event.(Recorded); r.Typed != nil {
			p.Events = append(p.Events, r.Typed)
		}
	}
	return p
}
