package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
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
	return func(id string, ev session.Event) {
		switch e := ev.(type) {
		case session.Approval:
			what := e.Title
			if what == "" {
				what = e.Reason
			}
			ui.NotifyBackground(os.Getenv, "approval", id, "aci: a background session waits for an answer (aci attach "+id+"): "+what)
		case session.Result:
			saveResult(filepath.Dir(bgState), id, e)
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
	Cost *float64 `json:"total_cost_usd"`
	Last string   `json:"last"`
}

// saveResult keeps session id's last words and cost in dir/results.
func saveResult(dir, id string, e session.Result) {
	last := e.Answer
	if e.Outcome != session.Answered {
		last = "failed: " + e.Error
	}
	if r := []rune(last); len(r) > 500 {
		last = string(r[:500])
	}
	data, err := json.Marshal(bgResult{Cost: e.Money.TotalCostUSD(), Last: last})
	if err == nil && id != "" {
		writeFileAtomic(filepath.Join(dir, "results", id+".json"), data)
	}
}

// readResult is session id's last result as its server kept it.
func readResult(workdir, id string) (bgResult, bool) {
	dir, err := bgDir(workdir)
	if err != nil {
		return bgResult{}, false
	}
	data, err := os.ReadFile(filepath.Join(dir, "results", id+".json"))
	if err != nil {
		return bgResult{}, false
	}
	var r bgResult
	return r, json.Unmarshal(data, &r) == nil
}
