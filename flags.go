package main

import (
	"flag"
	"fmt"
	"sort"
	"strings"
)

// command is one of aci's command lines: aci itself, aci serve or aci acp.
// Each takes its own flags; a flag another command takes is refused with
// a word on where it belongs.
type command struct {
	name  string          // "aci", "aci serve", "aci acp"
	flags map[string]bool // the flags it takes
	help  string
	// refused says why a flag of another command is not this one's; ""
	// for the generic answer.
	refused func(flag string) string
}

var (
	mainCmd = command{name: "aci", help: mainHelp, flags: names(
		"p", "yes", "model", "effort", "max-steps", "max-turns", "max-budget-usd", "output-schema", "resume", "sessions", "output-format", "sandbox", "serve", "version", "help", "h", "permission-mode", "trust", "i", "image", "bg", "worktree"),
		refused: func(f string) string {
			if f == "addr" {
				return "--addr is for aci serve: aci serve --addr HOST:PORT (see aci serve --help)"
			}
			return ""
		}}
	serveCmd = command{name: "aci serve", help: serveHelp, flags: names(
		"addr", "yes", "model", "effort", "max-steps", "max-turns", "max-budget-usd", "sandbox", "version", "help", "h", "permission-mode", "trust"),
		refused: func(f string) string {
			switch f {
			case "p", "resume", "sessions", "output-format", "output-schema":
				return "aci serve takes --addr and the model and safety flags; questions come over HTTP (see aci serve --help)"
			}
			return ""
		}}
	acpCmd = command{name: "aci acp", help: acpHelp, flags: names(
		"model", "effort", "max-steps", "max-turns", "max-budget-usd", "sandbox", "version", "help", "h", "permission-mode", "trust"),
		refused: func(f string) string {
			switch f {
			case "yes":
				return "aci acp does not take --yes: the editor asks you before anything dangerous (see aci acp --help)"
			case "p", "resume", "sessions", "output-format", "output-schema":
				return "aci acp does not take " + dashed(f) + ": questions come from the editor (see aci acp --help)"
			}
			return ""
		}}
)

func names(list ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range list {
		m[n] = true
	}
	return m
}

// commandFor picks the command args name (serve, acp, or aci itself) and
// returns the args that follow its name.
func commandFor(args []string) (command, []string) {
	if len(args) > 0 {
		switch args[0] {
		case "serve":
			return serveCmd, args[1:]
		case "acp":
			return acpCmd, args[1:]
		}
	}
	return mainCmd, args
}

// misspelled are flags people bring from other tools, and the one aci
// takes for the same thing.
var misspelled = map[string]string{
	"port": "addr", "host": "addr", "listen": "addr", "bind": "addr", "address": "addr",
	"print": "p", "prompt": "p", "message": "p",
	"yolo": "yes", "y": "yes", "dangerously-skip-permissions": "yes", "yes-always": "yes",
	"steps": "max-steps", "turns": "max-turns", "max-budget": "max-budget-usd", "budget": "max-budget-usd",
	"json-schema": "output-schema", "schema": "output-schema", "continue": "resume", "c": "resume",
	"output": "output-format", "format": "output-format", "o": "output-format",
	"v": "version", "V": "version", "mode": "permission-mode",
	"reasoning-effort": "effort", "reasoning": "effort",
}

// unknownFlag turns the flag package's "flag provided but not defined"
// into a message naming the right spelling, or nil for other errors.
func (c command) unknownFlag(err error) error {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return nil
	}
	name = strings.TrimLeft(name, "-")
	if c.flags[name] {
		// Listed (docs/protocol.md §1) but not defined in this build: --serve
		// comes with the REPL's server.
		return usageErr("%s is not in this build of aci (see %s --help)", dashed(name), c.name)
	}
	msg := fmt.Sprintf("unknown flag %s", dashed(name))
	if s := c.suggest(name); s != "" {
		msg += fmt.Sprintf("; did you mean %s?", dashed(s))
	}
	return usageErr("%s (see %s --help)", msg, c.name)
}

// suggest is the flag of c closest to name: a known misspelling, or one
// a typo or two away.
func (c command) suggest(name string) string {
	if s := misspelled[name]; c.flags[s] {
		return s
	}
	lower := strings.ToLower(name)
	best, bestD, bestRaw := "", 3, 0
	var all []string
	for f := range c.flags {
		all = append(all, f)
	}
	sort.Strings(all) // the same answer every time
	for _, f := range all {
		if len(f) < 2 {
			continue
		}
		raw := editDistance(lower, f)
		d := raw
		if commonPrefix(lower, f) >= 4 || strings.HasPrefix(f, lower) && len(lower) >= 3 {
			d = min(d, 1)
		}
		// Between flags as near, the closer spelling (--max-turn: --max-turns,
		// not --max-budget-usd, which shares its "max-").
		if d < bestD || d == bestD && raw < bestRaw {
			best, bestD, bestRaw = f, d, raw
		}
	}
	return best
}

// dashed writes a flag as the help does: -p, --model.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// commonPrefix is how many leading bytes a and b share.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// bareP rewrites a -p that has no question after it (last on the line,
// followed by another flag, or by "-") to -p=, so the question comes from
// stdin (docs/protocol.md §1) instead of the next flag being taken for it. A
// flag-like word after -p that is not one of fs's flags (--verbose, -q,
// habits from other tools) is a usage error, never a question; "--" after
// -p makes the next word the question whatever it looks like.
func (c command) bareP(args []string, fs *flag.FlagSet) ([]string, error) {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...), nil
		}
		if a != "-p" && a != "--p" {
			out = append(out, a)
			continue
		}
		switch {
		case i+1 == len(args):
			out = append(out, "-p=")
		case args[i+1] == "-":
			out = append(out, "-p=")
			i++
		case args[i+1] == "--":
			if i+2 == len(args) {
				return append(out, "-p=", "--"), nil
			}
			return append(append(out, "-p="+args[i+2], "--"), args[i+3:]...), nil
		case isFlag(args[i+1], fs):
			out = append(out, "-p=")
		case flagLike(args[i+1]):
			next := args[i+1]
			name, _, _ := strings.Cut(strings.TrimLeft(next, "-"), "=")
			msg := fmt.Sprintf("-p is followed by %s, which is not a flag of %s", next, c.name)
			if s := c.suggest(name); s != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", dashed(s))
			}
			return nil, usageErr("%s; to ask it as the question: %s -p -- %s (see %s --help)", msg, c.name, next, c.name)
		default:
			out = append(out, a)
		}
	}
	return out, nil
}

// flagLike reports whether word looks like a flag (-q, --verbose,
// --level=3) rather than a question that happens to start with a dash.
func flagLike(word string) bool {
	name, _, _ := strings.Cut(word, "=")
	body := strings.TrimPrefix(strings.TrimPrefix(name, "-"), "-")
	if len(body) == len(name) || body == "" || len(name)-len(body) > 2 {
		return false
	}
	for i, r := range body {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || !(r >= '0' && r <= '9' || r == '-' || r == '_')) {
			return false
		}
	}
	return true
}

// isFlag reports whether word is one of fs's flags (a question that merely
// starts with a dash is not).
func isFlag(word string, fs *flag.FlagSet) bool {
	if !strings.HasPrefix(word, "-") {
		return false
	}
	name, _, _ := strings.Cut(strings.TrimLeft(word, "-"), "=")
	return fs.Lookup(name) != nil
}

// checkAllowed refuses a flag that was given but is not c's.
func (c command) checkAllowed(set map[string]bool) error {
	var given []string
	for f := range set {
		given = append(given, f)
	}
	sort.Strings(given)
	for _, f := range given {
		if !c.flags[f] {
			if why := c.refused(f); why != "" {
				return usageErr("%s", why)
			}
			return usageErr("%s does not take %s (see %s --help)", c.name, dashed(f), c.name)
		}
	}
	return nil
}
