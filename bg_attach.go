package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/aci-dev/aci/internal/sse"
	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/ui"
)

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// useColor says whether w is a terminal that shows colour.
func useColor(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// runLogs is `aci logs [-f] ID`: the session's transcript as readable
// text; -f follows it as it grows until the session's turn ends and no
// new one begins... or Ctrl-C.
func runLogs(args []string, workdir string, stdout, stderr io.Writer) int {
	follow := false
	var id string
	for _, a := range args {
		switch {
		case a == "-f" || a == "--follow":
			follow = true
		case strings.HasPrefix(a, "-"):
			fmt.Fprintf(stderr, "aci logs: unknown flag %s (aci logs [-f] ID)\n", a)
			return ui.ExitUsage
		case id == "":
			id = a
		default:
			fmt.Fprintf(stderr, "aci logs takes one session id, got %q too\n", a)
			return ui.ExitUsage
		}
	}
	if id == "" {
		fmt.Fprintln(stderr, "aci logs needs a session id (aci ps lists them)")
		return ui.ExitUsage
	}
	rec, err := findRecord(workdir, id)
	if err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return exitFor(err)
	}
	dir, err := session.SessionsDir()
	if err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return ui.ExitFailed
	}
	view := ui.NewEventView(stdout, useColor(stdout))
	var last int64
	show := func() error {
		st, err := session.FindSession(dir, rec.Workdir, rec.ID)
		if errors.Is(err, session.ErrNoSession) {
			return nil // nothing written yet
		}
		if err != nil {
			return err
		}
		for _, n := range session.Settled(session.StoredEvents(st)) {
			if rec, ok := n.Event.(session.Recorded); ok && n.ID > last {
				if rec.Typed != nil {
					view.Show(rec.Typed)
				}
				last = n.ID
			}
		}
		return nil
	}
	if err := show(); err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return ui.ExitFailed
	}
	if !follow {
		view.Flush()
		return ui.ExitOK
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	tick := time.NewTicker(300 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			view.Flush()
			return ui.ExitOK
		case <-tick.C:
			if err := show(); err != nil {
				fmt.Fprintln(stderr, "aci:", err)
				return ui.ExitFailed
			}
		}
	}
}

// approvalAsk is an approval event's fields aci attach shows.
type approvalAsk struct {
	RequestID string `json:"request_id"`
	Title     string `json:"title"`
	Reason    string `json:"reason"`
	ActionID  string `json:"action_id"`
}

// runAttach is `aci attach ID`: the session in this terminal, live. Its
// past is drawn first, then each event as it happens; a question it asks
// is answered here (y, n or a), any other line is a new message (joining
// a running turn, or starting a turn in a finished session), /exit or
// Ctrl-D leaves it running in the background.
func runAttach(args []string, workdir string, stdin *os.File, stdout, stderr io.Writer) int {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(stderr, "aci attach needs one session id (aci ps lists them)")
		return ui.ExitUsage
	}
	rec, err := findRecord(workdir, args[0])
	if err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return exitFor(err)
	}
	// A finished session's server may have stopped: one is started to show
	// it and take a new question; it stops again when idle.
	srv, err := ensureBgServer(rec.Workdir, nil)
	if err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return ui.ExitFailed
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var info struct {
		State string `json:"state"`
	}
	if err := srv.call(ctx, "GET", "/api/sessions/"+rec.ID, nil, &info); err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return ui.ExitFailed
	}
	view := ui.NewEventView(stdout, useColor(stdout))
	view.Note(fmt.Sprintf("── attached to %s (%s); /exit or Ctrl-D leaves it running ──", rec.ID, rec.Task))
	events := make(chan sse.Event, 64)
	streamErr := make(chan error, 1)
	go func() { streamErr <- followEvents(ctx, srv, rec.ID, events) }()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	finished := info.State == "idle"
	var asking *approvalAsk
	idleNote := time.NewTimer(500 * time.Millisecond) // after the past is drawn
	for {
		select {
		case <-ctx.Done():
			view.Flush()
			return ui.ExitOK
		case err := <-streamErr:
			view.Flush()
			if err != nil && ctx.Err() == nil {
				fmt.Fprintln(stderr, "aci: the background server went away:", err)
				return ui.ExitFailed
			}
			return ui.ExitOK
		case <-idleNote.C:
			if finished && !view.InTurn() {
				view.Note("── this session has finished; type a question to go on with it in the background, or /exit ──")
			}
		case ev := <-events:
			switch ev.Type {
			case "approval":
				var a approvalAsk
				if json.Unmarshal([]byte(ev.Data), &a) == nil {
					asking = &a
					what := a.Title
					if what == "" {
						what = a.ActionID
					}
					view.Line(fmt.Sprintf("? %s — %s", what, a.Reason))
					view.Line("  allow? [y]es, [n]o, [a]lways for this session: ")
				}
			case "decision":
				var d struct {
					RequestID string `json:"request_id"`
				}
				json.Unmarshal([]byte(ev.Data), &d)
				if asking != nil && asking.RequestID == d.RequestID {
					asking = nil // answered here or elsewhere (the page)
				}
				showWire(view, ev)
			case "result":
				showWire(view, ev)
				finished = true
				idleNote.Reset(300 * time.Millisecond)
			default:
				showWire(view, ev)
			}
		case line, ok := <-lines:
			if !ok || strings.TrimSpace(line) == "/exit" {
				view.Flush()
				view.Note("── detached; the session goes on in the background ──")
				return ui.ExitOK
			}
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			if asking != nil {
				decision := map[string]string{"y": "allow", "yes": "allow", "n": "deny", "no": "deny", "a": "always", "always": "always"}[strings.ToLower(line)]
				if decision == "" {
					view.Line("  answer y, n or a")
					continue
				}
				err := srv.call(ctx, "POST", "/api/sessions/"+rec.ID+"/approvals/"+asking.RequestID, map[string]string{"decision": decision}, nil)
				var he *httpError
				if errors.As(err, &he) && he.status == http.StatusNotFound {
					view.Note("that question was answered already")
				} else if err != nil {
					fmt.Fprintln(stderr, "aci:", err)
				}
				asking = nil
				continue
			}
			if err := srv.call(ctx, "POST", "/api/sessions/"+rec.ID+"/messages", map[string]string{"text": line}, nil); err != nil {
				fmt.Fprintln(stderr, "aci:", err)
				continue
			}
			finished = false
		}
	}
}

// followEvents streams session id's events from its first, reconnecting
// after the last one seen when the stream ends while the server runs.
func followEvents(ctx context.Context, srv bgServer, id string, out chan<- sse.Event) error {
	last := int64(0)
	for ctx.Err() == nil {
		req, err := http.NewRequestWithContext(ctx, "GET", "http://"+srv.Addr+"/api/sessions/"+id+"/events", nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+srv.Token)
		req.Header.Set("Last-Event-ID", strconv.FormatInt(last, 10))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return fmt.Errorf("events: HTTP %d", resp.StatusCode)
		}
		sse.Read(resp.Body, func(ev sse.Event) {
			last = max(last, ev.ID)
			select {
			case out <- ev:
			case <-ctx.Done():
			}
		})
		resp.Body.Close()
		time.Sleep(200 * time.Millisecond)
	}
	return nil
}

// showWire draws an event of the server's stream.
func showWire(view *ui.EventView, ev sse.Event) {
	if typed, err := session.Decode(ev.Type, json.RawMessage(ev.Data)); err == nil {
		view.Show(typed)
	}
}
