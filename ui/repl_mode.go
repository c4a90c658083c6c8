package ui

import (
	"fmt"
	"strings"

	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/windows"
)

// shiftTabMark is what Shift-Tab (ESC [ Z, which readline drops) reaches
// readline as: a private-use rune the input's key filter turns into a
// mode change.
const shiftTabMark = "\ue000"

// modePrompt is the prompt for mode m: the mode's name before the arrow,
// except in default mode.
func (r *REPL) modePrompt(m windows.PermMode) string {
	arrow := r.out.cyan.Sprint("›") + " "
	switch m {
	case windows.ModeDefault, "":
		return arrow
	case windows.ModeYes:
		return r.out.red.Sprint("yes") + " " + arrow
	}
	return r.out.yellow.Sprint(string(m)) + " " + arrow
}

// showMode puts mode m in the prompt, redrawn at once if a line is being
// typed. Safe from any goroutine.
func (r *REPL) showMode(m windows.PermMode) {
	p := r.modePrompt(m)
	r.in.setPrompt(p)
}

// cycleMode is Shift-Tab: default → ask → plan → default.
func (r *REPL) cycleMode() {
	if r.sess == nil {
		return
	}
	r.sess.SetMode(r.sess.Mode().Next()) // the mode event redraws the prompt
}

// cmdMode is /mode [MODE]: shows the mode, or switches to MODE.
func (r *REPL) cmdMode(arg string) bool {
	if arg == "" {
		m := r.sess.Mode()
		r.out.note(fmt.Sprintf("mode %s: %s (modes: %s; Shift-Tab cycles default → ask → plan)", m.Shown(), m.Describe(), windows.ModeNames()))
		return false
	}
	m, err := windows.ParseMode(arg)
	if err != nil {
		r.out.fail(err.Error())
		return false
	}
	r.sess.SetMode(m)
	r.out.note(fmt.Sprintf("mode %s: %s", m.Shown(), m.Describe()))
	return false
}

// modeEvent follows the session's mode, whoever changed it (the page,
// Shift-Tab, /mode).
func (r *REPL) modeEvent(e session.ModeEvent) {
	r.showMode(e.Mode)
}

// offerPlan asks, after a turn that ended with a plan, whether to accept
// it: yes switches to default mode and the model carries it out. A slash
// command typed there (/mode default) runs as the command, not as a "no";
// true means it was /exit.
func (r *REPL) offerPlan() (leave bool) {
	if r.sess == nil || !r.sess.PlanReady() {
		return false
	}
	o := r.out
	o.println("  " + o.bold.Sprint("accept plan?") + o.dim.Sprint(" switches to default and carries it out (y/n, Enter)"))
	line, err := r.in.ask("  " + o.bold.Sprint("accept?") + " › ")
	r.in.setPrompt(r.modePrompt(r.sess.Mode()))
	if name, arg, ok := parseSlash(line); ok && err == nil {
		if err := r.in.remember(strings.TrimSpace(line)); err != nil {
			o.note("input history is not saved: " + err.Error())
		}
		return r.command(name, arg)
	}
	if err != nil || !strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "y") {
		o.note("plan not accepted: still in plan mode (/mode default or Shift-Tab to leave it)")
		return false
	}
	q, err := r.sess.AcceptPlan()
	if err != nil {
		o.fail(err.Error())
		return false
	}
	r.turn(q)
	return false
}

// setPrompt changes the message prompt; a message being typed at it gets
// the new one at once.
func (in *input) setPrompt(p string) {
	in.promptMu.Lock()
	defer in.promptMu.Unlock()
	in.prompt = p
	if in.reading {
		in.rl.SetPrompt(p)
		in.rl.Refresh()
	}
}

// modeStatus is /status's line: the mode, the rules and the hooks.
func (r *REPL) modeStatus() string {
	m := r.sess.Mode()
	line := string(m) + ": " + m.Describe()
	if set := r.sess.Rules(); set != nil {
		if n := len(set.List()); n > 0 {
			line += fmt.Sprintf(" · %d rules (/permissions)", n)
		}
	}
	if r.sess.HasHooks() {
		line += " · hooks on"
	}
	return line
}
