package session

import (
	"context"
	"sync"

	"github.com/aci-dev/aci/windows"
)

// A session with its own approver (the REPL's) that clients watch (it was
// served with /serve) offers each question to both: the first answer
// wins, the other side is told who decided.

// Who answered a shared question.
const (
	ByTerminal = "terminal"
	ByWebPage  = "web page"
)

// SharedQuestion is in the context of a question the front end's
// approver shares with the clients: once the context ends, Decided says
// whether the clients answered it, and how.
type SharedQuestion struct {
	mu        sync.Mutex
	by        string
	d         windows.Decision
	requestID string
}

type sharedKey struct{}

// SharedFrom returns the shared question ctx carries, or nil: the
// approver then asks alone, as usual.
func SharedFrom(ctx context.Context) *SharedQuestion {
	q, _ := ctx.Value(sharedKey{}).(*SharedQuestion)
	return q
}

// Decided reports who answered and how ("" while no one has).
func (q *SharedQuestion) Decided() (windows.Decision, string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.d, q.by
}

// decide records the first answer; later ones are ignored.
func (q *SharedQuestion) decide(d windows.Decision, by string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.by != "" {
		return false
	}
	q.d, q.by = d, by
	return true
}

// approve is the windows' approver of a session with its own: shared with
// the clients while they may answer.
func (s *Session) approve(ctx context.Context, req windows.ApprovalRequest) windows.Decision {
	// The front end has drawn the call before it asks about it.
	s.flushEvents()
	if !s.Attached() {
		return s.opt.Approver.Approve(ctx, req)
	}
	q := &SharedQuestion{}
	ctx, cancel := context.WithCancel(context.WithValue(ctx, sharedKey{}, q))
	defer cancel()
	type answer struct {
		d  windows.Decision
		by string
	}
	ch := make(chan answer, 2)
	go func() { ch <- answer{s.opt.Approver.Approve(ctx, req), ByTerminal} }()
	go func() { ch <- answer{s.askClients(ctx, req, q), ByWebPage} }()
	first := <-ch
	won := q.decide(first.d, first.by)
	if won && first.by == ByTerminal {
		// Said before the clients' question is withdrawn, so the page
		// shows who answered rather than that the question went away.
		s.mu.Lock()
		id := q.requestID
		s.mu.Unlock()
		if id != "" {
			s.publish(Notice{Kind: "approval", Text: decisionLine(id, first.d) + " in the terminal", RequestID: id, By: ByTerminal})
			s.publish(decided(id, first.d, ByTerminal))
		}
	}
	cancel()
	<-ch // the other side has given up its question
	d, _ := q.Decided()
	return d
}

func decisionLine(id string, d windows.Decision) string {
	switch {
	case d.Allow && d.Always:
		return id + ": always allowed"
	case d.Allow:
		return id + ": allowed"
	}
	return id + ": denied"
}
