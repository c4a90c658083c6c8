// Package settings reads aci's settings file, $XDG_CONFIG_HOME/aci/settings.json
// (default ~/.config/aci/settings.json), and the workspace's
// .aci/settings.json, which may only tighten what the person's file says:
// a cloned repository must not be able to loosen aci's safety.
package settings

import (
	"path/filepath"
	"slices"
)

// Settings is the whole file.
type Settings struct {
	Limits  Limits  `json:"limits"`
	Network Network `json:"network"`
	// DiffTool opens the session's changes in the person's own diff
	// program (/diff tool): a program name such as "meld", given the old
	// and new file, or a command line with {old} and {new} in it. Read
	// from the person's file only: a workspace must not name a program.
	DiffTool string `json:"diff_tool,omitempty"`
	// StatusLine is Claude Code's statusLine: a command given the session
	// as JSON on stdin, whose first line shows under the REPL's prompt.
	// The person's file only, as DiffTool.
	StatusLine *StatusLine `json:"statusLine,omitempty"`
	// WorkspaceLimits are the workspace file's limits, kept apart: they
	// may only lower the person's (or aci's default) limits, which only
	// the limits package knows (Limits.Tighten).
	WorkspaceLimits Limits `json:"-"`
}

// Limits bound each command and background task. Zero (or absent) means
// aci's default (see tools/limits).
type Limits struct {
	MemoryMB   int64 `json:"memory_mb,omitempty"`
	Processes  int64 `json:"processes,omitempty"`
	FileSizeMB int64 `json:"file_size_mb,omitempty"`
}

// Network lists hosts contained commands may reach (allow) or never
// reach (deny).
type Network struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// StatusLine is {"type": "command", "command": "...", "padding": N}.
type StatusLine struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Padding int    `json:"padding,omitempty"`
}

// WorkspacePath is the workspace's settings file.
func WorkspacePath(workspace string) string {
	return filepath.Join(workspace, ".aci", "settings.json")
}

// Of is what the sandbox and limits use of both scopes: the person's
// limits and network, the project's limits kept apart and its denies
// added (pr nil is no workspace).
func Of(p *Person, pr *Project) Settings {
	var s Settings
	if p != nil {
		s.Limits, s.Network = p.Limits, p.Network
	}
	if pr == nil {
		return s
	}
	return s.tighten(Settings{Limits: pr.Limits, Network: pr.Network})
}

// tighten applies a workspace file: its limits are kept apart (they only
// lower), a deny adds; the workspace cannot allow a host.
func (s Settings) tighten(ws Settings) Settings {
	// ws's DiffTool and StatusLine are never read: s keeps the person's.
	s.WorkspaceLimits = ws.Limits
	s.Network.Deny = append(slices.Clone(s.Network.Deny), ws.Network.Deny...)
	return s
}

// Tighten returns l with each value lowered to ws's where ws sets a lower
// one (0 is "unset" in both).
func (l Limits) Tighten(ws Limits) Limits {
	l.MemoryMB = lower(l.MemoryMB, ws.MemoryMB)
	l.Processes = lower(l.Processes, ws.Processes)
	l.FileSizeMB = lower(l.FileSizeMB, ws.FileSizeMB)
	return l
}

func lower(v, ws int64) int64 {
	if ws > 0 && (v <= 0 || ws < v) {
		return ws
	}
	return v
}
