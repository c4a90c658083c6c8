package session

import (
	"fmt"
	"strings"
	"time"
)

// windowView is what a window showed when last looked at.
type windowView struct {
	App, Title, Content, Progress string
	order                         int
}

// WindowInfo is a window as the wire shows it.
type WindowInfo struct {
	ID      string `json:"id"`
	App     string `json:"app"`
	Title   string `json:"title"`
	Content string `json:"content,omitempty"`
}

// maxEventContent bounds a window event's content: a bash window holds
// every run the model was not yet sent (a batch of thirty commands, each
// cut at the output limit), and the session keeps its last thousand
// events. The tail is what changed; GET .../windows/{id} has all of it.
const maxEventContent = 64 << 10

// eventContent is content as a window event carries it: its last
// maxEventContent bytes, from a line's start, after a line saying so.
func eventContent(content string) string {
	if len(content) <= maxEventContent {
		return content
	}
	cut := len(content) - maxEventContent
	if i := strings.IndexByte(content[cut:], '\n'); i >= 0 && i < 4096 {
		cut += i + 1
	}
	return fmt.Sprintf("[… %d bytes above: the window's whole content is at GET /api/sessions/{id}/windows/{window_id}]\n", cut) + content[cut:]
}

// snapshotWindows looks at every window and, with publish, sends a window
// event for each that changed and each that closed. Its caller runs the
// turn, or holds s.run: windows are read only where nothing changes them.
func (s *Session) snapshotWindows(publish bool) {
	redact := s.f.cfg.Agent.Redact
	seen := map[string]bool{}
	var events []Window
	for i, w := range s.wm.Windows() {
		id := w.ID()
		seen[id] = true
		view := w.View()
		v := windowView{App: w.App(), Title: redact(w.Title()), Content: PersonText(redact(view.Content)), Progress: view.Progress, order: i}
		s.mu.Lock()
		old, had := s.views[id]
		s.views[id] = v
		s.mu.Unlock()
		if !had || old.Content != v.Content || old.Title != v.Title || old.Progress != v.Progress {
			events = append(events, Window{ID: id, App: v.App, Title: v.Title, Content: eventContent(v.Content), Progress: v.Progress})
		}
	}
	s.mu.Lock()
	for id, v := range s.views {
		if !seen[id] {
			delete(s.views, id)
			events = append(events, Window{ID: id, App: v.App, Title: v.Title, Closed: true})
		}
	}
	s.mu.Unlock()
	if publish {
		for _, ev := range events {
			s.publish(ev)
		}
	}
}

// refresh looks at the windows again when no turn runs (background tasks
// change them between turns) and sends what changed.
func (s *Session) refresh() {
	if !s.run.TryLock() {
		return // the turn sends window events itself
	}
	defer s.run.Unlock()
	s.snapshotWindows(true)
}

// WatchWindows refreshes the windows every interval until the session
// closes, so a background task's progress reaches clients between turns.
func (s *Session) WatchWindows(interval time.Duration) {
	s.mu.Lock()
	if s.stopTicker != nil || s.closed {
		s.mu.Unlock()
		return
	}
	stop := make(chan struct{})
	s.stopTicker = stop
	s.mu.Unlock()
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				s.refresh()
			}
		}
	}()
}

// Windows lists the open windows, launcher first, as last looked at.
func (s *Session) WindowList() []WindowInfo {
	s.refresh()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]WindowInfo, len(s.views))
	for id, v := range s.views {
		out[v.order] = WindowInfo{ID: id, App: v.App, Title: v.Title}
	}
	return compact(out)
}

func compact(in []WindowInfo) []WindowInfo {
	out := in[:0]
	for _, w := range in {
		if w.ID != "" {
			out = append(out, w)
		}
	}
	return out
}

// Window is what window id shows now (between turns) or showed after the
// last batch (while a turn runs).
func (s *Session) Window(id string) (WindowInfo, bool) {
	s.refresh()
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.views[id]
	if !ok {
		return WindowInfo{}, false
	}
	return WindowInfo{ID: id, App: v.App, Title: v.Title, Content: v.Content}, true
}

// Info is a session as GET /api/sessions/{id} shows it.
type Info struct {
	ID        string           `json:"id"`
	Model     string           `json:"model"`
	Cwd       string           `json:"cwd"`
	State     State            `json:"state"`
	Parent    string           `json:"parent"`
	FromTurn  int              `json:"from_turn"`
	Turns     []TurnInfo       `json:"turns"`
	Windows   []WindowInfo     `json:"windows"`
	Usage     map[string]int64 `json:"usage"`
	Mode      string           `json:"mode"`       // the permission mode
	Effort    string           `json:"effort"`     // the reasoning effort, "" the model's default
	PlanReady bool             `json:"plan_ready"` // the last turn ended with a plan to accept
	Cost      *CostInfo        `json:"cost"`       // the session's money (money.go)
}

// Info describes the session now.
func (s *Session) Info() Info {
	ws, mode, model := s.WindowList(), s.Mode(), s.currentModel()
	effort, _ := s.Effort("")
	s.mu.Lock()
	defer s.mu.Unlock()
	turns := s.turnLog.list()
	return Info{
		ID: s.id, Model: model, Cwd: s.workdir, State: s.state, Parent: s.parent, FromTurn: s.fromTurn,
		Turns: turns, Windows: ws, Mode: string(mode), Effort: effort.Level, PlanReady: s.planReady && s.mode.Get() == "plan",
		Usage: Usage{s.usage.PromptTokens, s.usage.CompletionTokens, s.usage.CachedTokens}.asInfo(s.steps), Cost: costInfo(s.money.total),
	}
}

// asInfo is usage as Info shows it.
func (u Usage) asInfo(steps int) map[string]int64 {
	return map[string]int64{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens,
		"cached_tokens": u.CachedTokens, "steps": int64(steps)}
}
