package ui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/chzyer/readline"

	"github.com/aci-dev/aci/session"
)

// paneClip is how much of a question the list shows.
const paneClip = 100

// rewindListed is how many questions /rewind lists, newest first.
const rewindListed = 20

// cmdRewind goes back to just before one of this conversation's
// questions: the person picks it (newest first), then what comes back —
// files and conversation (Enter), the conversation only, or the files
// only. The question is put back at the prompt to edit. /rewind N skips
// the list.
func (r *REPL) cmdRewind(arg string) bool {
	turns := r.sess.Info().Turns
	if len(turns) == 0 {
		r.out.note("nothing to rewind: no question yet")
		return false
	}
	n := 0
	if arg != "" {
		v, err := strconv.Atoi(strings.TrimSpace(arg))
		if err != nil || v < 1 || v > len(turns) {
			r.out.fail(fmt.Sprintf("/rewind: the question must be a number from 1 to %d", len(turns)))
			return false
		}
		n = v
	} else {
		var ok bool
		if n, ok = r.pickQuestion(turns); !ok {
			r.out.note("rewind cancelled")
			return false
		}
	}
	files, conversation, ok := r.pickRewindMode()
	if !ok {
		r.out.note("rewind cancelled")
		return false
	}
	old := r.sess
	res, err := old.Rewind(context.Background(), n, files, conversation)
	if err != nil {
		r.out.fail("/rewind: " + err.Error())
		return false
	}
	r.showRewind(res, files)
	if res.Branch == nil {
		if res.Files != nil {
			if note := undoNote(*res.Files, r.cfg.Workdir); note != "" {
				r.addNote(strings.Replace(note, "ran /undo", fmt.Sprintf("rewound the files to before question %d", n), 1))
			}
		}
		return false
	}
	r.use(res.Branch)
	old.Close()
	// Notes for the model about what happened after the question (an
	// /undo, a !command) belong to the conversation left behind.
	r.mu.Lock()
	r.pending = nil
	r.mu.Unlock()
	r.out.note(fmt.Sprintf("back before question %d; the later turns stay in session %s (aci --resume %s)", n, old.ID(), old.ID()))
	r.in.prefill(encodeEntry(res.Question))
	return false
}

// pickQuestion lists the questions newest first and reads the one chosen
// (Enter: the newest). ok is false when the person cancels (Ctrl-C, Esc
// Esc, or anything that is not one of the numbers).
func (r *REPL) pickQuestion(turns []session.TurnInfo) (int, bool) {
	o := r.out
	o.println(o.bold.Sprint("Rewind to just before which question?"))
	shown := 0
	for i := len(turns) - 1; i >= 0 && shown < rewindListed; i, shown = i-1, shown+1 {
		q := strings.ReplaceAll(turns[i].Question, "\n", " ⏎ ")
		o.println(fmt.Sprintf("  %s  %s", o.cyan.Sprintf("%3d", turns[i].Index), clip(sanitize(q), paneClip)))
	}
	if len(turns) > rewindListed {
		o.println(o.dim.Sprintf("  … %s more: /rewind N reaches any", plural(len(turns)-rewindListed, "earlier question")))
	}
	line, err := r.in.armedAsk(fmt.Sprintf("question [%d] · Esc Esc or Ctrl-C cancels › ", len(turns)))
	if err != nil || line == escEscLine {
		return 0, false
	}
	line = strings.TrimSpace(line)
	if line == "" {
		return len(turns), true
	}
	v, err := strconv.Atoi(line)
	if err != nil || v < 1 || v > len(turns) {
		o.fail(fmt.Sprintf("/rewind: no question %s (1 to %d)", sanitize(line), len(turns)))
		return 0, false
	}
	return v, true
}

// pickRewindMode reads what to put back: files and conversation (Enter),
// c the conversation only, f the files only.
func (r *REPL) pickRewindMode() (files, conversation, ok bool) {
	line, err := r.in.armedAsk("restore: Enter files and conversation · c conversation only · f files only › ")
	if err != nil || line == escEscLine {
		return false, false, false
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "":
		return true, true, true
	case "c":
		return false, true, true
	case "f":
		return true, false, true
	}
	r.out.fail("/rewind: answer Enter, c or f")
	return false, false, false
}

// showRewind says what came back.
func (r *REPL) showRewind(res session.RewindResult, files bool) {
	if !files {
		return
	}
	if res.Files == nil {
		r.out.note("files: " + res.FilesNote)
		return
	}
	for _, l := range undoSummary(*res.Files, r.cfg.Workdir) {
		r.out.note("files: " + l)
	}
}

// armedAsk reads one answer in which Esc Esc at an empty line counts
// (escEscLine): the rewind picker's way out.
func (in *input) armedAsk(prompt string) (string, error) {
	defer in.syncHistory()
	in.rl.SetPrompt(prompt)
	line, err := in.armedRead(true)
	if errors.Is(err, readline.ErrInterrupt) {
		return "", err
	}
	return in.pastes.expand(decodeEntry(line)), err
}
