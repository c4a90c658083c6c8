package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/windows"
)

// Rewinding goes back to just before one of the person's questions
// (docs/protocol.md §9): the files as they were then, the conversation as it
// was then, or both. The conversation continues in a new branch whose
// history is the earlier requests' prefix byte for byte (the provider's
// cache still holds it); this session keeps the later turns, so they stay
// reachable with --sessions and --resume, and --resume (the newest
// session) continues the rewound conversation.

// rewinder is a journal that can put back every turn from one question on
// (windows.UndoJournal).
type rewinder interface {
	RewindTo(question int) (windows.UndoResult, error)
	DropFrom(question int)
}

// turnJournal hears which question a turn answers and when it ends.
type turnJournal interface {
	BeginTurn(question int)
	EndTurn()
}

// journalTurn tells the journal turn n begins; the returned func ends it.
func (s *Session) journalTurn(n int) func() {
	j, ok := s.opt.Journal.(turnJournal)
	if !ok {
		return func() {}
	}
	j.BeginTurn(n)
	return j.EndTurn
}

// RewindResult says what a rewind did.
type RewindResult struct {
	Turn     int    // the question gone back before
	Question string // its text, for the person to edit and send again
	// Files is what was put back (nil: files were not asked for, or no
	// change of those turns is recorded; FilesNote says why).
	Files     *windows.UndoResult
	FilesNote string
	// Untracked, with files, says what a rewind cannot take back: what
	// commands changed outside the workspace (as Claude Code warns).
	Untracked string
	// Branch is the session the rewound conversation continues in (nil:
	// the conversation was not asked for). This session keeps the turns.
	Branch *Session
}

// UntrackedNote is RewindResult.Untracked: the journal records the
// workspace's files (by file windows and by commands), nothing outside it.
const UntrackedNote = "changes commands made outside the workspace (a file deleted in /tmp or in your home folder) are not tracked and were not put back"

// ErrNoTurn is a rewind to a question the session does not have.
var ErrNoTurn = errors.New("no such question")

// Rewind goes back to just before question turn (counted from 1): files,
// conversation, or both. It refuses while a turn runs (ErrBusy).
func (s *Session) Rewind(ctx context.Context, turn int, files, conversation bool) (RewindResult, error) {
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return RewindResult{}, ErrClosed
	case s.running:
		s.mu.Unlock()
		return RewindResult{}, ErrBusy
	case turn < 1 || turn > len(s.turnLog.turns):
		n := len(s.turnLog.turns)
		s.mu.Unlock()
		if n == 0 {
			return RewindResult{}, fmt.Errorf("%w: the conversation has no question yet", ErrNoTurn)
		}
		return RewindResult{}, fmt.Errorf("%w %d: the conversation has questions 1 to %d", ErrNoTurn, turn, n)
	case conversation && s.id == "":
		s.mu.Unlock()
		return RewindResult{}, errors.New("the conversation cannot be rewound: this session has no transcript to branch from")
	}
	// Held as a turn holds it: no turn starts while files and windows move.
	s.running = true
	res := RewindResult{Turn: turn, Question: s.turnLog.turns[turn-1].Question}
	id := s.id
	s.mu.Unlock()
	s.run.Lock()
	defer func() {
		s.run.Unlock()
		s.mu.Lock()
		s.running = false
		s.mu.Unlock()
	}()

	j, _ := s.opt.Journal.(rewinder)
	switch {
	case files && j == nil:
		res.FilesNote = "this session keeps no record of file changes"
	case files:
		res.Untracked = UntrackedNote
		// Files first: the branch's windows open on the files as they are
		// after it.
		u, err := j.RewindTo(turn)
		if errors.Is(err, windows.ErrNothingToRewind) {
			res.FilesNote = err.Error()
		} else {
			res.Files = &u
		}
	case conversation && j != nil:
		j.DropFrom(turn)
	}
	if !conversation {
		return res, nil
	}
	opt := s.opt
	opt.Resume, opt.ResumeID = false, ""
	b, err := s.f.rewindBranch(ctx, id, turn, opt)
	if err != nil {
		return res, fmt.Errorf("rewind the conversation: %w", err)
	}
	// Windows reopened as the model last saw them before the question are
	// not shown again: the next request adds only the question.
	b.agent.AdoptViews(s.agent.ViewsBefore(turn))
	res.Branch = b
	return res, nil
}

// rewindBranch starts the branch of the stored session parentID that holds
// its turns before question turn.
func (f *Factory) rewindBranch(ctx context.Context, parentID string, turn int, opt Options) (*Session, error) {
	dir, err := f.SessionsDir()
	if err != nil {
		return nil, err
	}
	parent, err := agent.FindSession(dir, opt.Workdir, parentID)
	if err != nil {
		return nil, err
	}
	t, state, err := agent.RewindTranscript(dir, parent.Path, turn, f.cfg.Client.APIKey)
	if err != nil {
		return nil, err
	}
	return f.branch(ctx, opt, parent.Model, t, state)
}
