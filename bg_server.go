package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/aci-dev/aci/serve"
	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/ui"
)

// bgIdleFor is how long the background server waits with nothing to do
// before it stops: bgIdle, or ACI_BG_IDLE_S seconds (tests).
func bgIdleFor() time.Duration {
	if v, err := strconv.ParseFloat(os.Getenv("ACI_BG_IDLE_S"), 64); err == nil && v > 0 {
		return time.Duration(v * float64(time.Second))
	}
	return bgIdle
}

// stopWhenIdle ends the server (stop) once no session has run a turn,
// waited for an answer or been followed for idle: a background server
// never outlives its work for long.
func stopWhenIdle(ctx context.Context, srv *serve.Server, idle time.Duration, stop func(), say func(string)) {
	every := min(idle/4, 15*time.Second)
	t := time.NewTicker(every)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if srv.Busy() {
				last = now
				continue
			}
			if now.Sub(last) >= idle {
				say("idle for " + idle.String() + " with no running session: stopping")
				stop()
				return
			}
		}
	}
}

// removeBgState removes server.json when it still names this process.
func removeBgState(path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var s bgServer
	if json.Unmarshal(data, &s) == nil && s.PID == os.Getpid() {
		os.Remove(path)
	}
}

// bgNotify tells the person, as ACI_NOTIFY says, when a background
// session asks a question or ends a turn; nil for a server of one's own.
// A background server has no terminal: only a notification program
// reaches anyone.
func bgNotify(bgState string) func(string, session.Event) {
	if bgState == "" {
		return nil
	}
	dir := filepath.Dir(bgState)
	var mu sync.Mutex
	kept := map[string]bgResult{}
	keep := func(id string, change func(*bgResult)) {
		if id == "" {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		r, ok := kept[id]
		if !ok {
			r, _ = readResultIn(dir, id) // a session loaded again keeps its last words
		}
		change(&r)
		kept[id] = r
		saveResult(dir, id, r)
	}
	return func(id string, ev session.Event) {
		switch e := ev.(type) {
		case session.StateEvent:
			keep(id, func(r *bgResult) { r.State = string(e.State) })
		case session.Approval:
			what := e.Title
			if what == "" {
				what = e.Reason
			}
			ui.NotifyBackground(os.Getenv, "approval", id, "aci: a background session waits for an answer (aci attach "+id+"): "+what)
		case session.Result:
			keep(id, func(r *bgResult) { r.set(e) })
			text := "aci: a background session finished: " + e.Answer
			if e.Outcome != session.Answered {
				text = "aci: a background session's turn ended: " + e.Error
			}
			ui.NotifyBackground(os.Getenv, "turn_end", id, text)
		}
	}
}

// bgResult is results/ID.json: a background session's last turn's end,
// written by its server so aci ps reads one small file instead of the
// transcript.
type bgResult struct {
	State string   `json:"state"` // the loop's state (idle, awaiting_model, ...)
	Cost  *float64 `json:"total_cost_usd"`
	Last  string   `json:"last"`
}

// set takes a turn's end.
func (r *bgResult) set(e session.Result) {
	r.Last = e.Answer
	if e.Outcome != session.Answered {
		r.Last = "failed: " + e.Error
	}
	if rs := []rune(r.Last); len(rs) > 500 {
		r.Last = string(rs[:500])
	}
	r.Cost = e.Money.TotalCostUSD()
}

// saveResult keeps session id's state, last words and cost in
// dir/results.
func saveResult(dir, id string, r bgResult) {
	if data, err := json.Marshal(r); err == nil {
		writeFileAtomic(filepath.Join(dir, "results", id+".json"), data)
	}
}

// readResult is session id's state and last result as its server kept
// them.
func readResult(workdir, id string) (bgResult, bool) {
	dir, err := bgDir(workdir)
	if err != nil {
		return bgResult{}, false
	}
	return readResultIn(dir, id)
}

func readResultIn(dir, id string) (bgResult, bool) {
	data, err := os.ReadFile(filepath.Join(dir, "results", id+".json"))
	if err != nil {
		return bgResult{}, false
	}
	var r bgResult
	return r, json.Unmarshal(data, &r) == nil
}
