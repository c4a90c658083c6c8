package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/aci-dev/aci/session"
)

// OutputFormat is what pipe mode writes on stdout (docs/protocol.md §6).
type OutputFormat string

const (
	FormatText       OutputFormat = "text"        // the answer alone
	FormatJSON       OutputFormat = "json"        // one result object at the end
	FormatStreamJSON OutputFormat = "stream-json" // one event object a line, the result last
)

// ParseOutputFormat reads --output-format.
func ParseOutputFormat(s string) (OutputFormat, error) {
	switch f := OutputFormat(s); f {
	case FormatText, FormatJSON, FormatStreamJSON:
		return f, nil
	}
	return "", fmt.Errorf("--output-format must be text, json or stream-json, got %q", s)
}

// Headless writes a pipe-mode run as JSON on stdout: the session's events
// in their one wire encoding (session.OnWire says which), after an init
// line in stream-json. Event may be called from any goroutine.
type Headless struct {
	wire session.Wire

	mu     sync.Mutex
	enc    *json.Encoder // the init line
	out    io.Writer
	err    error           // the first write error; later writes are skipped
	result *session.Result // the run's, once it ended
}

// NewHeadless writes format (json or stream-json) on stdout.
func NewHeadless(format OutputFormat, stdout io.Writer) *Headless {
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false) // a shell command's "a && b" stays readable
	wire := session.WireJSON
	if format == FormatStreamJSON {
		wire = session.WireStreamJSON
	}
	return &Headless{wire: wire, enc: enc, out: stdout}
}

// Init writes the first line, in stream-json: the session, model and cwd.
func (h *Headless) Init(sessionID, model, cwd string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.wire != session.WireStreamJSON {
		return
	}
	h.encodeLocked(struct {
		Type      string `json:"type"`
		SessionID string `json:"session_id"`
		Model     string `json:"model"`
		Cwd       string `json:"cwd"`
	}{"init", sessionID, model, cwd})
}

// Event takes one of the session's events: give it as Options.Events.
func (h *Headless) Event(ev session.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.result != nil {
		return // the result is the last line (a background task may still print)
	}
	if r, ok := ev.(session.Result); ok {
		h.result = &r
	}
	if session.OnWire(ev, h.wire) {
		h.writeLocked(ev)
	}
}

// writeLocked writes one event as its one encoding (session.Encode), a
// line.
func (h *Headless) writeLocked(ev session.Event) {
	if h.err != nil {
		return
	}
	data, err := session.Encode(ev)
	if err != nil {
		h.err = err
		return
	}
	_, h.err = h.out.Write(append(data, '\n'))
}

func (h *Headless) encodeLocked(v any) {
	if h.err == nil {
		h.err = h.enc.Encode(v)
	}
}

// finish writes res, how Ask said the run ended, unless the session's
// result event was written (a run that could not begin has none), and
// returns the first write error.
func (h *Headless) finish(res session.Result) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.result == nil {
		h.result = &res
		h.writeLocked(res)
	}
	return h.err
}

// RunHeadless answers one question like RunPipe, but stdout carries only
// h's JSON; humans still read progress and errors on stderr. It returns
// the exit code, the same as RunPipe's.
func RunHeadless(ctx context.Context, a Asker, question string, h *Headless, stderr io.Writer) int {
	res, err := a.Ask(ctx, question)
	werr := h.finish(res)
	code := exitCode(res)
	if errors.Is(err, session.ErrUsage) { // a command file that cannot run
		code = ExitUsage
	}
	if res.Error != "" {
		fmt.Fprintln(stderr, "aci:", res.Error)
	}
	if werr != nil {
		fmt.Fprintln(stderr, "aci: write the result:", werr)
		if code == ExitOK {
			code = ExitFailed
		}
	}
	return code
}
