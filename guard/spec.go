package guard

import (
	"fmt"
	"path/filepath"
	"strings"
)

// cmdSpec is everything the guard knows about one command, in one place:
// the table in specs.go holds one entry per command (aliases included), so
// adding or reviewing a command means reading one entry.
type cmdSpec struct {
	// judge says why one use of the command is dangerous, "" if it is not.
	// Judges read the walker's state; state changes belong in track.
	judge guardRule
	// peel, for wrappers (env, timeout, xargs, tmux ...), returns the
	// command the wrapper runs; more=false when nothing runs.
	peel peelFunc
	// stdin says what the command does with its standard input.
	stdin stdinFunc
	// track records what the command leaves for later statements (a new
	// working directory, forgotten variables, links, copied scripts).
	track trackFunc
	// creds says whether this use prints stored credentials.
	creds func(in *guardCall) bool

	priv         bool                    // always escalates privileges (sudo)
	secretOK     bool                    // may name a secret file (ssh -i key, ls ~/.ssh) without leaking it
	projSecretOK bool                    // may name a project secret (.env, a key) without printing it
	dirs         func(args []shArg) bool // reads whole directories given as operands
	inPlace      func(args []shArg) bool // edits files instead of printing them (sed -i)
	net          bool                    // reaches other hosts with what its arguments say
	printer      bool                    // passes its input on to its output
	shell        bool                    // a POSIX-style shell
	lang         bool                    // an interpreter taking inline code (python -c)
	sql          bool                    // a database client reading SQL
}

type (
	peelFunc  func(c *cmdChecker, in *guardCall, rest []shArg) ([]shArg, bool)
	stdinFunc func(c *cmdChecker, in *guardCall) stdinUse
	trackFunc func(c *cmdChecker, in *guardCall)
)

// specEntry names the commands one spec describes; the first name is the
// canonical one, the others are aliases that rules see as the first.
type specEntry struct {
	names   string
	aliases string
	spec    cmdSpec
}

var (
	specs   = map[string]*cmdSpec{}
	aliases = map[string]string{}
)

// buildSpecs indexes the table. A command listed twice is a bug (two
// entries would silently override each other), so it panics at start.
func buildSpecs(table []specEntry) {
	for _, e := range table {
		names := strings.Fields(e.names)
		for _, n := range append(names, strings.Fields(e.aliases)...) {
			if specs[n] != nil || aliases[n] != "" {
				panic(fmt.Sprintf("guard: command %q has two specs", n))
			}
		}
		for _, n := range names {
			s := e.spec
			specs[n] = &s
		}
		for _, a := range strings.Fields(e.aliases) {
			aliases[a] = names[0]
		}
	}
}

// specOf is the spec of a canonical command name, or an empty one.
func specOf(name string) *cmdSpec {
	loadSpecs()
	if s := specs[name]; s != nil {
		return s
	}
	return &noSpec
}

var noSpec cmdSpec

// canonCmd reduces a command word to the name specs are keyed by:
// /usr/bin/python3.12 -> python, mkfs.ext4 -> mkfs, podman -> docker.
func canonCmd(s string) string {
	n := strings.TrimSuffix(filepath.Base(s), ".exe")
	if i := strings.IndexByte(n, '@'); i > 0 {
		n = n[:i] // npx rimraf@5
	}
	loadSpecs()
	if a := aliases[n]; a != "" {
		return a
	}
	// Versioned interpreters: python3.12, pip3, ruby3.2, perl5.36, php8.
	for _, base := range []string{"python", "pypy", "pip", "ruby", "perl", "php", "lua"} {
		if rest, ok := strings.CutPrefix(n, base); ok && strings.Trim(rest, "0123456789.") == "" {
			if base == "pypy" {
				return "python"
			}
			return base
		}
	}
	if strings.HasPrefix(n, "python") {
		return "python" // python3-config and the like are still python
	}
	if strings.HasPrefix(n, "mkfs") {
		return "mkfs"
	}
	return n
}

// Helpers that build facets of specs.

// skipOpts returns a peel that drops leading options (short letters in
// withVal and long names in longVal take a value) and then drop more
// operands (timeout's duration, taskset's mask).
func skipOpts(withVal string, longVal map[string]bool, drop int) peelFunc {
	return func(_ *cmdChecker, _ *guardCall, rest []shArg) ([]shArg, bool) {
		r := skipWrapperOpts(rest, withVal, longVal)
		if len(r) < drop {
			return nil, false
		}
		return r[drop:], true
	}
}

// peelSg: sg GROUP -c CMD, or sg GROUP CMD.
func peelSg(_ *cmdChecker, _ *guardCall, rest []shArg) ([]shArg, bool) {
	r := skipWrapperOpts(rest, "", nil)
	if len(r) < 2 {
		return nil, false
	}
	r = r[1:]
	if r[0].val == "-c" && len(r) > 1 {
		return []shArg{litArg("sh"), litArg("-c"), r[1]}, true
	}
	return watchScript(r), true
}

// credWords returns a creds facet: the command prints credentials when all
// words of one list are among its positional words.
func credWords(lists ...[]string) func(in *guardCall) bool {
	return func(in *guardCall) bool {
		has := map[string]bool{}
		for _, p := range positionalWords(in.args) {
			has[p] = true
		}
		for _, words := range lists {
			all := true
			for _, w := range words {
				all = all && has[w]
			}
			if all {
				return true
			}
		}
		return false
	}
}

func words(ws ...string) []string { return ws }

// forget drops the variables a command assigns from input (read, unset).
func forget(c *cmdChecker, in *guardCall) {
	for _, a := range in.args {
		if a.ok && !strings.HasPrefix(a.val, "-") {
			delete(c.vars, a.val)
		}
	}
}

// forgetPrintVar drops the variable printf -v assigns.
func forgetPrintVar(c *cmdChecker, in *guardCall) {
	for i, a := range in.args {
		if a.val == "-v" && i+1 < len(in.args) {
			delete(c.vars, in.args[i+1].val)
		}
	}
}

func trackCd(c *cmdChecker, in *guardCall)  { c.cd(in.args) }
func trackPopd(c *cmdChecker, _ *guardCall) { c.cwd = "" }

func alwaysDirs([]shArg) bool { return true }
