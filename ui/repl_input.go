package ui

import (
	"io"
	"os"
	"strings"
	"sync"

	"github.com/chzyer/readline"
)

// input reads the person's messages with readline: line editing, history
// with Ctrl-R, Tab completion of commands, lines continued with a trailing
// backslash, and bracketed pastes taken whole.
type input struct {
	rl     *readline.Instance
	hist   *history
	pastes *pasteStore
	term   io.Writer // where readline draws
	fd     int
	paste  bool // bracketed paste mode was switched on

	prompt, cont string
	promptMu     sync.Mutex
	reading      bool   // a message is being read at prompt
	onShiftTab   func() // Shift-Tab was pressed (repl_mode.go)

	// keys is the one reader of the terminal (repl_keys.go); readline
	// reads what it hands on while no one else has the keys.
	keys *keyHub

	keyMu  sync.Mutex
	esc    escEsc // Esc Esc at an empty prompt (rewind_keys.go)
	preset string // the next line's text, as if typed (prefill)

	// stdin is readline's input; closed first, it ends a read readline's
	// terminal loop may be blocked in.
	stdin *readline.CancelableStdin

	restore   func() // the terminal as aci found it
	stopCont  func() // stops re-enabling paste mode after SIGCONT
	closeOnce sync.Once
}

func newInput(stdin *os.File, term io.Writer, hist *history, prompt, cont string, pasteMode bool, workdir string) (*input, error) {
	in := &input{hist: hist, pastes: &pasteStore{}, term: term, fd: int(stdin.Fd()), prompt: prompt, cont: cont}
	keys, err := newKeyHub(in.fd)
	if err != nil {
		return nil, err
	}
	in.keys = keys
	in.stdin = readline.NewCancelableStdin(&pasteReader{r: promptReader{keys}, store: in.pastes})
	in.restore = saveTTY(in.fd)
	rl, err := readline.NewEx(&readline.Config{
		Prompt:                 prompt,
		HistoryLimit:           historyLimit,
		DisableAutoSaveHistory: true, // we save whole messages, not their lines
		HistorySearchFold:      true,
		AutoComplete:           completer{workdir: workdir},
		FuncFilterInputRune:    in.filterKey,
		Listener:               readline.FuncListener(in.onChange),
		EOFPrompt:              "\n", // readline's spelling of "nothing"
		Stdin:                  in.stdin,
		Stdout:                 term,
		Stderr:                 term,
	})
	if err != nil {
		keys.close()
		return nil, err
	}
	in.rl = rl
	if pasteMode {
		io.WriteString(term, bracketedPasteOn+focusReportOn)
		in.paste = true
		in.stopCont = onContinue(func() { io.WriteString(term, bracketedPasteOn+focusReportOn) })
	}
	in.syncHistory()
	return in, nil
}

// Close gives the terminal back as it was. It is safe to call twice and
// from another goroutine, which makes a pending read return io.EOF.
func (in *input) Close() {
	in.closeOnce.Do(func() {
		if in.stopCont != nil {
			in.stopCont()
		}
		in.keys.close()
		in.stdin.Close()
		in.rl.Close()
		if in.paste {
			io.WriteString(in.term, bracketedPasteOff+focusReportOff)
		}
		in.restore()
	})
}

// readMessage reads one message. blank tells, on an error, whether nothing
// had been typed (Ctrl-C at an empty prompt).
func (in *input) readMessage() (msg string, blank bool, err error) {
	var j joiner
	defer in.syncHistory()
	for {
		in.promptMu.Lock()
		prompt := in.prompt
		if j.pending() {
			prompt = in.cont
		}
		in.reading = !j.pending()
		in.rl.SetPrompt(prompt)
		in.promptMu.Unlock()
		line, err := in.armedRead(!j.pending())
		in.promptMu.Lock()
		in.reading = false
		in.promptMu.Unlock()
		if err != nil {
			in.pastes.reset()
			return "", line == "" && !j.pending(), err
		}
		if line == escEscLine {
			return line, false, nil
		}
		if msg, done := j.add(decodeEntry(line)); done {
			return in.pastes.expand(msg), false, nil
		}
	}
}

// ask reads one line at readline's prompt: the plan's and the folder's
// yes-or-no questions, asked between turns.
func (in *input) ask(prompt string) (string, error) {
	defer in.syncHistory()
	in.rl.SetPrompt(prompt)
	line, err := in.rl.Readline()
	return in.pastes.expand(decodeEntry(line)), err
}

// filterKey sees every key readline reads: Shift-Tab (repl_mode.go) and
// Esc Esc (rewind_keys.go).
func (in *input) filterKey(r rune) (rune, bool) {
	if string(r) == shiftTabMark {
		if in.onShiftTab != nil {
			go in.onShiftTab() // not on readline's goroutine: it redraws
		}
		return 0, false
	}
	if r != escEscKey {
		return r, true
	}
	in.keyMu.Lock()
	defer in.keyMu.Unlock()
	return in.escKey()
}

// remember adds a sent message to the history.
func (in *input) remember(msg string) error {
	err := in.hist.Add(msg)
	in.syncHistory()
	return err
}

// syncHistory hands readline our history afresh. readline keeps edits of
// recalled lines and would file a browsed entry under its last physical
// line; rebuilding after every read keeps it equal to what was sent.
func (in *input) syncHistory() {
	in.rl.ResetHistory()
	for _, e := range in.hist.entries {
		in.rl.SaveHistory(e)
	}
}

// quiet stops the terminal echoing keys while aci works, so typing does
// not garble the streamed answer; the keys wait for the next prompt, each
// as typed (Ctrl-D too). Ctrl-C still raises SIGINT. The returned func
// undoes it.
func (in *input) quiet() func() { return keysMode(in.fd) }

// joiner gathers a message typed over several lines: a line that ends in a
// backslash goes on on the next one.
type joiner struct{ parts []string }

func (j *joiner) pending() bool { return len(j.parts) > 0 }

// add takes a line; it returns the message once a line does not continue.
func (j *joiner) add(line string) (string, bool) {
	if body, ok := strings.CutSuffix(line, `\`); ok {
		j.parts = append(j.parts, body)
		return "", false
	}
	msg := strings.Join(append(j.parts, line), "\n")
	j.parts = nil
	return msg, true
}

// prefill puts text at the next prompt, as if typed there.
func (in *input) prefill(text string) {
	if text != "" {
		in.keyMu.Lock()
		in.preset += text // the next read starts with it (rewind_keys.go)
		in.keyMu.Unlock()
	}
}
