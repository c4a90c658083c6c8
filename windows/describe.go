package windows

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Description is a call as a person reads it: what it does, in words,
// with no internal ids or markup.
type Description struct {
	Title string // "edit calc.py", "run go test ./..."
	// Kind is what the call does, one of ACP's tool kinds: read, edit,
	// delete, move, search, execute, think, fetch, other.
	Kind string
	// Paths are the files the call touches, absolute.
	Paths []string
}

// Describer windows describe their own calls for people (every front end
// shows the same words). params are the call's as the model wrote them,
// not yet validated.
type Describer interface {
	Describe(actionID string, params map[string]json.RawMessage) Description
}

// Describe is a call described for a person: by its window when the
// window describes its calls, else by its action and the window's title.
func (m *Manager) Describe(windowID, actionID string, params map[string]json.RawMessage) Description {
	w := m.find(windowID)
	if w == nil {
		return Description{Title: actionID, Kind: "other"}
	}
	var d Description
	if dw, ok := w.(Describer); ok {
		d = dw.Describe(actionID, params)
	}
	if strings.TrimSpace(d.Title) == "" {
		d.Title = strings.TrimSpace(actionID + " " + w.Title())
	}
	if d.Kind == "" {
		d.Kind = "other"
	}
	return d
}

// paramString is a call's string parameter, "" when absent or not one.
func paramString(p map[string]json.RawMessage, k string) string {
	var s string
	json.Unmarshal(p[k], &s)
	return s
}

// paramInt is a call's whole-number parameter, 0 when absent.
func paramInt(p map[string]json.RawMessage, k string) int {
	var n int
	json.Unmarshal(p[k], &n)
	return n
}

// firstLine is s up to its first line break, marked when cut.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// absPath is target as a file window would open it, made absolute.
func absPath(workdir, target string) string {
	p := target
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(workdir, p)
	}
	return filepath.Clean(p)
}

func (l *launcher) Describe(actionID string, p map[string]json.RawMessage) Description {
	app, target := paramString(p, "app"), paramString(p, "target")
	switch app {
	case "file":
		return Description{Title: "open " + target, Kind: "read", Paths: []string{absPath(l.m.env.Workdir, target)}}
	case "bash":
		if target != "" {
			return Description{Title: "open a shell in " + target, Kind: "execute"}
		}
		return Description{Title: "open a shell", Kind: "execute"}
	case "web_fetch":
		return Description{Title: "fetch " + target, Kind: "fetch"}
	case "search":
		if target != "" {
			return Description{Title: "search the web for " + target, Kind: "fetch"}
		}
		return Description{Title: "open a web search", Kind: "fetch"}
	case "image":
		return Description{Title: "look at " + target, Kind: "read", Paths: []string{absPath(l.m.env.Workdir, target)}}
	}
	return Description{Title: strings.TrimSpace("open " + app + " " + target), Kind: "other"}
}

func (w *fileWindow) Describe(actionID string, p map[string]json.RawMessage) Description {
	d := Description{Title: actionID + " " + w.title, Kind: "other", Paths: []string{w.path}}
	switch actionID {
	case "view":
		d.Kind = "read"
		if n := paramInt(p, "start_line"); n > 1 {
			d.Title = fmt.Sprintf("read %s from line %d", w.title, n)
		} else {
			d.Title = "read " + w.title
		}
	case "edit", "write":
		d.Kind = "edit"
	case "close":
		d.Paths = nil
	}
	return d
}

func (w *bashWindow) Describe(actionID string, p map[string]json.RawMessage) Description {
	d := Description{Kind: "execute"}
	switch actionID {
	case "run":
		d.Title = "run " + firstLine(paramString(p, "command"))
	case "start":
		d.Title = "start " + firstLine(paramString(p, "command")) + " in the background"
	case "kill":
		d.Title = "stop task " + paramString(p, "task_id")
	case "close":
		d.Title, d.Kind = "close the shell in "+w.Title(), "other"
	}
	return d
}

func (w *webWindow) Describe(actionID string, p map[string]json.RawMessage) Description {
	switch actionID {
	case "fetch":
		return Description{Title: "fetch " + paramString(p, "url"), Kind: "fetch"}
	case "page":
		return Description{Title: fmt.Sprintf("page %d of %s", paramInt(p, "n"), w.Title()), Kind: "fetch"}
	}
	return Description{}
}

func (w *mcpWindow) Describe(actionID string, p map[string]json.RawMessage) Description {
	if actionID == "close" {
		return Description{Title: "close " + w.name, Kind: "other"}
	}
	return Description{Title: w.name + ": " + actionID, Kind: "other"}
}
