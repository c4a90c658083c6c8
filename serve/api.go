package serve

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aci-dev/aci/session"
)

// errNoSession is a session id that is neither live nor a transcript of
// this workspace.
var errNoSession = errors.New("no session")

// summary is one row of GET /api/sessions.
type summary struct {
	ID       string    `json:"id"`
	Title    string    `json:"title"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
	Turns    int       `json:"turns"`
	State    string    `json:"state"`
	Parent   string    `json:"parent"`
	FromTurn int       `json:"from_turn"`
}

// list merges the live sessions with the workspace's transcripts, newest
// first.
func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	saved, err := s.saved()
	if err != nil {
		s.fail(w, http.StatusInternalServerError, "%v", err)
		return
	}
	rows := map[string]summary{}
	for _, t := range saved {
		if len(t.Turns) == 0 {
			continue // nothing was asked: nothing to show or resume
		}
		row := summary{ID: t.ID, Title: title(t.Title()), Created: t.Started, Updated: t.Started, Turns: len(t.Turns),
			State: string(session.StateIdle), Parent: t.Parent, FromTurn: t.FromTurn}
		if fi, err := os.Stat(t.Path); err == nil {
			row.Updated = fi.ModTime().UTC()
		}
		rows[t.ID] = row
	}
	for _, l := range s.liveSessions() {
		info := l.s.Info()
		row := rows[info.ID]
		row.ID, row.State, row.Turns = info.ID, string(info.State), len(info.Turns)
		row.Parent, row.FromTurn = info.Parent, info.FromTurn
		if row.Created.IsZero() {
			row.Created, row.Updated = l.born, l.born
		}
		if len(info.Turns) > 0 {
			row.Title = title(info.Turns[0].Question)
		}
		rows[info.ID] = row
	}
	out := make([]summary, 0, len(rows))
	for _, row := range rows {
		out = append(out, row)
	}
	slices.SortFunc(out, func(a, b summary) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	s.writeJSON(w, http.StatusOK, out)
}

// title is a question shortened to one line for the list.
func title(q string) string {
	q = strings.Join(strings.Fields(q), " ")
	if r := []rune(q); len(r) > 80 {
		q = string(r[:79]) + "…"
	}
	return q
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody(s, w, r, maxSmallBody, decodeCreate)
	if !ok {
		return
	}
	opt, named := s.options(req.Model)
	ss, err := s.cfg.Factory.New(s.ctx, opt)
	if errors.Is(err, session.ErrUsage) { // a provider without its key
		s.fail(w, http.StatusBadRequest, "start a session: %v", err)
		return
	}
	if err != nil {
		s.fail(w, http.StatusInternalServerError, "start a session: %v", err)
		return
	}
	named(ss.ID())
	if err := s.adopt(ss); err != nil {
		s.fail(w, http.StatusServiceUnavailable, "%v", err)
		return
	}
	info := ss.Info()
	s.writeJSON(w, http.StatusCreated, map[string]any{"id": info.ID, "model": info.Model, "cwd": info.Cwd, "state": info.State})
}

func (s *Server) get(w http.ResponseWriter, r *http.Request) {
	info, _, ok := s.viewed(w, r) // looking takes no lock (view.go)
	if !ok {
		return
	}
	s.writeJSON(w, http.StatusOK, struct {
		session.Info
		Modes []string `json:"modes"`
	}{info, s.clientModes()})
}

// remove ends a session's tasks and servers; its transcript stays, so a
// later GET loads it again.
func (s *Server) remove(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	l := s.live[id]
	if l != nil && l.hosted {
		s.mu.Unlock()
		s.fail(w, http.StatusConflict, "this session runs in a terminal: end it there")
		return
	}
	delete(s.live, id)
	s.mu.Unlock()
	if l == nil {
		if err := s.find(id); err != nil {
			s.notFound(w, err)
			return
		}
	} else {
		l.s.Close() // cancels a running turn and waits for its end
	}
	s.writeJSON(w, http.StatusOK, struct{}{})
}

func (s *Server) message(w http.ResponseWriter, r *http.Request) {
	req, ss, ok := sessionBody(s, w, r, maxImagesBody, decodeMessage)
	if !ok {
		return
	}
	if !s.attachImages(w, ss, req.pictures) {
		return
	}
	// While a turn runs the text joins it (steering, docs/protocol.md §7).
	turn, steered, err := ss.Send(req.Text)
	switch {
	case errors.Is(err, session.ErrAttached):
		s.fail(w, http.StatusConflict, "this session runs in a terminal: ask there (a message sent while its turn runs joins the turn)")
	case errors.Is(err, session.ErrClosed):
		s.fail(w, http.StatusNotFound, "the session was ended: load it again with GET /api/sessions/%s", ss.ID())
	case errors.Is(err, session.ErrUsage): // a command file that cannot run
		s.fail(w, http.StatusBadRequest, "%v", err)
	case errors.Is(err, session.ErrCommandBusy):
		s.fail(w, http.StatusConflict, "%v", err)
	case err != nil:
		s.fail(w, http.StatusInternalServerError, "start the turn: %v", err)
	case steered:
		s.writeJSON(w, http.StatusAccepted, map[string]any{"turn": turn, "steer": true})
	default:
		s.writeJSON(w, http.StatusAccepted, map[string]int{"turn": turn})
	}
}

// cancelTurn ends the running turn, if any, as Ctrl-C does. A session
// that is not loaded runs nothing.
func (s *Server) cancelTurn(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if ss := s.lookup(id); ss != nil {
		ss.Cancel()
	} else if err := s.find(id); err != nil {
		s.notFound(w, err)
		return
	}
	s.writeJSON(w, http.StatusOK, struct{}{})
}

func (s *Server) approve(w http.ResponseWriter, r *http.Request) {
	d, ok := decodeBody(s, w, r, maxSmallBody, decodeDecision)
	if !ok {
		return
	}
	_, ss, ok := s.viewed(w, r)
	if !ok {
		return
	}
	reqID := r.PathValue("request_id")
	if ss == nil { // not loaded: nothing is asked
		s.fail(w, http.StatusNotFound, "no question %s is waiting in this session", quoteShort(reqID))
		return
	}
	if err := ss.Decide(reqID, d); err != nil {
		if errors.Is(err, session.ErrNoRequest) {
			s.fail(w, http.StatusNotFound, "no question %s is waiting in this session", quoteShort(reqID))
			return
		}
		s.fail(w, http.StatusInternalServerError, "%v", err)
		return
	}
	s.writeJSON(w, http.StatusOK, struct{}{})
}

func (s *Server) window(w http.ResponseWriter, r *http.Request) {
	info, ss, ok := s.viewed(w, r)
	if !ok {
		return
	}
	id := r.PathValue("window_id")
	var win session.WindowInfo
	found := false
	if ss != nil {
		win, found = ss.Window(id)
	} else {
		// Not loaded: the window as the transcript lists it, no content
		// until the session is loaded (a message) and it opens again.
		for _, x := range info.Windows {
			if x.ID == id {
				win, found = x, true
			}
		}
	}
	if !found {
		s.fail(w, http.StatusNotFound, "no window %s is open in this session", quoteShort(id))
		return
	}
	// content always, even when empty: the list of windows leaves it out.
	s.writeJSON(w, http.StatusOK, map[string]string{"id": win.ID, "app": win.App, "title": win.Title, "content": win.Content})
}

func (s *Server) fork(w http.ResponseWriter, r *http.Request) {
	turn, ok := decodeBody(s, w, r, maxSmallBody, decodeFork)
	if !ok {
		return
	}
	info, parent, ok := s.viewed(w, r) // a branch is made from the transcript: no lock
	if !ok {
		return
	}
	n := len(info.Turns)
	switch {
	case parent != nil && parent.Running() && turn >= n:
		s.fail(w, http.StatusConflict, "turn %d is still running: fork at an earlier turn, or once it ends", n)
		return
	case turn > n:
		s.fail(w, http.StatusBadRequest, "the session has %d turns: a branch keeps 1 to %d of them, not %d", n, n, turn)
		return
	}
	opt, named := s.options("")
	ss, err := s.cfg.Factory.Fork(s.ctx, info.ID, turn, opt)
	switch {
	case errors.Is(err, session.ErrUsage):
		s.fail(w, http.StatusBadRequest, "fork: %v", err)
		return
	case err != nil:
		s.fail(w, http.StatusInternalServerError, "fork: %v", err)
		return
	}
	named(ss.ID())
	if err := s.adopt(ss); err != nil {
		s.fail(w, http.StatusServiceUnavailable, "%v", err)
		return
	}
	s.writeJSON(w, http.StatusCreated, map[string]any{"id": ss.ID(), "parent": info.ID, "from_turn": turn})
}

// session finds the request's session, loading its transcript when it is
// not live yet; it answers 404 itself when there is none.
func (s *Server) session(w http.ResponseWriter, r *http.Request) (*session.Session, bool) {
	ss, err := s.load(r.PathValue("id"))
	if err != nil {
		s.notFound(w, err)
		return nil, false
	}
	return ss, true
}

func (s *Server) notFound(w http.ResponseWriter, err error) {
	var locked *session.LockedError
	switch {
	case errors.Is(err, errNoSession):
		s.fail(w, http.StatusNotFound, "%v", err)
		return
	case errors.As(err, &locked):
		s.fail(w, http.StatusConflict, "%v", locked)
		return
	}
	s.fail(w, http.StatusInternalServerError, "%v", err)
}

// load returns the live session id, or resumes its transcript as a live,
// idle session. Loads are one at a time, so two requests for the same
// transcript make one session.
func (s *Server) load(id string) (*session.Session, error) {
	if ss := s.lookup(id); ss != nil {
		return ss, nil
	}
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	if ss := s.lookup(id); ss != nil {
		return ss, nil
	}
	if err := s.find(id); err != nil {
		return nil, err
	}
	opt, named := s.options("")
	ss, err := s.cfg.Factory.Open(s.ctx, id, opt)
	if err != nil {
		return nil, err
	}
	named(ss.ID())
	if err := s.adopt(ss); err != nil {
		return nil, err
	}
	return ss, nil
}

// find checks that id is exactly a transcript of this workspace: one
// file looked at, however many the store holds.
func (s *Server) find(id string) error {
	dir, err := s.sessionsDir()
	if err != nil {
		return err
	}
	if _, err := session.SessionPath(dir, s.cfg.Workdir, id, false); err != nil {
		if errors.Is(err, session.ErrNoSession) {
			return fmt.Errorf("%w %s in this workspace (GET /api/sessions lists them)", errNoSession, quoteShort(id))
		}
		return err
	}
	return nil
}

// sessionsDir is where the factory keeps the transcripts.
func (s *Server) sessionsDir() (string, error) { return s.cfg.Factory.SessionsDir() }

// saved lists the workspace's transcripts, where the factory keeps them.
func (s *Server) saved() ([]session.Listed, error) {
	return s.cfg.Factory.List(s.cfg.Workdir)
}

// options are a server session's: questions become approval events
// (unless the server has an Approver), notes go to the log.
// named is to be called with the session's id once it exists.
func (s *Server) options(model string) (opt session.Options, named func(string)) {
	named = func(string) {}
	opt = session.Options{
		Workdir:  s.cfg.Workdir,
		Model:    model,
		Approver: s.cfg.Approver,
		Mode:     s.cfg.Mode,
		Trust:    s.cfg.Trust,
		Say:      func(line string) { s.log.Print(line) },
		Journal:  newJournal(),
	}
	if s.cfg.Events != nil {
		// The id is known once the session exists; an event comes only
		// after a message, which needs the session.
		var id atomic.Value
		id.Store("")
		opt.Events = func(ev session.Event) { s.cfg.Events(id.Load().(string), ev) }
		named = func(sid string) { id.Store(sid) }
	}
	if s.withOptions != nil {
		s.withOptions(&opt)
	}
	return opt, named
}

// liveSession is a loaded session and when the server loaded it (the
// creation time of one with no transcript yet).
type liveSession struct {
	s    *session.Session
	born time.Time
	// hosted: the session belongs to the process's terminal (Host): the
	// server neither ends it nor lets a client delete it.
	hosted bool
}

func (s *Server) lookup(id string) *session.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l := s.live[id]; l != nil {
		return l.s
	}
	return nil
}

func (s *Server) liveSessions() []*liveSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*liveSession, 0, len(s.live))
	for _, l := range s.live {
		out = append(out, l)
	}
	return out
}

// adopt makes ss live; after Close it ends ss instead.
func (s *Server) adopt(ss *session.Session) error {
	id := ss.ID()
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		ss.Close()
		return errors.New("the server is shutting down")
	case id == "":
		s.mu.Unlock()
		ss.Close()
		return errors.New("no session transcript can be written (see the server's log): a session without one cannot be reached again")
	}
	s.live[id] = &liveSession{s: ss, born: time.Now().UTC()}
	s.mu.Unlock()
	return nil
}
