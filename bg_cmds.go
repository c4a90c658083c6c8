package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/tools/worktree"
	"github.com/aci-dev/aci/ui"
)

// runBg is `aci --bg "task"`: the task goes to the workspace's background
// server (started when none runs) as a new session's first message; its
// id goes to stdout. With --worktree the session works in a new worktree.
func runBg(cfg config, args []string, workdir string, stdout, stderr io.Writer) int {
	if cfg.Yes || cfg.PermissionMode == "yes" {
		fmt.Fprintln(stderr, "aci: --bg does not take --yes: a background session's questions wait for aci attach ID or the page")
		return ui.ExitUsage
	}
	if cfg.PromptSet {
		fmt.Fprintln(stderr, "aci: --bg takes the task itself: aci --bg \"task\" (without -p)")
		return ui.ExitUsage
	}
	rec := bgRecord{Task: cfg.Bg, Started: time.Now().UTC(), Workdir: workdir}
	if cfg.WorktreeSet {
		wt, err := worktree.New(workdir, cfg.Worktree)
		if err != nil {
			fmt.Fprintln(stderr, "aci:", err)
			return exitFor(err)
		}
		rec.Workdir, rec.Worktree = wt.Path, wt.Name
		fmt.Fprintf(stderr, "aci: working in the worktree %s on branch %s\n", wt.Path, wt.Branch)
	}
	srv, err := ensureBgServer(rec.Workdir, bgServeFlags(args))
	if err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return ui.ExitFailed
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var created struct {
		ID string `json:"id"`
	}
	if err := srv.call(ctx, "POST", "/api/sessions", map[string]any{}, &created); err != nil {
		fmt.Fprintln(stderr, "aci: start a background session:", err)
		return ui.ExitFailed
	}
	rec.ID = created.ID
	if m := cfg.PermissionMode; m != "" && m != "default" {
		if err := srv.call(ctx, "POST", "/api/sessions/"+rec.ID+"/mode", map[string]string{"mode": string(m)}, nil); err != nil {
			fmt.Fprintln(stderr, "aci: set the permission mode:", err)
			return ui.ExitFailed
		}
	}
	// The record first: a task that ends at once is still listed.
	if err := saveRecord(workdir, rec); err != nil {
		fmt.Fprintln(stderr, "aci: keep the background session's record:", err)
		return ui.ExitFailed
	}
	if err := srv.call(ctx, "POST", "/api/sessions/"+rec.ID+"/messages", map[string]string{"text": cfg.Bg}, nil); err != nil {
		fmt.Fprintln(stderr, "aci: send the task:", err)
		return ui.ExitFailed
	}
	fmt.Fprintln(stdout, rec.ID)
	fmt.Fprintf(stderr, "aci: running in the background; follow it with aci attach %s, aci logs -f %s; aci ps lists them\n", rec.ID, rec.ID)
	return ui.ExitOK
}

// exitFor is 2 for a usage error, else 1.
func exitFor(err error) int {
	var u errUsage
	var wu *worktree.UsageError
	if errorsAs(err, &u) || errorsAs(err, &wu) {
		return ui.ExitUsage
	}
	return ui.ExitFailed
}

// bgRow is one line of aci ps.
type bgRow struct {
	bgRecord
	State string
	Cost  *float64
	Last  string
}

// psRows reads the state of workspace workdir's background sessions:
// each server keeps every session's state, cost and last words in a small
// file (bg_server.go), read here with no request; a session whose server
// is gone is not running, whatever its file says.
func psRows(workdir, sessionsDir string) ([]bgRow, error) {
	recs, err := bgRecords(workdir)
	if err != nil {
		return nil, err
	}
	up := map[string]bool{} // server workdir → its process lives
	rows := make([]bgRow, 0, len(recs))
	for _, r := range recs {
		alive, ok := up[r.Workdir]
		if !ok {
			alive = serverUp(r.Workdir)
			up[r.Workdir] = alive
		}
		row := bgRow{bgRecord: r, State: "finished"}
		res, ok := readResult(r.Workdir, r.ID)
		if ok {
			row.Cost, row.Last = res.Cost, res.Last
		} else {
			row.Cost, row.Last = lastResult(sessionsDir, r) // its server ended before writing it
		}
		switch {
		case !alive || res.State == "" || res.State == "idle":
			if row.Last == "" || alive && res.State == "" {
				row.State = map[bool]string{true: "running", false: "stopped"}[alive]
			}
		case res.State == "awaiting_approval":
			row.State = "waiting"
		default:
			row.State = "running"
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// serverUp says whether workdir's background server process lives.
func serverUp(workdir string) bool {
	dir, err := bgDir(workdir)
	if err != nil {
		return false
	}
	srv, err := readBgServer(dir)
	return err == nil && srv.PID > 0 && syscall.Kill(srv.PID, 0) == nil
}

// lastResult is the cost and answer of session r's last turn, from its
// transcript's last result event.
func lastResult(sessionsDir string, r bgRecord) (*float64, string) {
	st, err := session.FindSession(sessionsDir, r.Workdir, r.ID)
	if err != nil {
		return nil, ""
	}
	for i := len(st.Events) - 1; i >= 0; i-- {
		if st.Events[i].Type != "result" {
			continue
		}
		var d struct {
			Result  string   `json:"result"`
			Error   string   `json:"error"`
			IsError bool     `json:"is_error"`
			Cost    *float64 `json:"total_cost_usd"`
		}
		if json.Unmarshal(st.Events[i].Data, &d) != nil {
			continue
		}
		if d.IsError {
			return d.Cost, "failed: " + d.Error
		}
		return d.Cost, d.Result
	}
	return nil, ""
}

// runPs is `aci ps`.
func runPs(args []string, workdir string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "aci ps takes no argument, got %q\n", args[0])
		return ui.ExitUsage
	}
	dir, err := session.SessionsDir()
	if err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return ui.ExitFailed
	}
	rows, err := psRows(workdir, dir)
	if err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return ui.ExitFailed
	}
	if len(rows) == 0 {
		fmt.Fprintln(stderr, "aci: no background sessions in", workdir, "(start one with aci --bg \"task\")")
		return ui.ExitOK
	}
	fmt.Fprintln(stdout, psTable(rows))
	return ui.ExitOK
}

// psTable lays the rows out, newest first.
func psTable(rows []bgRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-26s  %-8s  %-8s  %-16s  %s", "ID", "STATE", "COST", "STARTED", "LAST WORDS")
	for i := len(rows) - 1; i >= 0; i-- {
		r := rows[i]
		cost := "-"
		if r.Cost != nil {
			cost = fmt.Sprintf("$%.4f", *r.Cost)
		}
		last := strings.Join(strings.Fields(r.Last), " ")
		if last == "" {
			last = "› " + strings.Join(strings.Fields(r.Task), " ")
		}
		if rs := []rune(last); len(rs) > 60 {
			last = string(rs[:59]) + "…"
		}
		if r.Worktree != "" {
			last = "[" + r.Worktree + "] " + last
		}
		fmt.Fprintf(&b, "\n%-26s  %-8s  %-8s  %-16s  %s", r.ID, r.State, cost, r.Started.Local().Format("2006-01-02 15:04"), last)
	}
	return b.String()
}

// sortRecords orders records oldest first.
func sortRecords(rs []bgRecord) {
	slices.SortFunc(rs, func(a, b bgRecord) int {
		if c := a.Started.Compare(b.Started); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// runBgCommand runs aci ps, attach, logs and worktree.
func runBgCommand(name string, args []string, stdin *os.File, stdout, stderr io.Writer) int {
	workdir, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "aci: cannot read the working directory:", err)
		return ui.ExitFailed
	}
	if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
		fmt.Fprint(stdout, bgHelp)
		return ui.ExitOK
	}
	switch name {
	case "ps":
		return runPs(args, workdir, stdout, stderr)
	case "logs":
		return runLogs(args, workdir, stdout, stderr)
	case "attach":
		return runAttach(args, workdir, stdin, stdout, stderr)
	case "worktree":
		return runWorktreeCmd(args, workdir, stdin, stdout, stderr)
	}
	return ui.ExitUsage
}
