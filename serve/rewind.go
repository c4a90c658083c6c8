package serve

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/windows"
)

// rewindRequest is POST /api/sessions/{id}/rewind's body: files and
// conversation default to true.
type rewindRequest struct {
	Turn         *int  `json:"turn"`
	Files        *bool `json:"files"`
	Conversation *bool `json:"conversation"`
}

type rewindOrder struct {
	turn                int
	files, conversation bool
}

func decodeRewind(body []byte) (rewindOrder, error) {
	var req rewindRequest
	if err := decodeStrict(body, &req); err != nil {
		return rewindOrder{}, err
	}
	if req.Turn == nil {
		return rewindOrder{}, errors.New(`"turn" is missing: send {"turn": N}, the question to go back before`)
	}
	o := rewindOrder{turn: *req.Turn, files: true, conversation: true}
	if req.Files != nil {
		o.files = *req.Files
	}
	if req.Conversation != nil {
		o.conversation = *req.Conversation
	}
	if o.turn < 1 {
		return o, fmt.Errorf(`"turn" must be 1 or more (questions count from 1), got %d`, o.turn)
	}
	if !o.files && !o.conversation {
		return o, errors.New(`nothing to rewind: "files" and "conversation" are both false`)
	}
	return o, nil
}

// rewindFiles is what was done to the files, paths relative to the
// workspace where they are in it.
type rewindFiles struct {
	Restored []string `json:"restored"`
	Removed  []string `json:"removed"`
	Refused  []string `json:"refused"` // changed since by someone else: left alone
	Failed   []string `json:"failed"`  // "path: why"
	Note     string   `json:"note,omitempty"`
	// Untracked says what a rewind cannot put back: commands' changes
	// outside the workspace.
	Untracked string `json:"untracked,omitempty"`
}

// rewind goes back to just before a question: the files, the conversation
// (continued in a new session, the answer's id; this one keeps the later
// turns), or both.
func (s *Server) rewind(w http.ResponseWriter, r *http.Request) {
	o, ss, ok := sessionBody(s, w, r, maxSmallBody, decodeRewind)
	if !ok {
		return
	}
	if ss.Attached() {
		s.fail(w, http.StatusConflict, "this session runs in a terminal: rewind it there (/rewind)")
		return
	}
	res, err := ss.Rewind(s.ctx, o.turn, o.files, o.conversation)
	switch {
	case errors.Is(err, session.ErrBusy):
		s.fail(w, http.StatusConflict, "a turn is running: cancel it or wait for its end, then rewind")
		return
	case errors.Is(err, session.ErrClosed):
		s.fail(w, http.StatusNotFound, "the session was ended: load it again with GET /api/sessions/%s", ss.ID())
		return
	case errors.Is(err, session.ErrNoTurn):
		s.fail(w, http.StatusBadRequest, "rewind: %v", err)
		return
	case err != nil:
		s.fail(w, http.StatusInternalServerError, "%v", err)
		return
	}
	out := map[string]any{"turn": res.Turn, "question": res.Question, "id": ss.ID()}
	if o.files {
		out["files"] = s.filesAnswer(res)
	}
	if res.Branch != nil {
		if err := s.adopt(res.Branch); err != nil {
			s.fail(w, http.StatusServiceUnavailable, "%v", err)
			return
		}
		out["id"], out["parent"], out["from_turn"] = res.Branch.ID(), ss.ID(), o.turn-1
	}
	s.writeJSON(w, http.StatusOK, out)
}

func (s *Server) filesAnswer(res session.RewindResult) rewindFiles {
	f := rewindFiles{Restored: []string{}, Removed: []string{}, Refused: []string{}, Failed: []string{}, Note: res.FilesNote, Untracked: res.Untracked}
	if res.Files == nil {
		return f
	}
	rel := func(ps []string) []string {
		out := []string{}
		for _, p := range ps {
			if r, err := filepath.Rel(s.cfg.Workdir, p); err == nil && !strings.HasPrefix(r, "..") {
				p = r
			}
			out = append(out, p)
		}
		sort.Strings(out)
		return out
	}
	u := *res.Files
	f.Restored, f.Removed, f.Refused = rel(u.Restored), rel(u.Removed), rel(u.Refused)
	for _, line := range u.Failed {
		p, why, _ := strings.Cut(line, ": ")
		f.Failed = append(f.Failed, rel([]string{p})[0]+": "+why)
	}
	return f
}

// newJournal is each server session's record of the files its turns
// change, for rewinding them.
func newJournal() windows.Journal { return windows.NewUndoJournal() }
