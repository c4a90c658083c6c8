// Package safegit runs aci's own git calls on the machine (undo snapshots,
// secret checks, status lines) so that they never run anything a
// repository names: its hooks, core.fsmonitor, a pager, an editor, a
// credential helper, or the filters and text conversions its config and
// attributes select. A contained command can write a repository's config
// and attributes; aci's git runs outside the sandbox with the person's
// rights, so it must obey none of it. Every git call aci makes goes
// through Command.
package safegit

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
)

// overrides come before the subcommand: command-line -c wins over every
// config file, the repository's included.
var overrides = []string{
	"--no-pager",
	"-c", "core.fsmonitor=false",
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.pager=cat",
	"-c", "core.editor=false",
	"-c", "core.askPass=",
	"-c", "core.sshCommand=false",
	"-c", "core.gitProxy=",
	"-c", "core.attributesFile=/dev/null",
	"-c", "credential.helper=",
	"-c", "protocol.allow=never",
	"-c", "protocol.ext.allow=never",
	"-c", "protocol.fd.allow=never",
	"-c", "core.alternateRefsCommand=",
	"-c", "commit.gpgSign=false",
	"-c", "tag.gpgSign=false",
	"-c", "log.showSignature=false",
	"-c", "gpg.program=false",
	"-c", "gpg.ssh.program=false",
	"-c", "gpg.x509.program=false",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "core.quotepath=off",
}

// env is added to the caller's environment: no system config, no
// optional locks (aci's reads must not take the index lock a person's git
// may want), no prompt, no external diff or pager from the environment.
// aci's git reaches no remote: GIT_ALLOW_PROTOCOL wins over every
// protocol.*.allow a repository's config may set (a -c protocol.allow
// does not: protocol.ext.allow=always in the repository beats it), and a
// partial clone's missing object is not fetched lazily from its promisor
// remote. The person's global config stays: it is theirs, a contained
// command cannot write it, and its core.excludesFile and safe.directory
// decide what aci's status sees and whether git opens the folder at all.
var env = []string{
	"GIT_CONFIG_NOSYSTEM=1",
	"GIT_ALLOW_PROTOCOL=", // a list that names no transport: none allowed
	"GIT_NO_LAZY_FETCH=1",
	"GIT_PROTOCOL_FROM_USER=0",
	"GIT_OPTIONAL_LOCKS=0",
	"GIT_TERMINAL_PROMPT=0",
	"GIT_PAGER=cat",
	"GIT_EDITOR=false",
	"GIT_ASKPASS=",
	"SSH_ASKPASS=",
	"LC_ALL=C",
}

// noContent are the subcommands that read no file of the work tree, so
// no filter can run: the drivers need not be looked up first. Any command
// that reads the index may re-read a racily clean file through its clean
// filter (write-tree does), so the list is short.
var noContent = map[string]bool{"rev-parse": true, "config": true}

// Command is git args run in dir (when not "") with the overrides above,
// extra environment on top of aci's own. Where the subcommand may read
// the work tree (all but rev-parse and config), every filter and textconv
// driver the configuration defines is blanked, so that attributes, the
// repository's included, select none that runs.
func Command(ctx context.Context, dir string, extraEnv []string, args ...string) *exec.Cmd {
	runHooks()
	full := append([]string{}, overrides...)
	if len(args) > 0 && !noContent[subcommand(args)] {
		full = append(full, blankDrivers(ctx, dir)...)
	}
	full = append(full, noExternal(args)...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), env...), extraEnv...)
	return cmd
}

// Output runs Command and returns its standard output; stdin, when not
// nil, is its input. The error holds git's message.
func Output(ctx context.Context, dir string, extraEnv []string, stdin []byte, args ...string) ([]byte, error) {
	cmd := Command(ctx, dir, extraEnv, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("git %s: %w: %s", subcommand(args), err, strings.TrimSpace(errb.String()))
	}
	return out, nil
}

var hooks struct {
	sync.Mutex
	list []func()
}

// BeforeEach registers f to run before each git call: the sandbox puts
// back what a running command or task changed in a repository's git
// folder before aci's git reads it.
func BeforeEach(f func()) {
	hooks.Lock()
	hooks.list = append(hooks.list, f)
	hooks.Unlock()
}

func runHooks() {
	hooks.Lock()
	list := hooks.list
	hooks.Unlock()
	for _, f := range list {
		f()
	}
}

// diffing are the subcommands that take --no-ext-diff and --no-textconv.
var diffing = map[string]bool{"diff": true, "log": true, "show": true, "diff-tree": true, "diff-index": true, "diff-files": true}

// noExternal adds --no-ext-diff --no-textconv right after a diffing
// subcommand: diff.external and a driver's command run none of their
// programs.
func noExternal(args []string) []string {
	sub := subcommand(args)
	if !diffing[sub] {
		return args
	}
	i := slices.Index(args, sub)
	out := append(slices.Clone(args[:i+1]), "--no-ext-diff", "--no-textconv")
	return append(out, args[i+1:]...)
}

// subcommand is the first argument that is not a global option (-C dir
// and -c key=value take a value).
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return ""
}

// blankDrivers reads the filter and diff drivers the configuration
// (every file, includes followed) defines, and returns -c options that
// empty each: git then runs none of them. Reading config runs nothing.
func blankDrivers(ctx context.Context, dir string) []string {
	cmd := exec.CommandContext(ctx, "git", "-c", "core.fsmonitor=false", "config", "-z", "--get-regexp",
		`^(filter|diff)\..+\.(clean|smudge|process|textconv|command)$`)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, _ := cmd.Output() // exit 1: none defined
	var opts []string
	seen := map[string]bool{}
	for _, rec := range strings.Split(string(out), "\x00") {
		key, _, _ := strings.Cut(rec, "\n")
		first, rest, ok := strings.Cut(key, ".")
		i := strings.LastIndexByte(rest, '.')
		if !ok || i <= 0 {
			continue
		}
		name := first + "." + rest[:i]
		if seen[name] {
			continue
		}
		seen[name] = true
		if first == "filter" {
			opts = append(opts, "-c", name+".clean=", "-c", name+".smudge=", "-c", name+".process=", "-c", name+".required=false")
		} else {
			// An empty textconv would be run as a command: cat is the
			// identity.
			opts = append(opts, "-c", name+".textconv=cat", "-c", name+".command=cat")
		}
	}
	return opts
}
