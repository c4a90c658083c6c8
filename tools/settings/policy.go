package settings

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
)

// Policy is what the settings files say about permissions and hooks
// (docs/protocol.md section 10): the person's file, and the project's
// .aci/settings.json and .claude/settings.json (read for these two keys
// too, so that a project set up for Claude Code works), kept apart, since
// a project may only narrow and its hooks run only in a trusted folder.
type Policy struct {
	Person  Permissions
	Project Permissions
	Hooks   []HookGroup // the person's first, then the project's
}

// Permissions are rule patterns ("bash:npm test") to allow or deny.
type Permissions struct {
	Allow, Deny []Entry
}

// Entry is one pattern and the file it came from.
type Entry struct {
	Pattern string
	Source  string
}

// HookGroup is one matcher of one event with its commands, in Claude
// Code's shape: {"matcher": "Edit|Write", "hooks": [{"type": "command",
// "command": "...", "timeout": 60}]}.
type HookGroup struct {
	Event   string
	Matcher string // a regular expression on the tool's name; "" or "*" is every tool
	Hooks   []HookCommand
	Source  string // the file
	Project bool   // from the project's files: runs only in a trusted folder
}

// HookCommand is one command a hook runs.
type HookCommand struct {
	Command string
	Timeout int // seconds; 0 is the default
}

// HookEvents are the events hooks may be set for.
var HookEvents = []string{"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart", "SessionEnd", "Notification", "PreCompact"}

// ProjectPaths are the project's files that may hold permissions and
// hooks, in the order they are read.
func ProjectPaths(workspace string) []string {
	return []string{
		WorkspacePath(workspace),
		filepath.Join(workspace, ".claude", "settings.json"),
		filepath.Join(workspace, ".claude", "settings.local.json"),
	}
}

// PolicyOf is the permissions and hooks of both scopes (pr nil is no
// workspace): the person's hooks first, then the project's.
func PolicyOf(p *Person, pr *Project) Policy {
	var pol Policy
	if p != nil {
		pol.Person = p.Permissions
		pol.Hooks = append(pol.Hooks, p.Hooks...)
	}
	if pr != nil {
		pol.Project = pr.Permissions
		pol.Hooks = append(pol.Hooks, pr.Hooks...)
	}
	return pol
}

// ProjectHooks are the hook groups that come from the project's files.
func (p Policy) ProjectHooks() []HookGroup {
	var out []HookGroup
	for _, h := range p.Hooks {
		if h.Project {
			out = append(out, h)
		}
	}
	return out
}

func parsePolicy(path string, top map[string]json.RawMessage, project bool) (Permissions, []HookGroup, []string) {
	var perms Permissions
	var problems []string
	bad := func(key, why string) {
		problems = append(problems, fmt.Sprintf("settings: %s: %s: %s; skipped", path, key, why))
	}
	if raw, ok := top["permissions"]; ok {
		var p map[string]json.RawMessage
		if err := json.Unmarshal(raw, &p); err != nil {
			bad("permissions", "not an object")
		}
		perms.Allow = entries(path, "permissions.allow", p["allow"], bad)
		perms.Deny = entries(path, "permissions.deny", p["deny"], bad)
	}
	var hooks []HookGroup
	if raw, ok := top["hooks"]; ok {
		hooks = hookGroups(path, project, raw, bad)
	}
	return perms, hooks, problems
}

func entries(path, key string, raw json.RawMessage, bad func(key, why string)) []Entry {
	if raw == nil {
		return nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		bad(key, "not a list")
		return nil
	}
	var out []Entry
	for i, item := range list {
		var s string
		if err := json.Unmarshal(item, &s); err != nil || s == "" {
			bad(fmt.Sprintf("%s[%d]", key, i), "not a pattern string")
			continue
		}
		out = append(out, Entry{Pattern: s, Source: path})
	}
	return out
}

func hookGroups(path string, project bool, raw json.RawMessage, bad func(key, why string)) []HookGroup {
	var byEvent map[string][]json.RawMessage
	if err := json.Unmarshal(raw, &byEvent); err != nil {
		bad("hooks", "not an object of event names to lists")
		return nil
	}
	events := make([]string, 0, len(byEvent))
	for ev := range byEvent {
		events = append(events, ev)
	}
	sort.Strings(events)
	var out []HookGroup
	for _, ev := range events {
		known := false
		for _, k := range HookEvents {
			known = known || k == ev
		}
		if !known {
			bad("hooks."+ev, "unknown event (events: PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart, SessionEnd, Notification, PreCompact)")
			continue
		}
		for i, g := range byEvent[ev] {
			key := fmt.Sprintf("hooks.%s[%d]", ev, i)
			var group struct {
				Matcher *string `json:"matcher"`
				Hooks   []struct {
					Type    string   `json:"type"`
					Command string   `json:"command"`
					Timeout *float64 `json:"timeout"`
				} `json:"hooks"`
			}
			if err := json.Unmarshal(g, &group); err != nil {
				bad(key, "not a {\"matcher\", \"hooks\"} object: "+err.Error())
				continue
			}
			hg := HookGroup{Event: ev, Source: path, Project: project}
			if group.Matcher != nil {
				hg.Matcher = *group.Matcher
			}
			if hg.Matcher != "" && hg.Matcher != "*" {
				if _, err := regexp.Compile(hg.Matcher); err != nil {
					bad(key+".matcher", "not a regular expression: "+err.Error())
					continue
				}
			}
			for j, h := range group.Hooks {
				hkey := fmt.Sprintf("%s.hooks[%d]", key, j)
				switch {
				case h.Type != "command":
					bad(hkey, fmt.Sprintf("type %q is not supported (only \"command\")", h.Type))
				case h.Command == "":
					bad(hkey, "no command")
				case h.Timeout != nil && *h.Timeout <= 0:
					bad(hkey+".timeout", "must be a positive number of seconds")
				default:
					c := HookCommand{Command: h.Command}
					if h.Timeout != nil {
						c.Timeout = int(*h.Timeout + 0.999)
					}
					hg.Hooks = append(hg.Hooks, c)
				}
			}
			if len(hg.Hooks) > 0 {
				out = append(out, hg)
			}
		}
	}
	return out
}
