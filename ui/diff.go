package ui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/windows"
)

// /diff (docs/protocol.md §9 "The session's changes"): every file the session
// changed, numbered, each with its diff against the state before the
// session's first turn; /diff N shows one whole, /diff undo N puts one
// back, /diff tool [N] opens them in the person's diff_tool.

// diffLinesList is how much of each file's diff the list shows.
const diffLinesList = 40

func (r *REPL) cmdDiff(arg string) bool {
	files, err := r.sess.Changes()
	if err != nil {
		r.out.note(err.Error())
		return false
	}
	verb, rest, _ := strings.Cut(arg, " ")
	rest = strings.TrimSpace(rest)
	switch verb {
	case "":
		r.listChanges(files)
	case "undo", "revert":
		r.revertChange(files, rest)
	case "tool":
		r.openDiffTool(files, rest)
	default:
		f, ok := r.pickChange(files, arg)
		if ok {
			r.showChange(f, 1<<20)
		}
	}
	return false
}

func (r *REPL) listChanges(files []session.ChangedFile) {
	if len(files) == 0 {
		r.out.note("this session has changed no file (or every change was put back)")
	}
	for i, f := range files {
		r.out.println(r.out.bold.Sprintf("%d. ", i+1) + statusMark(f.Status) + " " + sanitize(f.Path))
		r.showChange(f, diffLinesList)
	}
	if note := r.sess.ChangesNote(); note != "" {
		r.out.note(note)
	}
	if len(files) > 0 {
		r.out.note("/diff N shows one whole · /diff undo N puts it back as it was before the session · /diff tool [N] opens your diff_tool")
	}
}

func statusMark(status string) string {
	switch status {
	case "added":
		return "A"
	case "deleted":
		return "D"
	}
	return "M"
}

func (r *REPL) showChange(f session.ChangedFile, max int) {
	r.out.mu.Lock()
	defer r.out.mu.Unlock()
	r.out.spin.stopLocked()
	r.out.diffLocked(f.Diff, max, screenWidth()-6)
}

// pickChange is the file arg names: its number in the list, or its path.
func (r *REPL) pickChange(files []session.ChangedFile, arg string) (session.ChangedFile, bool) {
	if n, err := strconv.Atoi(arg); err == nil {
		if n >= 1 && n <= len(files) {
			return files[n-1], true
		}
		r.out.note(fmt.Sprintf("no file %d: /diff lists %s", n, plural(len(files), "file")))
		return session.ChangedFile{}, false
	}
	for _, f := range files {
		if f.Path == arg || f.Abs == arg {
			return f, true
		}
	}
	r.out.note(fmt.Sprintf("the session did not change %q (/diff lists what it changed)", arg))
	return session.ChangedFile{}, false
}

// revertChange puts one file back as it was before the session; a file
// changed since by someone else is left alone and named. The model is
// told before the next question, as /undo tells it.
func (r *REPL) revertChange(files []session.ChangedFile, arg string) {
	if arg == "" {
		r.out.note("usage: /diff undo N (or a path; /diff lists them)")
		return
	}
	f, ok := r.pickChange(files, arg)
	if !ok {
		return
	}
	u, err := r.sess.RevertFile(f.Abs)
	if errors.Is(err, session.ErrBusy) {
		r.out.note("a turn is running: wait for its end")
		return
	}
	if err != nil {
		r.out.fail(err.Error())
		return
	}
	r.printUndo(u)
	if len(u.Restored)+len(u.Removed) > 0 {
		r.addNote("[aci: the person put " + f.Path + " back as it was before this session (/diff undo); read it again before changing it.]")
	}
}

// printUndo prints what putting files back did, as /undo does.
func (r *REPL) printUndo(u windows.UndoResult) {
	for _, l := range undoSummary(u, r.cfg.Workdir) {
		if strings.HasPrefix(l, "not restored") || strings.HasPrefix(l, "could not") {
			r.out.println(r.out.yellow.Sprint("⚠ " + sanitize(l)))
			continue
		}
		if strings.HasPrefix(l, "the files of that turn") {
			l = "already as it was before the session"
		}
		l = strings.Replace(l, "created by that turn", "created by this session", 1)
		r.out.println(r.out.green.Sprint("↶ ") + sanitize(l))
	}
}
