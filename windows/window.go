// Package windows holds aci's live windows: the manager that opens, closes
// and dispatches to them, the launcher, and the apps (file, bash, web_fetch).
// A window shows live content and offers actions whose parameters are
// validated before any handler runs. Windows know nothing of the agent loop.
package windows

import (
	"context"
	"fmt"
)

// Result statuses, as the model reads them.
const (
	StatusOK      = "ok"
	StatusError   = "error"
	StatusDenied  = "denied"
	StatusStarted = "started"
)

// Result is what an action did.
type Result struct {
	Status string
	Text   string
}

// OK is a successful result.
func OK(format string, args ...any) Result {
	return Result{Status: StatusOK, Text: fmt.Sprintf(format, args...)}
}

// Fail is an error result the model can read and correct.
func Fail(format string, args ...any) Result {
	return Result{Status: StatusError, Text: fmt.Sprintf(format, args...)}
}

// Mode says whether an action finishes before its result (sync) or goes on
// in the background (async).
type Mode string

const (
	Sync  Mode = "sync"
	Async Mode = "async"
)

// Action is one thing a window can do.
type Action struct {
	ID     string
	Desc   string
	Params []Param
	Mode   Mode
}

// Window is one open window.
type Window interface {
	ID() string
	App() string
	Title() string
	// Content renders the live state; it is called for every request.
	Content() string
	Actions() []Action
	// Do runs a validated action other than close.
	Do(ctx context.Context, action string, args Args) Result
	// Close releases what the window holds (running tasks end).
	Close()
}

// App opens windows of one kind from the launcher.
type App struct {
	Name   string
	Desc   string // one line for the launcher
	Target string // what open's target means for this app
	// Open makes a window with the given id; it may return a message for
	// the model after "opened ID".
	Open func(ctx context.Context, id, target string) (Window, string, error)
}
