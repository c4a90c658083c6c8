package ui

import (
	"errors"
	"strings"

	"github.com/aci-dev/aci/session"
)

// startTyping reads the keys typed during the turn, draft already typed.
func (r *REPL) startTyping(draft string) {
	t := startTyping(r.in.keys, r.in.fd, draft, r.typed)
	r.mu.Lock()
	r.typing = t
	r.mu.Unlock()
}

// stopTyping ends it and returns the line left unsent.
func (r *REPL) stopTyping() string {
	r.mu.Lock()
	t := r.typing
	r.typing = nil
	r.mu.Unlock()
	return t.stop()
}

// draft is the line being typed, for the spinner.
func (r *REPL) draft() string {
	r.mu.Lock()
	t := r.typing
	r.mu.Unlock()
	return t.shown()
}

// typed takes a line typed during the turn: a message joins the running
// turn; a command waits for the prompt, as does a message once the turn
// has ended.
func (r *REPL) typed(line string) {
	if err := r.in.remember(line); err != nil {
		r.out.interject("input history is not saved: " + err.Error())
	}
	shown := r.out.cyan.Sprint("›") + " " + sanitize(strings.ReplaceAll(line, "\n", "\n  "))
	if _, _, ok := parseSlash(line); ok || strings.HasPrefix(line, "!") {
		r.queue(line)
		r.out.interjectStyled(shown + r.out.dim.Sprint("  ↳ runs once the turn ends"))
		return
	}
	_, err := r.sess.Steer(line)
	switch {
	case err == nil:
		r.mu.Lock()
		if r.own == nil {
			r.own = map[string]int{}
		}
		r.own[line]++
		r.mu.Unlock()
		r.out.interjectStyled(shown + r.out.dim.Sprint("  ↳ added to the running turn"))
	case errors.Is(err, session.ErrIdle):
		r.queue(line)
		r.out.interjectStyled(shown + r.out.dim.Sprint("  ↳ queued for the next turn"))
	default:
		r.out.interject("not sent: " + err.Error())
	}
}

func (r *REPL) queue(line string) {
	r.mu.Lock()
	r.later = append(r.later, line)
	r.mu.Unlock()
}

// steered shows that the model got a message added to the turn: from
// this terminal it was said already; from elsewhere (the web page) it is
// shown now.
func (r *REPL) steered(text string) {
	r.mu.Lock()
	mine := r.own[text] > 0
	if mine {
		r.own[text]--
	}
	r.mu.Unlock()
	if !mine {
		r.out.interjectStyled(r.out.cyan.Sprint("›") + " " + sanitize(text) + r.out.dim.Sprint("  ↳ added to the turn from the web page"))
	}
}

// afterTurn settles what was typed during the turn: messages it ended
// without reading start the next turn (or, after Ctrl-C or a failure,
// are given back at the prompt with the unsent line).
func (r *REPL) afterTurn(draft string) {
	r.mu.Lock()
	r.own = nil
	r.mu.Unlock()
	if unread := r.sess.Unread(); len(unread) > 0 {
		r.out.note("not read by the model: " + strings.Join(unread, " · ") + " (it is back at the prompt)")
		draft = strings.TrimSpace(strings.Join(append(unread, draft), " "))
	}
	if q := r.sess.Queued(); q != "" {
		r.out.note("↳ the turn ended before the model read it: it starts the next turn")
		r.mu.Lock()
		r.later = append([]string{q}, r.later...)
		r.mu.Unlock()
	}
	if draft != "" {
		r.in.prefill(draft)
	}
}

// next is the next line to act on: one held from the turn, or a new one
// read at the prompt.
func (r *REPL) next() (msg string, blank bool, err error) {
	r.mu.Lock()
	if len(r.later) > 0 {
		msg = r.later[0]
		r.later = r.later[1:]
		r.mu.Unlock()
		r.out.println(r.out.cyan.Sprint("›") + " " + sanitize(strings.ReplaceAll(msg, "\n", "\n  ")))
		return msg, false, nil
	}
	r.mu.Unlock()
	r.drawStatus()
	return r.in.readMessage()
}
