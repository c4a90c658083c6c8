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

	restore   func() // the terminal as aci found it
	closeOnce sync.Once
}

func newInput(stdin *os.File, term io.Writer, hist *history, prompt, cont string, pasteMode bool) (*input, error) {
	in := &input{hist: hist, pastes: &pasteStore{}, term: term, fd: int(stdin.Fd()), prompt: prompt, cont: cont}
	in.restore = saveTTY(in.fd)
	rl, err := readline.NewEx(&readline.Config{
		Prompt:                 prompt,
		HistoryLimit:           historyLimit,
		DisableAutoSaveHistory: true, // we save whole messages, not their lines
		HistorySearchFold:      true,
		AutoComplete:           slashCompleter{},
		EOFPrompt:              "\n", // readline's spelling of "nothing"
		Stdin:                  readline.NewCancelableStdin(&pasteReader{r: stdin, store: in.pastes}),
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
	}
	in.syncHistory()
	return in, nil
}

// Close gives the terminal back as it was. It is safe to call twice and
// from another goroutine, which makes a pending read return io.EOF.
func (in *input) Close() {
	in.closeOnce.Do(func() {
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
		prompt := in.prompt
		if j.pending() {
			prompt = in.cont
		}
		in.rl.SetPrompt(prompt)
		line, err := in.rl.Readline()
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
