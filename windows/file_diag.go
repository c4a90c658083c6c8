package windows

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/lsp"
	"github.com/aci-dev/aci/tools/textfile"
)

// maxDiagLines bounds the diagnostics a file window shows.
const maxDiagLines = 20

// diagState is what a file window knows of its file's diagnostics sync.
type diagState struct {
	synced textfile.Signature // the file as the server was last given it
	// count is how many errors and warnings the file had at the last
	// sync, before at the one before it.
	count, before int
}

// syncDiagnostics gives the language server the file's text when it
// changed since the server last had it, and waits (bounded by the pool)
// for its diagnostics. It returns the file's report, ok false when no
// server serves the file.
func (w *fileWindow) syncDiagnostics(ctx context.Context) (lsp.Report, bool) {
	pool := w.env.Diagnostics
	if pool == nil || !w.serverAllowed(ctx, pool) || !pool.Serves(w.path) {
		return lsp.Report{}, false
	}
	r, ok := w.syncFile(ctx, pool)
	if ok && r.Known {
		w.mu.Lock()
		w.diag.before, w.diag.count = w.diag.count, len(r.List)
		w.mu.Unlock()
	}
	return r, ok
}

// serverAllowed asks the person, in ask mode, before the file's language
// server first starts, as for a command (it runs contained like one); a
// no leaves the language without diagnostics for the session.
func (w *fileWindow) serverAllowed(ctx context.Context, pool *lsp.Pool) bool {
	if w.env.Mode.Get() != ModeAsk {
		return true
	}
	argv, pending := pool.Pending(w.path)
	if !pending {
		return true
	}
	req := ApprovalRequest{Kind: protocol.AskCommand, WindowID: w.id, Subject: strings.Join(argv, " "),
		Reason: "the language server for " + w.title + "'s diagnostics; it runs contained, like a command"}
	if r := w.env.ask(ctx, req); r != nil {
		pool.Decline(w.path, r.Text)
		return false
	}
	return true
}

func (w *fileWindow) syncFile(ctx context.Context, pool *lsp.Pool) (lsp.Report, bool) {
	w.mu.Lock()
	now, err := w.current(ctx)
	if err != nil || !now.sig.Exists || now.sig == w.diag.synced {
		w.mu.Unlock()
		return pool.Diagnostics(w.path)
	}
	tf, sig, err := w.readWhole(ctx)
	w.mu.Unlock()
	if err != nil {
		return lsp.Report{}, false
	}
	pool.Sync(ctx, w.path, tf.Text)
	w.mu.Lock()
	w.diag.synced = sig
	w.mu.Unlock()
	return pool.Diagnostics(w.path)
}

// afterAction brings the diagnostics of every open file window up to date
// after an action (an edit, or a command that changed files), all at once
// and each bounded by the pool's wait. The person is told, in one line,
// what an edit or write of a file window left in its file.
func (m *Manager) afterAction(ctx context.Context, acted Window, actionID string) {
	if m.env.Diagnostics == nil {
		return
	}
	var wg sync.WaitGroup
	for _, w := range m.Windows() {
		fw, ok := w.(*fileWindow)
		if !ok {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, ok := fw.syncDiagnostics(ctx)
			if ok && w == acted && (actionID == "edit" || actionID == "write") {
				fw.tellPerson(r)
			}
		}()
	}
	wg.Wait()
	// Files no window shows, changed by a command, change what the
	// servers say of those shown.
	m.env.Diagnostics.Refresh(ctx)
}

// warmDiagnostics starts the file windows' servers and gives them their
// files, without waiting (windows reopened in a resumed session): the
// diagnostics show in a rendering once published.
func (m *Manager) warmDiagnostics() {
	if m.env.Diagnostics != nil {
		go m.afterAction(context.Background(), nil, "")
	}
}

// tellPerson notes for the person what the window's own change left: the
// count and the first error, or that the last ones are gone.
func (w *fileWindow) tellPerson(r lsp.Report) {
	if w.env.DiagnosticsNote == nil || !r.Known {
		return
	}
	w.mu.Lock()
	before := w.diag.before
	w.mu.Unlock()
	switch {
	case len(r.List) > 0:
		list := sortedDiags(r.List, 0, 0)
		w.env.DiagnosticsNote(fmt.Sprintf("%s: %s, first %s", w.title, diagCount(r.List), diagLine(list[0])))
	case before > 0:
		w.env.DiagnosticsNote(w.title + ": no errors or warnings now")
	}
}

// withDiagnostics adds the file's diagnostics to a rendering: a pure read
// of what the server last published.
func (w *fileWindow) withDiagnostics(v View) View {
	st, ok := v.State.(fileState)
	if !ok || w.env.Diagnostics == nil {
		return v
	}
	r, ok := w.env.Diagnostics.Diagnostics(w.path)
	if !ok {
		return v
	}
	st.diag = renderDiagnostics(r, st.key.start, st.key.count)
	if st.diag != "" {
		v.Content += "\n" + st.diag
	}
	v.State = st
	return v
}

// renderDiagnostics is the block a rendering ends with: "" when the
// server found nothing (or has not said yet).
func renderDiagnostics(r lsp.Report, start, count int) string {
	var b strings.Builder
	if r.Note != "" {
		b.WriteString("diagnostics: " + r.Note)
	}
	if len(r.List) == 0 {
		return b.String()
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "diagnostics (%s): %s", r.Server, diagCount(r.List))
	list := sortedDiags(r.List, start, count)
	for i, d := range list {
		if i == maxDiagLines {
			fmt.Fprintf(&b, "\n… %d more", len(list)-i)
			break
		}
		b.WriteString("\n" + diagLine(d))
	}
	return b.String()
}

// sortedDiags puts the viewport's diagnostics first, then the rest, each
// by position.
func sortedDiags(list []lsp.Diagnostic, start, count int) []lsp.Diagnostic {
	out := append([]lsp.Diagnostic(nil), list...)
	in := func(d lsp.Diagnostic) bool { return d.Line >= start && d.Line < start+count }
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if in(a) != in(b) {
			return in(a)
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return out
}

func diagLine(d lsp.Diagnostic) string {
	if d.Severity == lsp.Warning {
		return fmt.Sprintf("%d:%d warning: %s", d.Line, d.Col, d.Message)
	}
	return fmt.Sprintf("%d:%d %s", d.Line, d.Col, d.Message)
}

// diagCount is "2 errors, 1 warning".
func diagCount(list []lsp.Diagnostic) string {
	var errs, warns int
	for _, d := range list {
		if d.Severity == lsp.Warning {
			warns++
		} else {
			errs++
		}
	}
	var parts []string
	if errs > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", errs, plural(errs, "error")))
	}
	if warns > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", warns, plural(warns, "warning")))
	}
	return strings.Join(parts, ", ")
}

// Changes renders what changed between two views: the file's change
// (fileChanges), then the diagnostics when they changed.
func (w *fileWindow) Changes(prev, cur View) (string, bool) {
	text, ok := w.fileChanges(prev, cur)
	if !ok {
		return "", false
	}
	p, _ := prev.State.(fileState)
	c, _ := cur.State.(fileState)
	if p.diag == c.diag {
		return text, true
	}
	d := c.diag
	if d == "" {
		d = "diagnostics: none now"
	}
	if text == "" {
		return d, true
	}
	return text + "\n" + d, true
}
