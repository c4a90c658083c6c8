package ui

import (
	"io"
	"os"
	"strings"
	"sync"
	"unicode"

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

	keyMu   sync.Mutex
	keyWait bool // the next key may answer a question at once
	key     rune // the key that did
	keys    string

	// stdin is readline's input; closed first, it ends a read readline's
	// terminal loop may be blocked in (after a one-key answer it reads on
	// without waiting for a line to be asked for).
	stdin *readline.CancelableStdin

	restore   func() // the terminal as aci found it
	stopCont  func() // stops re-enabling paste mode after SIGCONT
	closeOnce sync.Once
}

func newInput(stdin *os.File, term io.Writer, hist *history, prompt, cont string, pasteMode bool, workdir string) (*input, error) {
	in := &input{hist: hist, pastes: &pasteStore{}, term: term, fd: int(stdin.Fd()), prompt: prompt, cont: cont}
	in.stdin = readline.NewCancelableStdin(&pasteReader{r: stdin, store: in.pastes})
	in.restore = saveTTY(in.fd)
	rl, err := readline.NewEx(&readline.Config{
		Prompt:                 prompt,
		HistoryLimit:           historyLimit,
		DisableAutoSaveHistory: true, // we save whole messages, not their lines
		HistorySearchFold:      true,
		AutoComplete:           completer{workdir: workdir},
		FuncFilterInputRune:    in.filterKey,
		EOFPrompt:              "\n", // readline's spelling of "nothing"
		Stdin:                  in.stdin,
		Stdout:                 term,
		Stderr:                 term,
	})
	if err != nil {
		return nil, err
	}
	in.rl = rl
	if pasteMode {
		io.WriteString(term, bracketedPasteOn)
		in.paste = true
		in.stopCont = onContinue(func() { io.WriteString(term, bracketedPasteOn) })
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
		in.stdin.Close()
		in.rl.Close()
		if in.paste {
			io.WriteString(in.term, bracketedPasteOff)
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
		line, err := in.rl.Readline()
		in.promptMu.Lock()
		in.reading = false
		in.promptMu.Unlock()
		if err != nil {
			in.pastes.reset()
			return "", line == "" && !j.pending(), err
		}
		if msg, done := j.add(decodeEntry(line)); done {
			return in.pastes.expand(msg), false, nil
		}
	}
}

// ask reads one answer to a question, for the approval prompt.
func (in *input) ask(prompt string) (string, error) {
	defer in.syncHistory()
	in.rl.SetPrompt(prompt)
	line, err := in.rl.Readline()
	return in.pastes.expand(decodeEntry(line)), err
}

// askKey asks a question that one of keys answers at once, without
// Enter; anything else typed is taken as a line. It returns the key, or 0
// and the line.
func (in *input) askKey(prompt string, keys string) (rune, string, error) {
	in.keyMu.Lock()
	in.keyWait, in.key, in.keys = true, 0, keys
	in.keyMu.Unlock()
	defer func() {
		in.keyMu.Lock()
		in.keyWait = false
		in.keyMu.Unlock()
	}()
	line, err := in.ask(prompt)
	in.keyMu.Lock()
	key := in.key
	in.keyMu.Unlock()
	if key != 0 {
		return key, "", nil
	}
	return 0, line, err
}

// filterKey sees every key readline reads: the first key of an answer to
// askKey, if it is one of its keys, ends the line at once.
func (in *input) filterKey(r rune) (rune, bool) {
	if string(r) == shiftTabMark {
		if in.onShiftTab != nil {
			go in.onShiftTab() // not on readline's goroutine: it redraws
		}
		return 0, false
	}
	in.keyMu.Lock()
	defer in.keyMu.Unlock()
	if !in.keyWait {
		return r, true
	}
	in.keyWait = false
	if k := unicode.ToLower(r); strings.ContainsRune(in.keys, k) {
		in.key = k
		return readline.CharEnter, true
	}
	if r == readline.CharEnter {
		in.keyWait = true // Enter alone: still waiting for an answer
	}
	return r, true
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

// quiet stops the terminal echoing keys during a turn, so typing does not
// garble the streamed answer; the keys wait for the next prompt. Ctrl-C
// still raises SIGINT. The returned func undoes it.
func (in *input) quiet() func() { return noEcho(in.fd) }

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
		in.rl.WriteStdin([]byte(text))
	}
}
