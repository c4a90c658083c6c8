package ui

import (
	"context"
	"strings"
	"unicode"

	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/windows"
)

// askKey reads the answer to a question: with readline, or, when the web
// page is asked too, with a reader the page's answer can stop.
func (a *termApprover) askKey(ctx context.Context, prompt string, shared *session.SharedQuestion) (rune, string, error) {
	if shared == nil {
		return a.in.askKey(prompt, "ynap")
	}
	return askKeysUntil(ctx, a.in.fd, prompt, "ynap", func(s string) { a.out.raw(s) })
}

// decidedElsewhere says in the terminal what the web page decided.
func (a *termApprover) decidedElsewhere(q *session.SharedQuestion) windows.Decision {
	o := a.out
	d, by := q.Decided()
	from := "from the " + by
	if by == "" {
		o.println("  " + o.yellow.Sprint("⊘ denied: the turn ended"))
		return windows.Decision{Message: "the turn was interrupted"}
	}
	switch {
	case d.Allow && d.Always:
		o.println("  " + o.green.Sprint("✓ always allowed "+from))
	case d.Allow:
		o.println("  " + o.green.Sprint("✓ allowed "+from))
	default:
		o.println("  " + o.yellow.Sprint("⊘ denied "+from))
	}
	return d
}

// askKeysUntil shows prompt and reads keys until one of keys (answering
// at once), a line ended by Enter, or ctx's end. It draws what is typed
// itself; Ctrl-C still raises SIGINT.
func askKeysUntil(ctx context.Context, fd int, prompt, keys string, draw func(string)) (rune, string, error) {
	k, err := newKeyWaiter(fd)
	if err != nil {
		return 0, "", err
	}
	defer k.close()
	undo := keysMode(fd)
	defer undo()
	stop := context.AfterFunc(ctx, k.stop)
	defer stop()
	draw(prompt)
	var t typeahead
	buf := make([]byte, 256)
	for {
		n, err := k.read(buf)
		if err != nil {
			draw("\r\n")
			if ctx.Err() != nil {
				return 0, "", ctx.Err()
			}
			return 0, "", err
		}
		if len(t.draft) == 0 && n == 1 {
			if r := unicode.ToLower(rune(buf[0])); strings.ContainsRune(keys, r) {
				draw(string(buf[0]) + "\r\n")
				return r, "", nil
			}
		}
		lines := t.feed(buf[:n])
		if len(lines) > 0 {
			draw("\r\n")
			return 0, lines[0], nil
		}
		draw("\r\x1b[K" + prompt + sanitize(t.shown()))
	}
}
