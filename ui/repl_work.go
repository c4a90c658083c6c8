package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/imagefile"
)

// The person's own work in the REPL: files referenced with @path, commands
// run with !cmd, /undo, /show, and a resumed session shown again.

var atPath = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|\s)@([^\s@]+)`) })

// prepare turns a typed message into the question the model gets: notes
// of what the person did since the last turn (/undo, !cmd) go first, and
// each @path that names a file is opened in a file window, the question
// saying so.
func (r *REPL) prepare(ctx context.Context, msg string) string {
	var refs []string
	for _, m := range atPath().FindAllStringSubmatch(msg, -1) {
		rel := strings.TrimRight(m[1], ".,;:!?)")
		if imagefile.IsImagePath(rel) {
			r.out.note("▸ attached " + rel) // the picture goes with the question (session.Expand)
			continue
		}
		path := rel
		if !filepath.IsAbs(path) {
			path = filepath.Join(r.cfg.Workdir, path)
		}
		if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		id := r.fileWindow(ctx, rel)
		if id == "" {
			continue
		}
		refs = append(refs, rel+" (in "+id+")")
	}
	r.mu.Lock()
	notes := r.pending
	r.pending = nil
	r.mu.Unlock()
	if len(refs) > 0 {
		msg += "\n\nFiles referenced: " + strings.Join(refs, ", ")
	}
	if len(notes) > 0 {
		msg = strings.Join(notes, "\n") + "\n\n" + msg
	}
	return msg
}

// fileWindow is the id of a file window showing rel, opened if none is.
func (r *REPL) fileWindow(ctx context.Context, rel string) string {
	id, opened, err := r.sess.OpenFile(ctx, rel)
	switch {
	case err != nil:
		r.out.note("could not open " + rel + ": " + err.Error())
	case opened:
		r.out.note("▸ opened " + rel + " in " + id)
	}
	return id
}

// addNote queues a line for the model, sent before the next question.
func (r *REPL) addNote(s string) {
	r.mu.Lock()
	r.pending = append(r.pending, s)
	r.mu.Unlock()
}

// beginWork starts work the person waits on as on a turn's: Ctrl-C
// cancels ctx, typed keys wait, the spinner runs; end undoes it all but
// the spinner (out.endTurn, called before the work's outcome is shown).
func (r *REPL) beginWork() (ctx context.Context, end func()) {
	ctx, cancel := context.WithCancel(context.Background())
	r.setCancel(cancel)
	loud := r.in.quiet()
	r.out.beginTurn()
	return ctx, func() {
		loud()
		r.setCancel(nil)
		cancel()
	}
}

// bang runs a command the person typed as !cmd in a bash window, through
// the window manager so the guard asks as it would for the model. The
// output is shown, and the window keeps it for the model.
func (r *REPL) bang(command string) {
	ctx, end := r.beginWork()
	defer end()
	res, id, err := r.sess.Command(ctx, command)
	r.out.endTurn()
	switch {
	case err != nil:
		r.out.fail(err.Error())
	case id == "":
		r.out.fail("could not open a shell: " + res.Text)
	case res.Status != protocol.StatusDenied:
		r.addNote(fmt.Sprintf("[the person ran `%s` in %s themselves: %s]", command, id, firstLine(res.Text, 200)))
	}
	r.out.println("")
}

// cmdUndo puts back the files the last turn changed.
func (r *REPL) cmdUndo(string) bool {
	u, err := r.journal.Undo()
	if err != nil {
		r.out.note(err.Error())
		return false
	}
	for _, l := range undoSummary(u, r.cfg.Workdir) {
		if strings.HasPrefix(l, "not restored") || strings.HasPrefix(l, "could not") {
			r.out.println(r.out.yellow.Sprint("⚠ " + sanitize(l)))
			continue
		}
		r.out.println(r.out.green.Sprint("↶ ") + sanitize(l))
	}
	if note := undoNote(u, r.cfg.Workdir); note != "" {
		r.addNote(note)
	}
	return false
}

// cmdShow prints a window as the model sees it.
func (r *REPL) cmdShow(id string) bool {
	if id == "" {
		r.out.note("usage: /show ID (/windows lists them)")
		return false
	}
	if w, ok := r.sess.Window(id); ok {
		r.out.println(r.out.bold.Sprint(w.ID) + r.out.dim.Sprint(" · "+w.App+" · "+sanitize(w.Title)))
		r.out.println(sanitize(strings.TrimRight(w.Content, "\n")))
		return false
	}
	r.out.println(r.out.yellow.Sprint("no window "+sanitize(id)) + r.out.dim.Sprint(" · /windows lists them"))
	return false
}

// cmdClear forgets the conversation, as /reset does, and clears the
// screen.
func (r *REPL) cmdClear(arg string) bool {
	if r.out.color || r.out.spin.w != nil {
		r.out.raw("\x1b[H\x1b[2J\x1b[3J")
	}
	return r.cmdReset(arg)
}

// replayedTurns is how many of a resumed session's last turns are shown.
const replayedTurns = 10
