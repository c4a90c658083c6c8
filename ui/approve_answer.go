package ui

import (
	"context"
	"errors"
	"strings"
	"unicode"
)

// Answers at the terminal's question. Nothing answers at once: a key that
// did would be the first letter of a sentence typed there ("absolutely
// not" allowing for the session). A whole line, ended by Enter, answers:
// y or yes allows, a or always allows for the session, p or project for
// the project (a saved rule), n or no denies,
// and what follows n, or no and a comma, is the reason the model reads
// ("no way" is read whole). Any other text
// denies with that text as the reason; a line that starts with an
// allowing word but goes on ("yes but not src") is asked again, as the
// one thing it cannot mean is a plain yes.

// verdict is what a line typed at the question means.
type verdict int

const (
	verdictNone    verdict = iota // nothing typed: ask on
	verdictYes                    // allow once
	verdictAlways                 // allow for the session
	verdictNo                     // deny (with a reason, if one was given)
	verdictUnsure                 // starts like an allowing answer but goes on: ask again
	verdictProject                // allow for this project (a saved rule)
	verdictEdits                  // accept edits for the session (mode default)
)

// allowingWords are the answers that allow, each said alone.
var allowingWords = map[string]verdict{
	"y": verdictYes, "yes": verdictYes,
	"a": verdictAlways, "always": verdictAlways,
	"p": verdictProject, "project": verdictProject,
	"e": verdictEdits, "edits": verdictEdits,
}

// readAnswer is what line means, and the reason for a denial.
func readAnswer(line string) (verdict, string) {
	text := strings.TrimSpace(line)
	if text == "" {
		return verdictNone, ""
	}
	// Claude Code's menu, chosen by number with Enter.
	switch text {
	case "1":
		return verdictYes, ""
	case "2":
		return verdictAlways, ""
	case "3":
		return verdictNo, ""
	}
	end := strings.IndexFunc(text, func(r rune) bool { return !unicode.IsLetter(r) })
	if end < 0 {
		end = len(text)
	}
	word := strings.ToLower(text[:end])
	rest := strings.TrimSpace(strings.TrimLeftFunc(text[end:], func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(",.;:!-–—", r)
	}))
	if v, ok := allowingWords[word]; ok {
		if rest == "" {
			return v, ""
		}
		return verdictUnsure, ""
	}
	switch word {
	case "n":
		return verdictNo, rest
	case "no":
		// "no, keep it": the reason follows; "no way" is said whole.
		if sep := strings.TrimSpace(text[end:]); sep == "" || !strings.ContainsRune(",.;:!-–—", []rune(sep)[0]) {
			if rest == "" {
				return verdictNo, ""
			}
			return verdictNo, text
		}
		return verdictNo, rest
	}
	return verdictNo, text
}

// answerHint is the line under the question that says how to answer.
func (a *termApprover) answerHint(scope string, edits bool) string {
	o := a.out
	more := ""
	if edits {
		more = o.bold.Sprint("e") + " accept edits for this session (mode default, Claude Code's acceptEdits) · "
	}
	return "  " + o.bold.Sprint("y") + " yes · " + o.bold.Sprint("n") + " no · " + o.bold.Sprint("a") +
		" always (" + sanitize(scope) + ", this session) · " + more + o.bold.Sprint("p") +
		" always for this project, then Enter · other text denies and tells the model why"
}

// errAnswerCut is a question left with Ctrl-C or Ctrl-D.
var errAnswerCut = errors.New("the question was left")

// readLine shows prompt and reads one line typed at the question from the
// keys (nothing else reads the terminal meanwhile), drawing it as typed.
// It ends at Enter, at Ctrl-D (or Ctrl-C, where it arrives as a key) on
// an empty line, or at ctx's end.
func (a *termApprover) readLine(ctx context.Context, prompt string) (string, error) {
	own := a.in.keys.claim(true)
	defer own.release()
	discardInput(a.in.fd)
	defer keysMode(a.in.fd)()
	stop := context.AfterFunc(ctx, own.release)
	defer stop()
	draw := a.out.raw
	draw(prompt)
	var t typeahead
	for {
		b, err := own.take()
		if err != nil {
			draw("\r\n")
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			return "", err
		}
		// Key by key: Ctrl-D leaves only an empty line.
		for i := range b {
			if b[i] == 0x03 || b[i] == 0x04 && len(t.draft) == 0 && !t.paste {
				draw("\r\n")
				return "", errAnswerCut
			}
			if lines := t.feed(b[i : i+1]); len(lines) > 0 {
				draw("\r\n")
				return lines[0], nil
			}
		}
		draw("\r\x1b[K" + prompt + sanitize(t.shown()))
	}
}
