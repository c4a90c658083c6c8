package session

import (
	"encoding/json"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/aci-dev/aci/tools/output"
)

// liveEvery is how often a running command's output goes out: pieces are
// coalesced to about ten a second per command.
const liveEvery = 100 * time.Millisecond

// liveTail is how much of a running command's output its window shows
// while it runs.
const liveTail = 4 << 10

// liveStreams are the outputs of the commands running now. A command's
// reader writes into a stream's LiveText without ever waiting; one
// goroutine, running while any stream is open, takes what came every
// liveEvery and publishes it, so a slow front end never slows a command.
type liveStreams struct {
	mu      sync.Mutex
	open    []*liveStream // in the order they started
	ticking bool
}

type liveStream struct {
	text                              *output.LiveText
	callID, taskID, windowID, command string

	mu    sync.Mutex // held while taking and publishing: pieces never reorder
	ended bool
	tail  string // the last liveTail bytes of its text
	drawn string // the tail the last window event showed
}

// liveOutput is the windows' Env.Live: a writer for the output of a
// command starting in window windowID (taskID: a background task's; ""
// for the call running now).
func (s *Session) liveOutput(windowID, taskID string) io.Writer {
	ls := &liveStream{windowID: windowID, taskID: taskID, text: output.NewLiveText(s.redactStream())}
	if taskID == "" {
		s.mu.Lock()
		call := s.call
		s.mu.Unlock()
		if call == nil {
			return nil // not a call's: nobody to tell
		}
		ls.callID = call.id
		if p, ok := call.params.(map[string]json.RawMessage); ok {
			json.Unmarshal(p["command"], &ls.command)
		}
	}
	s.live.mu.Lock()
	s.live.open = append(s.live.open, ls)
	start := !s.live.ticking
	s.live.ticking = true
	s.live.mu.Unlock()
	if start {
		go s.tickLive()
	}
	return ls.text
}

// tickLive publishes the open streams' output every liveEvery until none
// is open.
func (s *Session) tickLive() {
	t := time.NewTicker(liveEvery)
	defer t.Stop()
	for range t.C {
		s.mu.Lock()
		closed := s.closed
		s.mu.Unlock()
		s.live.mu.Lock()
		if closed {
			s.live.open = nil // the session's commands end with it: nobody to tell
		}
		open := append([]*liveStream(nil), s.live.open...)
		if len(open) == 0 {
			s.live.ticking = false
			s.live.mu.Unlock()
			return
		}
		s.live.mu.Unlock()
		for _, ls := range open {
			// A task's output ends with the task; a call's when its
			// result is published (endCall).
			s.flushLive(ls, ls.taskID != "" && ls.text.Closed())
		}
	}
}

// flushLive publishes what ls has, and with end the rest of it.
func (s *Session) flushLive(ls *liveStream, end bool) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.ended {
		return
	}
	text := ls.text.Take(end)
	if text != "" {
		s.publish(Output{CallID: ls.callID, TaskID: ls.taskID, WindowID: ls.windowID, Text: text})
		ls.tail += text
		if len(ls.tail) > liveTail {
			ls.tail = ls.tail[len(ls.tail)-liveTail:]
		}
	}
	if end {
		ls.ended = true
		s.live.remove(ls)
		return
	}
	switch {
	case ls.tail == ls.drawn:
	case ls.callID != "":
		s.drawRunning(ls)
	case text != "":
		s.drawTask(ls)
	}
}

// drawTask sends the window a background task writes to, to those
// watching. A bash window's view is safe to read while its actions run
// (it locks what it reads); its tasks' part is what changes.
func (s *Session) drawTask(ls *liveStream) {
	s.mu.Lock()
	watched := len(s.subs) > 0
	v, ok := s.views[ls.windowID]
	s.mu.Unlock()
	if !watched || !ok || v.App != "bash" {
		return
	}
	ls.drawn = ls.tail
	for _, w := range s.wm.Windows() {
		if w.ID() == ls.windowID {
			redact := s.f.cfg.Agent.Redact
			s.publish(Window{ID: w.ID(), App: w.App(), Title: redact(w.Title()), Content: eventContent(PersonText(redact(w.View().Content))), Running: true})
			return
		}
	}
}

// drawRunning sends the window a command runs in, with its output so far,
// to those watching.
func (s *Session) drawRunning(ls *liveStream) {
	s.mu.Lock()
	watched := len(s.subs) > 0
	v, ok := s.views[ls.windowID]
	s.mu.Unlock()
	if !watched || !ok {
		return
	}
	ls.drawn = ls.tail
	content := strings.TrimRight(v.Content, "\n")
	if content != "" {
		content += "\n\n"
	}
	tail := ls.tail
	if i := strings.IndexByte(tail, '\n'); len(ls.tail) == liveTail && i >= 0 {
		tail = "…\n" + tail[i+1:] // start on a whole line
	}
	content += "$ " + ls.command + "\n" + tail
	if !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	content += "[running]"
	s.publish(Window{ID: ls.windowID, App: v.App, Title: v.Title, Content: eventContent(content), Running: true})
}

func (l *liveStreams) remove(ls *liveStream) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, o := range l.open {
		if o == ls {
			l.open = append(l.open[:i], l.open[i+1:]...)
			return
		}
	}
}

// endCall publishes the rest of call id's output: its command has ended
// and its result comes next.
func (l *liveStreams) endCall(s *Session, id string) {
	l.mu.Lock()
	var mine []*liveStream
	for _, ls := range l.open {
		if ls.callID == id {
			mine = append(mine, ls)
		}
	}
	l.mu.Unlock()
	for _, ls := range mine {
		s.flushLive(ls, true)
	}
}
