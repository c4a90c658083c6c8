package session

import (
	"errors"
	"strings"

	"github.com/aci-dev/aci/agent"
)

// Steering (docs/protocol.md §7): a message sent while a turn runs joins it.
// The agent drains the queue before each model request; what is still
// queued when the turn ends unseen starts the next turn, unless the turn
// was cancelled or failed: then the result event lists it as unread.

// ErrIdle is a message for the running turn when none runs.
var ErrIdle = errors.New("no turn is running")

// ErrAttached is a turn asked through Send of a session whose turns a
// terminal starts (the REPL's, served with /serve).
var ErrAttached = errors.New("this session's turns are started in its terminal")

// Steer adds text to the running turn: the model sees it in its next
// request. It returns the turn's number, or ErrIdle when no turn runs.
func (s *Session) Steer(text string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return 0, ErrClosed
	case !s.running:
		return 0, ErrIdle
	}
	s.steers = append(s.steers, text)
	return s.turnN, nil
}

// Send is a message from a client: it joins the running turn (steered),
// or starts a turn in the background. A session whose turns its terminal
// starts takes messages only while a turn runs (ErrAttached otherwise).
func (s *Session) Send(text string) (turn int, steered bool, err error) {
	for {
		if s.Running() && s.namesCommand(text) {
			return 0, false, ErrCommandBusy // a command is a turn of its own
		}
		n, err := s.Steer(text)
		if !errors.Is(err, ErrIdle) {
			return n, err == nil, err
		}
		if s.Attached() {
			return 0, false, ErrAttached
		}
		n, err = s.Start(text)
		if !errors.Is(err, ErrBusy) {
			return n, false, err
		}
		// A turn began between the two: join it.
	}
}

// Attach marks the session as driven by its terminal: clients may watch,
// answer its questions and steer its turns, not start them.
func (s *Session) Attach() {
	s.mu.Lock()
	s.attached = true
	s.mu.Unlock()
}

// Attached reports whether the session's turns are started in its
// terminal.
func (s *Session) Attached() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attached
}

// Queued takes the messages the last turn ended without showing the
// model, joined into one question ("" when none). The REPL starts its
// next turn with them; Start does so itself.
func (s *Session) Queued() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queued
	s.queued = nil
	return strings.Join(q, "\n\n")
}

// takeSteers is the agent's steering source: the messages queued since
// its last request.
func (s *Session) takeSteers() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.steers
	s.steers = nil
	return q
}

// unreadOnFailure drops the messages the model has not seen when the turn
// was cancelled or failed: they are returned for the result event, so the
// person can send them again. After a turn that answered they stay, to
// start the next turn.
func (s *Session) unreadOnFailure(err error) []string {
	if err == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.steers
	s.steers = nil
	s.unread = q
	return q
}

// Unread takes the messages the last turn dropped unread (it was
// cancelled or failed), for the REPL to give back.
func (s *Session) Unread() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.unread
	s.unread = nil
	return q
}

// steerEvent says the message reached the model in the turn's step-th
// request.
func (s *Session) steerEvent(ev agent.Event) Steer {
	s.mu.Lock()
	n := s.turnN
	s.mu.Unlock()
	return Steer{Turn: n, Text: ev.Text, Step: ev.Step}
}
