// Package windows holds aci's live windows: the manager that opens, closes
// and dispatches to them, the launcher, and the apps (file, bash, web_fetch).
// A window shows live content and offers actions whose parameters are
// validated before any handler runs. Windows know nothing of the agent loop:
// rendering is a pure read, and a window learns what the model saw only when
// the loop tells it (Observer).
package windows

import (
	"context"
	"fmt"

	"github.com/aci-dev/aci/protocol"
)

// Result is what an action did: a status and text for the model, and what
// the person may want to see besides.
type Result struct {
	Status string // one of protocol's statuses
	Text   string
	// Diff is a unified diff of the file change the action made, for the
	// person; the model sees the window instead.
	Diff string
	// Output is the output of the command the action ran, for the person.
	Output string
	// Failed marks a command that exited non-zero, timed out or was
	// interrupted, though the action itself did what it was asked.
	Failed bool
	// ExitCode is the exit status of the command the action ran (nil when
	// it ran none, or one still running): people and programs tell a
	// failed command from one that succeeded by it.
	ExitCode *int
	// File is the file the action changed, whole, for front ends that
	// show a change side by side (an editor's diff view).
	File *FileChange
	// Opened is the id of the window the action opened, or found already
	// open (the launcher's open, a search result's): front ends follow
	// the window by it, never by the text.
	Opened string
}

// FileChange is a file's text before and after an action changed it.
type FileChange struct {
	Path   string // absolute
	Before string // "" for a file the action created
	After  string
	// Created says the file did not exist before.
	Created bool
}

// OK is a successful result.
func OK(format string, args ...any) Result {
	return Result{Status: protocol.StatusOK, Text: fmt.Sprintf(format, args...)}
}

// Fail is an error result the model can read and correct.
func Fail(format string, args ...any) Result {
	return Result{Status: protocol.StatusError, Text: fmt.Sprintf(format, args...)}
}

// Mode says whether an action finishes before its result (sync) or goes on
// in the background (async).
type Mode string

const (
	Sync  Mode = "sync"
	Async Mode = "async"
)

// Action is one thing a window can do. The manager validates the arguments
// against Params before it calls Run.
type Action struct {
	ID     string
	Desc   string
	Params []Param
	Mode   Mode
	// Run does the action. It is nil for close, which the manager handles.
	Run func(ctx context.Context, args Args) Result
}

// closeAction is the close every closable window lists.
func closeAction(desc string) Action { return Action{ID: "close", Desc: desc, Mode: Sync} }

// View is a window's state as the model would read it.
type View struct {
	Content string // the whole rendering of the content
	// State is what the window needs to tell two views apart and render
	// only their difference (see Incremental); opaque to everyone else.
	State any
	// Progress is how the work of a window working in the background
	// goes: running, answered or failed (an agent window); "" for others.
	Progress string
}

// Window is one open window.
type Window interface {
	ID() string
	App() string
	Title() string
	// View renders the live state. It is a pure read: rendering twice
	// gives the same view and changes nothing.
	View() View
	Actions() []Action
	// Close releases what the window holds (running tasks end).
	Close()
}

// Incremental windows can render only what changed between two of their
// views. ok is false when the change is better shown whole; an empty text
// with ok means nothing the model needs changed.
type Incremental interface {
	Changes(prev, cur View) (text string, ok bool)
}

// Observer windows are told which view the model was sent, once a request
// carrying it has gone out (a file window then knows what the model saw).
type Observer interface {
	Seen(View)
}

// App opens windows of one kind from the launcher.
type App struct {
	Name   string
	Desc   string // one line for the launcher
	Target string // what open's target means for this app
	// Items are listed by the launcher under the app, one line each (the
	// skills, by name and description).
	Items []string
	// Open makes a window with the given id; it may return a message for
	// the model after "opened ID".
	Open func(ctx context.Context, id, target string) (Window, string, error)
	// Resumable, when set, says whether a window of this app on target can
	// be reopened silently in a resumed session (its file or folder is
	// still there). Apps without it (web pages, MCP servers) stay closed.
	Resumable func(target string) bool
	// Started marks an app whose windows work in the background once
	// opened (agents): open's result is started, not ok.
	Started bool
}
