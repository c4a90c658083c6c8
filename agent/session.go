package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aci-dev/aci/tools/imagefile"
	"github.com/aci-dev/aci/transcript"
	"github.com/aci-dev/aci/windows"
)

// Record is one line of a session transcript (JSON lines).
type Record struct {
	// Type is meta, message, usage, summary, reset, windows, rewrite,
	// question or event; call, turn and answer are an older aci's (their
	// events say the same: read for an old transcript's events only).
	Type    string `json:"type"`
	Time    string `json:"time,omitempty"`
	Workdir string `json:"workdir,omitempty"` // meta
	Model   string `json:"model,omitempty"`   // meta
	// Parent and FromTurn mark a branch (meta): the session it was forked
	// from and how many of its turns it took.
	Parent   string `json:"parent,omitempty"`
	FromTurn int    `json:"from_turn,omitempty"`
	Role     string `json:"role,omitempty"`    // message
	Content  string `json:"content,omitempty"` // message (its text), summary, question (the person's words)
	// Elements are the window renderings that follow a message's text.
	Elements []element `json:"elements,omitempty"`
	// Images are the pictures attached to a message, up to a cap
	// (images.go).
	Images []imagefile.Image `json:"images,omitempty"`
	// History is the whole history after a rewrite (a rebase).
	History []entry               `json:"history,omitempty"`
	Turn    int                   `json:"turn,omitempty"` // message (assistant), turn (its number)
	Call    *CallRecord           `json:"call,omitempty"`
	Usage   *Usage                `json:"usage,omitempty"`
	Windows []windows.WindowState `json:"windows,omitempty"`
	// ID and Event: one of the session's typed events as its one wire
	// encoding gave it (event records, eventlog.go).
	ID    int64           `json:"id,omitempty"`
	Event json.RawMessage `json:"event,omitempty"`
}

// CallRecord is one tool call and its outcome.
type CallRecord struct {
	ID       string `json:"id"`
	WindowID string `json:"window_id"`
	ActionID string `json:"action_id"`
	Status   string `json:"status"`
	// Output is what the action produced for the person (a command's
	// output as cut for the model, an edit's diff), bounded (turns.go).
	Output string `json:"output,omitempty"`
}

// recordLog writes the conversation's records to a session's transcript
// (package transcript): each stamped with its time, its windows written
// once (transcript_refs.go) and its pictures capped (images.go). Its
// memory of what was written is the file's: a conversation resumed takes
// it from the replay (Session.rendered, Session.Windows).
type recordLog struct {
	mu   sync.Mutex
	file *transcript.File
	// imageBytes counts the picture bytes written, against transcriptImageCap.
	imageBytes int
	// rendered and windows are what was last written of each window's
	// text and of the windows list (transcript_refs.go); windowsLost: the
	// last windows record may not have been written.
	rendered    rendered
	windows     []windows.WindowState
	windowsLost bool
}

// newRecordLog writes to file, which holds what s was read from (an empty
// Session for a new file).
func newRecordLog(file *transcript.File, s Session) *recordLog {
	l := &recordLog{file: file, rendered: rendered{}, windows: slices.Clone(s.Windows)}
	for id, list := range s.rendered {
		l.rendered[id] = slices.Clone(list)
	}
	return l
}

// write appends one record as one line.
func (l *recordLog) write(r Record) error {
	if l == nil || l.file == nil {
		return nil
	}
	r.Time = transcript.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if r.Type == "reset" && !l.file.Created() {
		return nil // nothing to forget yet: still no file
	}
	if !l.compactLocked(&r) {
		return nil
	}
	l.capImages(&r)
	if err := l.file.Write(r); err != nil {
		l.forgetLocked()
		return err
	}
	return nil
}

// QuestionRecord is a turn's question as the person typed it, when aci
// added to it for the model: its words are stored once, here.
func QuestionRecord(typed string) Record {
	return Record{Type: "question", Time: transcript.Now(), Content: typed}
}

// Session is what a transcript restores: the conversation for the model,
// and the session's events, from which every front end shows its turns
// (session.TurnsOf).
type Session struct {
	Path    string
	ID      string // the file's name without .jsonl
	History []entry
	Summary string
	Turn    int
	Windows []windows.WindowState
	// Started is when the session began; Questions counts its questions
	// since the last /reset (the history's, for the model).
	Started   time.Time
	Questions int
	// Asked is, for each turn since the last /reset, its question: what
	// its turn event, stored without it, is given back (session).
	Asked []Asked
	// LastRequest is when its last model request was answered (zero if
	// unknown): whether the provider may still hold its prompt cached.
	LastRequest time.Time
	// Parent and FromTurn are set on a branch (see ForkTranscript).
	Parent   string
	FromTurn int
	Model    string
	// Damaged counts the lines that were not a whole record and were
	// dropped: a last line cut by a crash (see dropCutTail).
	Damaged int
	// Events are the session's typed events as they were sent, in order
	// (eventlog.go); LastEventID is the highest id given, reset or not.
	Events      []transcript.StoredEvent
	LastEventID int64
	// Legacy are the conversation's records of a transcript written before
	// event records (questions, replies, calls, answers, resets), for the
	// one place that makes events of them (session); nil otherwise.
	Legacy []Record
	asked  int  // questions since the last reset, matched to Asked
	logged bool // it has event records (older transcripts have none)
	// rendered is each window's last text written, for a writer going on
	// with the file (transcript_refs.go).
	rendered rendered
}

// Asked is a turn's question as its records keep it.
type Asked struct {
	// Text is what the person typed when Typed; otherwise (a transcript
	// an older aci wrote) the question message the model got.
	Text  string
	Typed bool
}

// empty sessions have nothing to resume.
func (s Session) empty() bool { return s.Questions == 0 && s.Summary == "" && len(s.History) == 0 }

// replay rebuilds a session from its records. A line that is not a record
// (a torn last line: the process died while writing it) is dropped and
// counted in Damaged.
func replay(path string) (Session, string, error) {
	// The whole file at once: its event records are kept as slices of it,
	// not copied line by line (a resume reads thousands).
	data, err := os.ReadFile(path)
	if err != nil {
		return Session{}, "", err
	}
	s := Session{Path: path, ID: strings.TrimSuffix(filepath.Base(path), ".jsonl")}
	workdir := ""
	var echo keptEcho
	var starts turnStarts
	s.rendered = rendered{}
	if n := bytes.Count(data, []byte(`{"type":"event",`)); n > 0 {
		s.Events = make([]transcript.StoredEvent, 0, n)
	}
	var r Record // one for every line: a Record per line escaped to the heap
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		r = Record{}
		if id, ev, ok := transcript.ParseEvent(line); ok {
			r = Record{Type: "event", ID: id, Event: ev}
			if n := len(s.Events); s.addEvent(r) && starts.event(s.Events[n].Type, r.Event) {
				s.Asked = append(s.Asked, Asked{Typed: true})
			}
			continue
		}
		if json.Unmarshal(line, &r) != nil {
			if len(bytes.TrimSpace(line)) > 0 {
				s.Damaged++
			}
			continue
		}
		switch r.Type {
		case "meta":
			workdir = r.Workdir
			s.Started, _ = time.Parse(time.RFC3339, r.Time)
			s.Parent, s.FromTurn, s.Model = r.Parent, r.FromTurn, r.Model
		case "turn":
			// One this aci wrote has the turn's number; the person's words
			// are its question record, or else its question message.
			starts.record(r)
			s.Asked = append(s.Asked, Asked{Typed: r.Turn > 0})
			s.legacy(r)
		case "question":
			if n := len(s.Asked); n > 0 {
				s.Asked[n-1].Text = r.Content
			}
		case "answer":
			s.legacy(r)
		case "message":
			if !s.rendered.resolve(r.Elements) {
				s.Damaged++
			}
			s.History = append(s.History, entry{Role: r.Role, Text: r.Content, Elements: r.Elements, Images: r.Images})
			s.Turn = max(s.Turn, r.Turn)
			if echo.of(r) {
				continue
			}
			s.question(r, starts.marked)
			s.legacy(Record{Type: r.Type, Role: r.Role, Content: r.Content, Turn: r.Turn})
		case "usage":
			s.LastRequest, _ = time.Parse(time.RFC3339, r.Time)
		case "call":
			s.legacy(r)
		case "rewrite":
			if !s.rendered.resolveHistory(r.History) {
				s.Damaged++
			}
			s.History = r.History
		case "summary":
			s.Summary, s.History = r.Content, nil
			echo.start()
		case "reset":
			// A turn count is of the conversation since the last /reset
			// (what --sessions, --resume, the REPL and the page show).
			s.Summary, s.History, s.Windows, s.Asked, s.asked, s.Questions = "", nil, nil, nil, 0, 0
			starts.reset()
			s.legacy(r)
		case "windows":
			s.Windows = r.Windows
		case "event":
			if n := len(s.Events); s.addEvent(r) && starts.event(s.Events[n].Type, r.Event) {
				s.Asked = append(s.Asked, Asked{Typed: true})
			}
		}
	}
	if workdir == "" {
		return Session{}, "", fmt.Errorf("%s has no meta record", path)
	}
	if s.logged {
		s.Legacy = nil
	}
	return s, workdir, nil
}

// question counts a message that is the person's question: one its turn
// record names (a nudge is not one) or, in a transcript without turn
// records, every one.
func (s *Session) question(r Record, marked bool) {
	if r.Role != "user" || !IsQuestion(r.Role, r.Content) {
		return
	}
	if !marked {
		s.Asked = append(s.Asked, Asked{Text: r.Content})
	} else if s.asked >= len(s.Asked) {
		return
	} else if s.Asked[s.asked].Text == "" {
		s.Asked[s.asked].Text = r.Content
	}
	s.Questions++
	s.asked++
}

// legacy keeps r for an old transcript's events, until the transcript
// shows it has event records of its own.
func (s *Session) legacy(r Record) {
	if !s.logged {
		r.History, r.Elements, r.Images, r.Windows = nil, nil, nil, nil
		s.Legacy = append(s.Legacy, r)
	}
}

// keptEcho tells apart the messages a compression kept, written again
// after its summary record, from new ones: the person saw them once.
type keptEcho struct {
	on         bool
	last       map[string]string // role → content of the last message shown
	afterStart int
}

func (k *keptEcho) start() { k.on, k.afterStart = true, 0 }

// of reports whether r repeats a message written before the summary, and
// remembers r otherwise.
func (k *keptEcho) of(r Record) bool {
	if k.last == nil {
		k.last = map[string]string{}
	}
	if k.on {
		k.afterStart++
		// The kept messages are the question, or the note, the last reply and its results.
		if k.afterStart <= 3 && (k.last[r.Role] == r.Content || r.Content == compressedNote) {
			return true
		}
		k.on = false
	}
	k.last[r.Role] = r.Content
	return false
}

// Resume reopens the session's file and bash windows where their files and
// folders still exist, then restores its history into the agent. It
// returns the ids reopened.
func (a *Agent) Resume(ctx context.Context, s Session) []string {
	reopened := a.wm.Restore(ctx, s.Windows)
	a.Restore(s)
	return reopened
}
