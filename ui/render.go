package ui

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/chzyer/readline"
	"github.com/fatih/color"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/windows"
)

// Spinner labels.
const (
	spinThinking = "thinking"
	spinRunning  = "running"
	spinWriting  = "writing a tool call"
)

// renderer draws a session on the terminal: the model's text as it streams
// (without its <tool_call> blocks), one dim line per call and its result, a
// spinner while waiting, and aci's own notes. Every write takes one lock,
// because events arrive from the agent while the spinner ticks.
type renderer struct {
	mu    sync.Mutex
	w     *countingWriter // what the renderer writes; the spinner writes past it
	color bool
	spin  spinner
	tail  liveTail // a running command's last lines (render_live.go)

	atStart bool // the cursor is at the start of a line
	began   bool // the current reply has shown text
	nl      int  // newlines the stream ended with, held until more text comes
	resume  string

	thinking bool // reasoning is being shown (render_reasoning.go)

	// markdown, when set, renders finished blocks of the answer; nil
	// streams the text as it is.
	md *mdStream
	// markdown says whether md may be used (a terminal that shows colour).
	markdown bool

	dim, bold, red, green, yellow, cyan, cyanPlain, alert *color.Color
}

// newRenderer writes to w; colours and the spinner only when asked, which
// the caller decides from the terminal, NO_COLOR and TERM.
func newRenderer(w io.Writer, useColor, useSpinner bool) *renderer {
	r := &renderer{w: &countingWriter{w: w}, color: useColor, atStart: true}
	mk := func(a ...color.Attribute) *color.Color {
		c := color.New(a...)
		if useColor {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		return c
	}
	r.dim, r.bold, r.red = mk(color.Faint), mk(color.Bold), mk(color.FgRed)
	r.green, r.yellow, r.cyan = mk(color.FgGreen), mk(color.FgYellow), mk(color.FgCyan, color.Bold)
	r.alert = mk(color.FgRed, color.Bold, color.Underline)
	r.cyanPlain = mk(color.FgCyan)
	r.spin = spinner{mu: &r.mu, style: func(s string) string { return r.dim.Sprint(s) }}
	if useSpinner {
		r.spin.w = w
	}
	if useColor {
		r.spin.erase = "\x1b[K" // without colour, spaces: NO_COLOR output has no escape codes
	}
	return r
}

// event shows one of the session's events; the REPL hands it every one,
// in order, as it happens.
func (r *renderer) event(ev session.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e := ev.(type) {
	case session.Text:
		switch {
		case e.Reasoning:
			r.reasoningLocked(e.Text)
		case e.Calling:
			r.endReasoningLocked()
			r.flushProseLocked()
			r.endLineLocked()
			r.spin.startLocked(spinWriting)
		default:
			r.endReasoningLocked()
			r.proseLocked(e.Text)
		}
	case session.StateEvent:
		if e.State == session.StateAwaitingModel {
			// A new model request: the reply before it, if any, ended.
			r.endReasoningLocked()
			r.endReplyLocked()
			r.spin.startLocked(spinThinking)
		}
	case session.Notice:
		switch {
		case e.Client:
			// The process prints the client's notes itself (Notices).
		case e.Kind == "compression":
			// /compact's line may come after its end: no spinner over the prompt then.
			spinning := r.spin.activeLocked() != ""
			r.spin.stopLocked()
			r.endLineLocked()
			fmt.Fprintln(r.w, r.dim.Sprint(e.Text))
			if spinning {
				r.spin.startLocked(spinThinking)
			}
		default:
			r.noticeLocked(e.Text)
		}
	case session.ToolCall:
		r.endReasoningLocked()
		r.endReplyLocked()
		head := firstLine(sanitize(e.Described("").Title), screenWidth()-4)
		fmt.Fprintln(r.w, r.dim.Sprint("▸ "+head))
		r.tail = liveTail{call: e.Call.ID}
		r.spin.startLocked(spinRunning)
	case session.Output:
		// The running call's, under its line; a background task's output
		// shows in its window, not over the prompt.
		if e.CallID != "" && e.CallID == r.tail.call {
			r.liveLocked(e.Text)
		}
	case session.ToolResult:
		r.eraseTailLocked()
		r.tail = liveTail{}
		r.spin.stopLocked()
		r.endLineLocked()
		fmt.Fprintln(r.w, "  "+r.resultLine(e.Result, e.Detail, screenWidth()-6))
		r.detailLocked(e.Detail, screenWidth()-6)
		r.spin.startLocked(spinThinking)
	case session.Result:
		r.endTurnLocked()
		switch e.Outcome {
		case session.Interrupted:
			fmt.Fprintln(r.w, r.yellow.Sprint("⊘ interrupted"))
		case session.Failed:
			fmt.Fprintln(r.w, r.red.Sprint("error: "+sanitize(e.Error)))
		case session.LimitReached:
			fmt.Fprintln(r.w, r.yellow.Sprint("⊘ limit ("+e.Limit+"): "+sanitize(e.Error)))
		}
		if e.Steps > 0 {
			r.summaryLocked(e.Steps, e.Usage.PromptTokens, e.Usage.CachedTokens, e.Usage.CompletionTokens, e.Duration, e.Money.Line())
		}
	}
}

var blankLines = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\n{3,}`) })

// showLocked writes streamed prose. Blank lines at the start of a reply are
// dropped, newlines at the end of a delta wait for more text, and runs of
// blank lines shrink to one, so the space a hidden tool call leaves behind
// does not pile up.
func (r *renderer) showLocked(text string) {
	text = sanitize(text)
	if !r.began {
		text = strings.TrimLeft(text, "\n")
	}
	body := strings.TrimRight(text, "\n")
	trail := len(text) - len(body)
	if body == "" {
		r.nl += trail
		return
	}
	r.spin.stopLocked()
	lead := len(body) - len(strings.TrimLeft(body, "\n"))
	body = blankLines().ReplaceAllString(body[lead:], "\n\n")
	nl := min(r.nl+lead, 2)
	if !r.began {
		nl = 0
	}
	if r.atStart && nl > 0 {
		nl-- // the line is already ended
	} else if !r.atStart && !r.began {
		nl = 1 // never continue aci's own line
	}
	fmt.Fprint(r.w, strings.Repeat("\n", nl)+body)
	r.began, r.atStart, r.nl = true, false, trail
}

// endReplyLocked shows what the Markdown stream holds and ends the line.
func (r *renderer) endReplyLocked() {
	r.flushProseLocked()
	r.spin.stopLocked()
	r.endLineLocked()
	r.began = false
}

// endLineLocked moves to a fresh line unless the cursor is at one; held
// newlines are dropped.
func (r *renderer) endLineLocked() {
	if !r.atStart {
		fmt.Fprintln(r.w)
		r.atStart = true
	}
	r.nl = 0
}

// beginTurn prepares for a turn's events: readline left the cursor at the
// start of a line.
func (r *renderer) beginTurn() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.began, r.nl, r.atStart, r.resume = false, 0, true, ""
	r.tail = liveTail{}
	r.md = nil
	if r.markdown && r.color {
		r.md = newMDStream(screenWidth())
	}
	r.spin.startLocked(spinThinking)
}

// endTurn stops the spinner and ends the line, whatever the turn left.
func (r *renderer) endTurn() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endTurnLocked()
}

func (r *renderer) endTurnLocked() {
	r.flushProseLocked()
	r.spin.stopLocked()
	r.endLineLocked()
	r.began, r.thinking = false, false
}

// suspend clears the screen's live parts so a question can be asked;
// resume restarts the spinner that was showing.
func (r *renderer) suspend() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.resume = r.spin.activeLocked()
	r.spin.stopLocked()
	r.endLineLocked()
	r.tail.held = true // a question is on screen: no drawing under it
}

func (r *renderer) resumeSpinner() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tail.held = false
	if r.resume != "" {
		r.spin.startLocked(r.resume)
		r.resume = ""
	}
}

// println writes one line of aci's own text (already styled).
func (r *renderer) println(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.spin.stopLocked()
	r.endLineLocked()
	fmt.Fprintln(r.w, s)
}

// raw writes s as it is (a terminal control sequence).
func (r *renderer) raw(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.spin.stopLocked()
	fmt.Fprint(r.w, s)
}

// answer writes a whole answer: rendered as Markdown where the stream
// would be.
func (r *renderer) answer(text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.spin.stopLocked()
	r.endLineLocked()
	if r.markdown && r.color {
		if md := newMDStream(screenWidth()); md != nil {
			md.add(r.w, strings.TrimSpace(sanitize(text))+"\n", &r.atStart)
			md.flush(r.w, &r.atStart)
			return
		}
	}
	fmt.Fprintln(r.w, strings.TrimSpace(sanitize(text)))
}

// note writes a dim line.
func (r *renderer) note(s string) { r.println(r.dim.Sprint(sanitize(s))) }

// fail writes an error line.
func (r *renderer) fail(s string) { r.println(r.red.Sprint("error: " + sanitize(s))) }

// summaryLocked ends a turn with one dim line: model calls, tokens, time.
func (r *renderer) summaryLocked(steps int, in, cached, out int64, d time.Duration, money string) {
	tokens := humanTokens(in) + " in"
	if cached > 0 {
		tokens += " (" + humanTokens(cached) + " cached)"
	}
	if money != "" {
		money = " · " + money
	}
	r.endLineLocked()
	fmt.Fprintln(r.w, r.dim.Sprint(fmt.Sprintf("· %s · %s / %s out%s · %s", plural(steps, "step"), tokens, humanTokens(out), money, humanDuration(d))))
}

// resultLine is a call's outcome: a mark and the first line of its text.
// A command that exited non-zero, timed out or was interrupted is not
// marked as a success, whatever its status for the model.
func (r *renderer) resultLine(res protocol.Result, d windows.Result, width int) string {
	text := sanitize(res.Text)
	switch {
	case d.Failed && res.Status != protocol.StatusDenied:
		return r.red.Sprint("✗") + " " + r.red.Sprint(firstLine(text, width))
	}
	switch res.Status {
	case protocol.StatusOK:
		return r.green.Sprint("✓") + " " + r.dim.Sprint(firstLine(text, width))
	case protocol.StatusDenied:
		return r.yellow.Sprint("⊘") + " " + r.dim.Sprint(firstLine(text, width))
	case protocol.StatusStarted:
		return r.dim.Sprint("… " + firstLine(text, width))
	}
	return r.red.Sprint("✗") + " " + r.dim.Sprint(firstLine(text, width))
}

// screenWidth is the terminal's width, or a reasonable one.
func screenWidth() int {
	if w := readline.GetScreenWidth(); w >= 40 {
		return w
	}
	return 100
}

func humanTokens(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprint(n)
}

func humanDuration(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}
