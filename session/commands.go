package session

import (
	"context"
	"errors"

	"github.com/aci-dev/aci/commands"
	"github.com/aci-dev/aci/tools/imagefile"
	"github.com/aci-dev/aci/windows"
)

// Prompt is a question as the model gets it: a slash command's file
// expanded (docs/protocol.md §9). Every front end's question passes through
// expand, so a command works alike in the REPL, pipe mode, the page and
// an editor.
type Prompt struct {
	Typed   string // what the person typed: what the turn shows
	Text    string // what the model reads
	Command string // the command's name, "" for a plain question
	// ReadOnly runs the turn in plan mode (/review; review.go).
	ReadOnly bool
	Model    string // the turn's model, "" for the session's
	// Images are the pictures the question names with @path (images.go).
	Images []imagefile.Image
}

// CommandError is a command that cannot run: its file's front matter is
// broken, it has an unknown placeholder, or it takes a built-in's name.
// It is a usage error: the question is not sent.
type CommandError struct{ Err error }

func (e *CommandError) Error() string        { return e.Err.Error() }
func (e *CommandError) Unwrap() []error      { return []error{e.Err, ErrUsage} }
func (e *CommandError) Is(target error) bool { return target == ErrUsage }

// ErrCommandBusy is a command sent while a turn runs: it cannot join the
// turn as words do, since its prompt (and /review's read-only set-up) is a
// turn of its own.
var ErrCommandBusy = errors.New("a slash command runs as a turn of its own: send it when this turn has ended")

// namesCommand reports whether text is a command line ("/fix-issue 1").
func (s *Session) namesCommand(text string) bool {
	name, _, ok := commands.Split(text)
	if !ok {
		return false
	}
	_, ok = s.Commands().Lookup(name)
	return ok
}

// Commands are the session's slash commands as their files are now: a
// file added or changed mid-session counts at once.
func (s *Session) Commands() *commands.Set {
	return commands.Load(s.workdir, commands.UserDir())
}

// expand turns a question that names a command ("/fix-issue 123") into the
// command's prompt; any other question (also "/etc/hosts is wrong") is
// itself.
func (s *Session) expand(question string) (Prompt, error) {
	p := Prompt{Typed: question, Text: question}
	imgs, err := LoadImages(s.workdir, MentionedImages(question))
	if err != nil {
		return p, err
	}
	p.Images = imgs
	name, args, ok := commands.Split(question)
	if !ok {
		return p, nil
	}
	c, ok := s.Commands().Lookup(name)
	if !ok {
		return p, nil
	}
	text, err := c.Expand(args)
	if err != nil {
		return p, &CommandError{Err: err}
	}
	p.Text, p.Command, p.ReadOnly, p.Model = text, c.Name, c.ReadOnly, c.Model
	return p, nil
}

// modelSetter is a client whose model can change between turns.
type modelSetter interface {
	Model() string
	SetModel(string)
}

// runPrompt runs the agent on p's text, set up as its command asks, and
// puts the session back however the run ends.
func (s *Session) runPrompt(ctx context.Context, p Prompt) (string, error) {
	defer s.applyPrompt(p)()
	s.attachPrompt(p)
	return s.agent.Run(ctx, p.Text)
}

// applyPrompt sets up the turn as its command asks (another model; a
// read-only turn's plan mode is set before, by readOnlyMode) and returns what puts the session back.
func (s *Session) applyPrompt(p Prompt) func() {
	var undo []func()
	if ms, ok := s.client.(modelSetter); ok && p.Model != "" && p.Model != ms.Model() {
		old := ms.Model()
		ms.SetModel(p.Model)
		undo = append(undo, func() { ms.SetModel(old) })
	}
	return func() {
		for _, u := range undo {
			u()
		}
	}
}

// skillApp is the launcher's skill app for the workspace's skills, or nil
// when there are none (then it costs nothing in the launcher).
func skillApp(workdir string, say func(string)) func(*windows.Env) windows.App {
	skills, notes := commands.LoadSkills(workdir, commands.UserDir())
	for _, n := range notes {
		// Said at the first start after the file changed, not at every
		// one: /help lists it for as long as it stands.
		if firstTime(n.Path, n.Text) {
			say(n.Text + " (said once; /help lists it)")
		}
	}
	if len(skills) == 0 {
		return nil
	}
	list := make([]windows.Skill, len(skills))
	for i, sk := range skills {
		list[i] = windows.Skill{Name: sk.Name, Description: sk.Description, Dir: sk.Dir, Read: sk.Text}
	}
	return windows.SkillApp(list)
}
