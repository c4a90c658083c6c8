package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/windows"
)

// Notifications (docs/protocol.md §9): when a turn that ran 10 s or more ends,
// or a question waits, and the terminal is not focused, aci tells the
// person as ACI_NOTIFY says: auto (OSC 9 on terminals known to show it,
// else BEL), bell, osc9, off, or a program that reads one JSON object on
// stdin. A program that fails or does not finish within notifyTimeout is
// a notice; the turn never waits for it.

const (
	notifyMinTurn = 10 * time.Second
	notifyTimeout = 5 * time.Second
)

// notifyEvent is what a notification program reads on stdin.
type notifyEvent struct {
	Event     string `json:"event"` // "turn_end" or "approval"
	SessionID string `json:"session_id"`
	Text      string `json:"text"`
}

// notifier sends the notifications of one terminal.
type notifier struct {
	mode    string // "bell", "osc9", "off" or "program"
	program string
	out     io.Writer // the terminal
	minTurn time.Duration
	focus   *focusState
	notice  func(string) // a line for the person (a program's failure)
	timeout time.Duration

	lock    sync.Locker // held while writing: the renderer's, so a sequence is never cut
	running sync.WaitGroup
}

// newNotifier reads ACI_NOTIFY (and the testing knob ACI_NOTIFY_MIN_S, the
// least seconds a turn must run to notify) from getenv.
func newNotifier(getenv func(string) string, out io.Writer, focus *focusState, notice func(string)) *notifier {
	n := &notifier{out: out, focus: focus, notice: notice, minTurn: notifyMinTurn, timeout: notifyTimeout, lock: &sync.Mutex{}}
	if s := getenv("ACI_NOTIFY_MIN_S"); s != "" {
		if v, err := strconv.ParseFloat(s, 64); err == nil && v >= 0 {
			n.minTurn = time.Duration(v * float64(time.Second))
		}
	}
	switch v := strings.TrimSpace(getenv("ACI_NOTIFY")); strings.ToLower(v) {
	case "", "auto":
		n.mode = "bell"
		if showsOSC9(getenv) {
			n.mode = "osc9"
		}
	case "bell", "osc9", "off":
		n.mode = strings.ToLower(v)
	default:
		n.mode, n.program = "program", v
	}
	return n
}

// showsOSC9 tells the terminals known to show OSC 9 as a desktop
// notification: iTerm2, WezTerm, kitty, ghostty, Windows Terminal. Others
// may print its text or nothing, so they get BEL.
func showsOSC9(getenv func(string) string) bool {
	switch getenv("TERM_PROGRAM") {
	case "iTerm.app", "WezTerm", "ghostty":
		return true
	}
	return getenv("KITTY_WINDOW_ID") != "" || getenv("TERM") == "xterm-kitty" || getenv("TERM") == "xterm-ghostty" ||
		getenv("WT_SESSION") != ""
}

// turnEnded notifies of a turn's end when it ran long enough.
func (n *notifier) turnEnded(sessionID string, took time.Duration, text string) {
	if took < n.minTurn {
		return
	}
	n.send(notifyEvent{Event: "turn_end", SessionID: sessionID, Text: text})
}

// waiting notifies that a question waits for the person.
func (n *notifier) waiting(sessionID, text string) {
	n.send(notifyEvent{Event: "approval", SessionID: sessionID, Text: text})
}

func (n *notifier) send(ev notifyEvent) {
	if n == nil || n.mode == "off" || n.focus.focused() {
		return
	}
	ev.Text = oneLine(ev.Text, 200)
	switch n.mode {
	case "bell":
		n.write("\a")
	case "osc9":
		// The text may hold neither BEL nor ESC: either would end the
		// sequence early.
		n.write("\x1b]9;" + strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return ' '
			}
			return r
		}, ev.Text) + "\a")
	case "program":
		n.running.Add(1)
		go func() {
			defer n.running.Done()
			if err := runNotifyProgram(n.program, ev, n.timeout); err != nil && n.notice != nil {
				n.notice("ACI_NOTIFY: " + err.Error())
			}
		}()
	}
}

func (n *notifier) write(s string) {
	n.lock.Lock()
	defer n.lock.Unlock()
	io.WriteString(n.out, s)
}

// wait waits for the programs started (tests, and the way out).
func (n *notifier) wait() { n.running.Wait() }

// runNotifyProgram runs the person's program (through the shell, so it may
// carry arguments) with the event on stdin. It ends it, and everything it
// started, after timeout.
func runNotifyProgram(program string, ev notifyEvent, timeout time.Duration) error {
	data, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	shell, flag := "/bin/sh", "-c"
	if runtime.GOOS == "windows" {
		shell, flag = "cmd", "/c"
	}
	cmd := exec.CommandContext(ctx, shell, flag, program)
	cmd.Stdin = bytes.NewReader(append(data, '\n'))
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	setGroup(cmd)
	cmd.WaitDelay = time.Second // a grandchild holding the pipes open does not hold us
	err = cmd.Run()
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("the program %q did not finish within %s: ended it", program, timeout)
	case err != nil:
		msg := strings.TrimSpace(stderr.String())
		if msg != "" {
			return fmt.Errorf("the program %q failed: %v: %s", program, err, oneLine(msg, 200))
		}
		return fmt.Errorf("the program %q failed: %v", program, err)
	}
	return nil
}

// oneLine is s on one line, at most max runes.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}

// environ is the process's environment, for newNotifier.
func environ(k string) string { return os.Getenv(k) }

// notifyTurn notifies of a turn's end (REPL.Event).
func (r *REPL) notifyTurn(res session.Result) {
	text := "aci: done"
	switch {
	case res.Outcome == session.Answered && strings.TrimSpace(res.Answer) != "":
		text += ": " + res.Answer
	case res.Outcome == session.Interrupted:
		text = "aci: the turn was interrupted"
	case res.Failure():
		text = "aci: the turn failed: " + res.Error
	case res.Outcome == session.LimitReached:
		text = "aci: the turn stopped at a limit: " + res.Error
	}
	r.notify.turnEnded(res.SessionID, res.Duration, text)
}

// notifyWaiting notifies that a question waits (REPL.Approve); with
// --yes none does.
func (r *REPL) notifyWaiting(req windows.ApprovalRequest) {
	if r.cfg.Yes {
		return
	}
	r.notify.waiting(r.sess.ID(), "aci: a question waits: "+req.Subject)
}

// NotifyBackground tells the person of a background session's event
// (aci --bg, which has no terminal) when ACI_NOTIFY names a program: the
// program gets the JSON object the REPL's would. Other values need a
// terminal and send nothing. It does not wait for the program.
func NotifyBackground(getenv func(string) string, event, sessionID, text string) {
	n := newNotifier(getenv, io.Discard, nil, nil)
	if n.mode != "program" {
		return
	}
	go runNotifyProgram(n.program, notifyEvent{Event: event, SessionID: sessionID, Text: oneLine(text, 200)}, n.timeout)
}
