package windows

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"

	"github.com/aci-dev/aci/guard"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/output"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/textfile"
)

const (
	defaultViewLines = 60
	maxViewLines     = 1000
	maxLineChars     = 2000
)

// FileApp opens file windows: a live, numbered viewport onto one file.
func FileApp(env *Env) App {
	return pathApp(env, "file", "view and edit a text file", "path, may not exist yet", openFile)
}

type fileWindow struct {
	env   *Env
	id    string
	title string // the path as given
	path  string // absolute
	// access checks every read and write where the path leads now.
	access *textfile.FileAccess

	mu    sync.Mutex
	start int // first line of the viewport, from 1
	count int // lines in the viewport
	// seen is the file as the model last saw it (or changed it itself): a
	// write over a file changed behind it since is refused.
	seen textfile.Signature
	// lastEdit is the window's own last edit, when it fell outside the
	// viewport: the next rendering shows its region instead of moving.
	lastEdit *editMark
	// cache holds the last view, valid while the file's signature and the
	// viewport stay the same: most requests render unchanged files.
	cache    View
	cacheKey viewKey
	diag     diagState
}

type viewKey struct {
	sig          textfile.Signature
	start, count int
}

// fileState is what a view of a file window showed.
type fileState struct {
	key   viewKey
	total int      // lines in the file
	first int      // number of the first line shown
	lines []string // the lines shown, without numbers
	diag  string   // the diagnostics shown (file_diag.go)
}

func openFile(ctx context.Context, env *Env, id, target string) (Window, string, error) {
	if strings.TrimSpace(target) == "" {
		return nil, "", errors.New("open file needs a target: the file's path")
	}
	path, err := env.openPath(ctx, id, target)
	if err != nil {
		return nil, "", err
	}
	access := textfile.NewFileAccess(env.Workdir, path, func(p string) string {
		if v := env.Guard.CheckPath(p, env.Workdir, false); v.Dangerous {
			return v.Reason
		}
		return ""
	})
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, "", fmt.Errorf("open %s: %w", target, err)
	case fi.IsDir():
		return nil, "", fmt.Errorf("%s is a folder; list it with a bash window (ls %s)", target, target)
	case !fi.Mode().IsRegular():
		return nil, "", fmt.Errorf("%s is not a regular file", target)
	default:
		bin, err := access.IsBinary(path)
		if err != nil {
			return nil, "", err
		}
		if bin {
			return nil, "", fmt.Errorf("%s is a binary file (%d bytes) and cannot be shown as text; inspect it with a bash window (file, xxd | head)", target, fi.Size())
		}
	}
	w := &fileWindow{env: env, id: id, title: target, path: path, access: access, start: 1, count: defaultViewLines}
	env.Diagnostics.Hold(path)
	now, _ := w.current(ctx)
	w.seen = now.sig
	if !w.seen.Exists {
		return w, "new file " + target + " (does not exist yet; write creates it)", nil
	}
	return w, "", nil
}

func (w *fileWindow) ID() string    { return w.id }
func (w *fileWindow) App() string   { return "file" }
func (w *fileWindow) Title() string { return w.title }
func (w *fileWindow) Close()        { w.env.Diagnostics.Forget(w.path) }

func (w *fileWindow) Actions() []Action {
	return []Action{
		{ID: "view", Desc: "move the viewport; keep it narrow", Mode: Sync, Run: w.view, Params: []Param{
			{Name: "start_line", Type: Integer, Desc: "first line, from 1"},
			{Name: "end_line", Type: Integer, Desc: fmt.Sprintf("last line (default start+%d)", defaultViewLines-1)},
		}},
		{ID: "edit", Desc: "replace exact text, unique unless replace_all", Mode: Sync, Run: w.edit, Params: []Param{
			{Name: "old_text", Type: String, Required: true, Desc: "exact text now in the file"},
			{Name: "new_text", Type: String, Required: true, Desc: "its replacement"},
			{Name: "replace_all", Type: Boolean, Desc: "replace every occurrence"},
		}},
		{ID: "write", Desc: "replace the whole file (creates it)", Mode: Sync, Run: w.write, Params: []Param{
			{Name: "content", Type: String, Required: true, Desc: "the full new content"},
		}},
		closeAction(""),
	}
}

// View shows the viewport, read from disk now.
func (w *fileWindow) View() View {
	w.mu.Lock()
	defer w.mu.Unlock()
	ctx := context.Background()
	if w.env.Files != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, filesTimeout)
		defer cancel()
	}
	now, err := w.current(ctx)
	sig := now.sig
	if err != nil {
		return View{Content: fmt.Sprintf("cannot read %s: %v", w.title, err), State: fileState{}}
	}
	if !sig.Exists {
		return View{Content: w.title + " does not exist yet; write creates it.", State: fileState{key: viewKey{sig: sig}}}
	}
	key := viewKey{sig, w.start, w.count}
	if w.cache.State != nil && key == w.cacheKey {
		return w.withDiagnostics(w.cache)
	}
	w.cache, w.cacheKey = w.render(key, now.text), key
	return w.withDiagnostics(w.cache)
}

// Seen records the file as the model was sent it.
func (w *fileWindow) Seen(v View) {
	if st, ok := v.State.(fileState); ok {
		w.mu.Lock()
		w.seen = st.key.sig
		w.mu.Unlock()
	}
}

// render reads the viewport from disk, or from the editor's text when
// there is one.
func (w *fileWindow) render(key viewKey, editor *textfile.TextFile) View {
	var lr textfile.LineRange
	if editor != nil {
		lr = textfile.LinesOf(string(editor.Encode(editor.Text)), w.start, w.start+w.count-1, maxLineChars)
	} else {
		var err error
		if lr, err = w.access.ReadLines(w.path, w.start, w.start+w.count-1, maxLineChars); err != nil {
			return View{Content: fmt.Sprintf("cannot read %s: %v", w.title, err), State: fileState{key: key}}
		}
	}
	st := fileState{key: key, total: lr.Total, first: lr.Start, lines: lr.Lines}
	var b strings.Builder
	if lr.Total == 0 {
		fmt.Fprintf(&b, "%s: empty file", w.title)
		return View{Content: b.String(), State: st}
	}
	end := lr.Start + len(lr.Lines) - 1
	if len(lr.Lines) == 0 {
		fmt.Fprintf(&b, "%s: %d %s; the viewport (from line %d) is past the end: view a lower start_line", w.title, lr.Total, plural(lr.Total, "line"), w.start)
		return View{Content: b.String(), State: st}
	}
	fmt.Fprintf(&b, "%s: %d %s, showing %d-%d", w.title, lr.Total, plural(lr.Total, "line"), lr.Start, end)
	if lr.CRLF {
		b.WriteString(" (CRLF line endings, kept on edit)")
	}
	if !lr.ValidUTF8 {
		b.WriteString(" (not valid UTF-8: undecodable bytes shown as \uFFFD; edits keep the other bytes as they are)")
	}
	writeNumbered(&b, lr.Start, lr.Lines)
	if end < lr.Total {
		fmt.Fprintf(&b, "\n… %d more lines (view start_line=%d)", lr.Total-end, end+1)
	}
	return View{Content: output.Truncate(b.String(), w.env.OutputLimit), State: st}
}

func writeNumbered(b *strings.Builder, first int, lines []string) {
	for i, line := range lines {
		fmt.Fprintf(b, "\n%d\t%s", first+i, line)
	}
}

func (w *fileWindow) view(_ context.Context, args Args) Result {
	w.mu.Lock()
	defer w.mu.Unlock()
	start := args.Int("start_line", 1)
	if start < 1 {
		return Fail("start_line must be 1 or more, got %d", start)
	}
	end := args.Int("end_line", start+defaultViewLines-1)
	if end < start {
		return Fail("end_line (%d) is before start_line (%d)", end, start)
	}
	count := end - start + 1
	note := ""
	if count > maxViewLines {
		count = maxViewLines
		note = fmt.Sprintf(" (at most %d lines at once)", maxViewLines)
	}
	w.start, w.count = start, count
	return OK("viewport at lines %d-%d%s", start, start+count-1, note)
}

// approveWrite asks before a write outside the workspace; diff shows the
// person what the write would change.
func (w *fileWindow) approveWrite(ctx context.Context, diff string) *Result {
	v := w.env.Guard.CheckPath(w.path, w.env.Workdir, true)
	if r := w.fileGate(ctx, &v); r != nil {
		return r
	}
	if why := sandbox.ProtectedWhy(w.env.Workdir, w.path); why != "" {
		// aci's own configuration and what other tools run when the
		// folder opens: the person decides (contained commands cannot
		// write these at all).
		if v.Dangerous {
			v.Reason += "; and " + why
		} else {
			v = guard.Verdict{Dangerous: true, Reason: "protected file: " + why, Part: w.title}
		}
	}
	if !v.Dangerous {
		return nil
	}
	if r := w.env.ask(ctx, ApprovalRequest{Kind: protocol.AskFile, WindowID: w.id, Subject: "write " + w.path, Reason: v.Reason, Part: v.Part, Diff: diff}); r != nil {
		return r
	}
	w.access.AllowWrite(w.path) // where it leads now, outside the workspace: asked and allowed
	return nil
}
