package windows

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/textfile"
)

// change is a write the file window is about to make.
type change struct {
	before, after string // the text, line endings normalised
	data          []byte // what goes to disk
	perm          fs.FileMode
	existed       bool
	sig           textfile.Signature // the file when the change was computed
}

// diff is the change as a unified diff, for the person.
func (c change) diff(name string) string {
	return udiff.Unified("a/"+name, "b/"+name, c.before, c.after)
}

func (c change) file(path string) *FileChange {
	return &FileChange{Path: path, Before: c.before, After: c.after, Created: !c.existed}
}

// commit asks when the path needs it, then writes atomically. The caller
// holds w.mu; it is released while the person is asked.
func (w *fileWindow) commit(ctx context.Context, c change) *Result {
	d := c.diff(w.title)
	w.mu.Unlock()
	r := w.approveWrite(ctx, d)
	w.mu.Lock()
	if r != nil {
		return r
	}
	if now, _ := w.current(ctx); now.sig != c.sig {
		f := Fail("%s changed on disk while the write waited for approval; nothing was written", w.title)
		return &f
	}
	if w.env.Journal != nil {
		w.env.Journal.Record(w.path)
	}
	if err := w.store(ctx, c.data, c.perm); err != nil {
		f := Fail("%v", err)
		return &f
	}
	now, _ := w.current(ctx)
	w.seen = now.sig
	return nil
}

func (w *fileWindow) edit(ctx context.Context, args Args) Result {
	w.mu.Lock()
	defer w.mu.Unlock()
	tf, now, err := w.readWhole(ctx)
	if errors.Is(err, fs.ErrNotExist) {
		return Fail("%s does not exist; create it with write", w.title)
	}
	if err != nil {
		return Fail("%v", err)
	}
	changed := now != w.seen
	old := strings.ReplaceAll(args.String("old_text"), "\r\n", "\n")
	repl := strings.ReplaceAll(args.String("new_text"), "\r\n", "\n")
	text, n, err := textfile.Replace(tf.Text, old, repl, args.Bool("replace_all"))
	if err != nil {
		if changed {
			return Fail("%v (note: %s changed on disk since this window last showed it)", err, w.title)
		}
		return Fail("%v", err)
	}
	c := change{before: tf.Text, after: text, data: tf.Encode(text), perm: tf.Mode, existed: true, sig: now}
	if r := w.commit(ctx, c); r != nil {
		return *r
	}
	line := strings.Count(tf.Text[:strings.Index(tf.Text, old)], "\n") + 1
	w.placeEdit(c, line, old, repl, n)
	msg := fmt.Sprintf("replaced %d %s (first at line %d)", n, plural(n, "occurrence"), line)
	if changed {
		msg += "; note: the file had changed on disk since you last saw it, the edit was applied to its current content"
	}
	return Result{Status: protocol.StatusOK, Text: msg, Diff: c.diff(w.title), File: c.file(w.path)}
}

// placeEdit keeps the viewport on what it showed after an edit: one that
// shows the edited lines stays (only the change is rendered), one below
// them moves with its lines. A single edit outside the viewport is
// remembered, so the next rendering shows just its region (editMark).
func (w *fileWindow) placeEdit(c change, line int, old, repl string, n int) {
	w.lastEdit = nil
	if n != 1 {
		if line < w.start || line >= w.start+w.count {
			w.start = max(1, line-10)
		}
		return
	}
	// A text ending in a newline ends on the line before the next one.
	oldEnd := line + strings.Count(strings.TrimSuffix(old, "\n"), "\n")
	newEnd := line + strings.Count(strings.TrimSuffix(repl, "\n"), "\n")
	shift := strings.Count(repl, "\n") - strings.Count(old, "\n")
	end := w.start + w.count - 1
	switch {
	case oldEnd >= w.start && line <= end:
		return // in view: the viewport's own change shows it
	case oldEnd < w.start:
		w.start += shift
	}
	lines := strings.Split(strings.TrimSuffix(c.after, "\n"), "\n")
	from, to := max(line-deltaContext, 1), min(newEnd+deltaContext, len(lines))
	w.lastEdit = &editMark{from: c.sig, to: w.seen, first: line, last: newEnd, shift: shift,
		ctxFrom: from, lines: lines[from-1 : to]}
}

func (w *fileWindow) write(ctx context.Context, args Args) Result {
	w.mu.Lock()
	defer w.mu.Unlock()
	cur, err := w.current(ctx)
	if err != nil {
		return Fail("%v", err)
	}
	now := cur.sig
	if now != w.seen {
		return Fail("%s changed on disk since this window last showed it; nothing was written, so that change is not lost. The window now shows the current content: check it, then edit it or write again", w.title)
	}
	content := strings.ReplaceAll(args.String("content"), "\r\n", "\n")
	tf := textfile.TextFile{}
	if now.Exists {
		if tf, _, err = w.readWhole(ctx); err != nil {
			return Fail("%v", err)
		}
	}
	perm := fs.FileMode(0o644)
	if tf.Mode != 0 {
		perm = tf.Mode
	}
	c := change{before: tf.Text, after: content, data: tf.Encode(content), perm: perm, existed: now.Exists, sig: now}
	if r := w.commit(ctx, c); r != nil {
		return *r
	}
	w.start = 1
	lines := strings.Count(content, "\n")
	if content != "" && !strings.HasSuffix(content, "\n") {
		lines++
	}
	verb := "wrote"
	if !now.Exists {
		verb = "created"
	}
	return Result{Status: protocol.StatusOK, Text: fmt.Sprintf("%s %s (%d %s, %d bytes)", verb, w.title, lines, plural(lines, "line"), len(c.data)), Diff: c.diff(w.title), File: c.file(w.path)}
}
