package windows

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/aci-dev/aci/guard"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/shell"
)

// PermMode is a permission mode (docs/protocol.md §10): how much is asked.
type PermMode string

// The modes.
const (
	// ModeAsk asks before every file change and every command not known
	// to be read-only.
	ModeAsk PermMode = "ask"
	// ModeDefault asks before dangerous actions only.
	ModeDefault PermMode = "default"
	// ModePlan changes nothing: file writes are refused, commands run with
	// the workspace read-only.
	ModePlan PermMode = "plan"
	// ModeYes asks nothing (--yes).
	ModeYes PermMode = "yes"
)

// Modes lists the modes in the order they are shown.
var Modes = []PermMode{ModeAsk, ModeDefault, ModePlan, ModeYes}

// claudeNames are the modes by Claude Code's names. Its "default" asks
// before every edit (aci's ask), but "default" typed to aci stays aci's
// own default (docs/protocol.md §10): only the names that cannot be mistaken,
// acceptEdits and bypassPermissions, are read as aliases.
var claudeNames = map[PermMode]string{ModeAsk: "default", ModeDefault: "acceptEdits", ModePlan: "plan", ModeYes: "bypassPermissions"}

// ClaudeName is m as Claude Code names it (hooks' permission_mode).
func (m PermMode) ClaudeName() string { return claudeNames[m] }

// Shown is m for a person, with Claude Code's name beside it where that
// differs: "default (acceptEdits)", "ask (Claude Code's default)".
func (m PermMode) Shown() string {
	switch c := claudeNames[m]; {
	case c == "" || c == string(m):
		return string(m)
	case c == "default":
		return string(m) + " (Claude Code's default)"
	default:
		return string(m) + " (" + c + ")"
	}
}

// ModeNames is "ask, default, plan, yes", for usage errors, with Claude
// Code's names beside aci's.
func ModeNames() string {
	names := make([]string, len(Modes))
	for i, m := range Modes {
		names[i] = m.Shown()
	}
	return strings.Join(names, ", ")
}

// ParseMode reads a mode's name: aci's, or Claude Code's acceptEdits and
// bypassPermissions.
func ParseMode(s string) (PermMode, error) {
	s = strings.TrimSpace(s)
	for _, m := range Modes {
		if strings.EqualFold(s, string(m)) {
			return m, nil
		}
	}
	for _, m := range Modes {
		if c := claudeNames[m]; c != "default" && strings.EqualFold(s, c) {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown permission mode %q (modes: %s)", s, ModeNames())
}

// Next is the mode Shift-Tab moves to: default → ask → plan → default
// (yes only by flag or /mode yes; from yes it goes back to default).
func (m PermMode) Next() PermMode {
	switch m {
	case ModeDefault:
		return ModeAsk
	case ModeAsk:
		return ModePlan
	}
	return ModeDefault
}

// Describe is the mode in a few words, for the person and the model.
func (m PermMode) Describe() string {
	switch m {
	case ModeAsk:
		return "every file change and every command that may change something is asked"
	case ModePlan:
		return "nothing can change: file writes are refused and commands run with the workspace read-only"
	case ModeYes:
		return "nothing is asked"
	}
	return "only dangerous actions are asked"
}

// ModeSwitch holds a session's mode; the windows read it before each
// action, front ends set it. The zero value is ModeDefault.
type ModeSwitch struct {
	mu       sync.Mutex
	mode     PermMode
	limit    *ModeSwitch // a child's mode is never freer than this (mode_limit.go)
	onChange []func(PermMode)
}

// NewModeSwitch starts in m ("" is default).
func NewModeSwitch(m PermMode) *ModeSwitch { return &ModeSwitch{mode: m} }

// Get is the current mode.
func (s *ModeSwitch) Get() PermMode {
	if s == nil {
		return ModeDefault
	}
	s.mu.Lock()
	m, limit := s.mode, s.limit
	s.mu.Unlock()
	if m == "" {
		m = ModeDefault
	}
	if limit != nil {
		m = Narrower(m, limit.Get())
	}
	return m
}

// Set changes the mode and tells those watching; it reports whether it
// changed.
func (s *ModeSwitch) Set(m PermMode) bool {
	s.mu.Lock()
	old := s.mode
	if old == "" {
		old = ModeDefault
	}
	s.mode = m
	watchers := append([]func(PermMode){}, s.onChange...)
	s.mu.Unlock()
	if old == m {
		return false
	}
	for _, f := range watchers {
		f(m)
	}
	return true
}

// OnChange calls f after each change.
func (s *ModeSwitch) OnChange(f func(PermMode)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onChange = append(s.onChange, f)
}

// planRefusal is the result of an action plan mode does not allow.
func planRefusal(what string) *Result {
	return &Result{Status: protocol.StatusDenied, Text: "refused in plan mode: " + what +
		" (nothing may change in this mode: investigate by reading, then say what you would change)"}
}

// commandGate applies the mode to a command the guard judged v: in plan
// mode it returns the options the command runs with (the workspace
// read-only) or its refusal; in ask mode a command not known to be
// read-only becomes one to ask about. Other modes change nothing (ok
// false: the caller goes on as usual).
func (w *bashWindow) commandGate(ctx context.Context, v *guard.Verdict, command string, uncontained bool) (opts []shell.RunOption, refused *Result, ok bool) {
	if r := w.env.denied("command", command); r != nil {
		return nil, r, true
	}
	if !v.Dangerous && hookDecision(ctx) == "ask" {
		*v = guard.Verdict{Dangerous: true, Reason: "a PreToolUse hook asks", Machine: v.Machine}
	}
	switch w.env.Mode.Get() {
	case ModeAsk:
		if !v.Dangerous && !guard.ReadOnly(command) {
			*v = guard.Verdict{Dangerous: true, Reason: "ask mode: the command may change something", Machine: v.Machine}
		}
	case ModePlan:
		switch {
		case v.Dangerous:
			return nil, planRefusal(command + " (" + v.Reason + ")"), true
		case uncontained:
			return nil, planRefusal("running a command outside the sandbox"), true
		case w.shell.Contained() && w.shell.Sandbox().ReadOnlyHolds():
			return []shell.RunOption{shell.Granted(sandbox.Grant{Machine: v.Machine, ReadOnlyWorkspace: true})}, nil, true
		case guard.ReadOnly(command):
			return nil, nil, true
		}
		return nil, planRefusal(command + " (the sandbox here cannot make the workspace read-only, and this command is not known to be read-only)"), true
	}
	return nil, nil, false
}

// AskModeFileReason is the reason of a file change asked only because the
// mode is ask: a front end may offer to accept edits for the session
// (switch to default, Claude Code's acceptEdits) when it is the reason.
const AskModeFileReason = "ask mode: every file change is asked"

// fileGate applies the mode to a file write: refused in plan mode, asked
// in ask mode.
func (w *fileWindow) fileGate(ctx context.Context, v *guard.Verdict) *Result {
	if !v.Dangerous && hookDecision(ctx) == "ask" {
		*v = guard.Verdict{Dangerous: true, Reason: "a PreToolUse hook asks", Part: w.title}
	}
	switch w.env.Mode.Get() {
	case ModePlan:
		return planRefusal("write " + w.title)
	case ModeAsk:
		if !v.Dangerous {
			*v = guard.Verdict{Dangerous: true, Reason: AskModeFileReason, Part: w.title}
		}
	}
	return nil
}
