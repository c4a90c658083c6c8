package guard

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Git: one row per subcommand the guard judges (gitTable), the way
// specs.go holds one entry per command. A row's judge says why one use is
// dangerous; its run list names the options whose value git runs as a
// program (judged as commands, see cmdopts.go). Ordinary commits, pushes,
// fetches and branch switches pass.

// gitSub is what the guard knows about one git subcommand.
type gitSub struct {
	judge    func(c *cmdChecker, g gitCall) string
	publish  string   // "add", "commit", "push": recorded for Publishes
	shortVal string   // short options that take a value, for reading clusters
	run      []runOpt // options whose value git runs
}

// gitCall is one git subcommand with its arguments.
type gitCall struct {
	name string // the subcommand
	in   *guardCall
	rest []shArg    // the arguments after the subcommand
	p    parsedArgs // rest split into options and operands
}

// shortHas reports a short option letter, alone or in a cluster.
func (g gitCall) shortHas(letter byte) bool {
	for f := range g.p.flags {
		if len(f) == 2 && f[1] == letter {
			return true
		}
	}
	return false
}

// op is the i-th operand when it is a literal, else "".
func (g gitCall) op(i int) string {
	if i < len(g.p.ops) && g.p.ops[i].ok {
		return g.p.ops[i].val
	}
	return ""
}

func gitTable() map[string]gitSub {
	upload := []runOpt{{names: "--upload-pack", kind: optProgram}}
	return map[string]gitSub{
		// Publishing and remotes.
		"push":      {judge: gitPush, publish: "push", run: []runOpt{{names: "--receive-pack --exec", kind: optProgram}}},
		"send-pack": {run: []runOpt{{names: "--receive-pack --exec", kind: optProgram}}},
		"fetch":     {run: upload},
		"pull":      {run: upload},
		"ls-remote": {run: upload},
		"clone":     {shortVal: "bcjou", run: []runOpt{{names: "-u --upload-pack", kind: optProgram}}},
		"archive":   {run: []runOpt{{names: "--exec", kind: optProgram}}},
		"remote":    {judge: func(c *cmdChecker, g gitCall) string { return c.gitRemoteWhy(g.p.ops) }},
		"config":    {judge: func(c *cmdChecker, g gitCall) string { return c.gitConfigSet(g.rest, g.p) }},
		"add":       {publish: "add"},
		"commit":    {publish: "commit"},
		// Other writes into the object store (publish_store.go).
		"hash-object":  {publish: "store"},
		"update-index": {publish: "store"},
		"apply":        {publish: "store"},
		"tag":          {publish: "store"},
		"notes":        {publish: "store"},
		"commit-tree":  {publish: "store"},

		// Programs git runs for a subcommand.
		"difftool":    {shortVal: "xty", run: []runOpt{{names: "-x --extcmd", kind: optShell}}},
		"grep":        {run: []runOpt{{names: "-O --open-files-in-pager", kind: optProgram, attached: true}}},
		"send-email":  {run: []runOpt{{names: "--smtp-server", kind: optProgram}}},
		"rebase":      {judge: gitRebase},
		"bisect":      {judge: gitBisect},
		"submodule":   {judge: gitSubmodule},
		"filter-repo": {judge: gitRewrites},

		// Discarding uncommitted work.
		"reset":    {judge: gitReset},
		"clean":    {judge: gitClean},
		"checkout": {judge: func(c *cmdChecker, g gitCall) string { return c.gitCheckout(g.rest, g.p) }},
		"restore":  {judge: gitRestore},
		"switch":   {judge: gitSwitch},
		"rm":       {judge: gitRm},
		"worktree": {judge: gitWorktree},

		// Destroying history: refs, stashes, and the unreachable objects
		// that are the last copy of what they held.
		"branch":        {judge: gitBranch},
		"stash":         {judge: gitStash, publish: "stash"},
		"filter-branch": {judge: gitRewrites},
		"update-ref":    {judge: gitUpdateRef},
		"reflog":        {judge: gitReflog},
		"gc":            {judge: gitGc},
		"prune":         {judge: gitPrune},
		"repack":        {judge: gitRepack},
	}
}

var gitSubs = sync.OnceValue(gitTable)

// ruleGit judges git: its global options (-c settings, -C), then the
// subcommand's row.
func ruleGit(c *cmdChecker, in *guardCall) string {
	args, why := c.gitGlobals(in.args)
	if why != "" || len(args) == 0 {
		return why
	}
	if !args[0].ok {
		return "runs a git subcommand it cannot resolve"
	}
	row, ok := gitSubs()[args[0].val]
	if !ok {
		return ""
	}
	g := gitCall{name: args[0].val, in: in, rest: args[1:], p: parseCmdArgs(args[1:], "", nil)}
	if row.publish != "" {
		c.recordPublish(row.publish, g)
	}
	if len(row.run) > 0 {
		fam := &optFamily{shortVal: row.shortVal, opts: row.run}
		if why := c.familyOptionsWhy(fam, g.rest, in); why != "" || c.found != nil {
			return why
		}
	}
	if row.judge == nil {
		return ""
	}
	return row.judge(c, g)
}

// gitGlobals reads git's options before the subcommand, judging the
// configuration they set, and returns the rest. -C moves c.cwd: judges run
// on a copy of the walker, so it does not outlive this command.
func (c *cmdChecker) gitGlobals(args []shArg) ([]shArg, string) {
	for len(args) > 0 && args[0].ok && strings.HasPrefix(args[0].val, "-") {
		v := args[0].val
		args = args[1:]
		if k, ok := strings.CutPrefix(v, "--config-env="); ok {
			k, _, _ = strings.Cut(k, "=")
			if why := c.gitConfigWhy(k, shArg{}); why != "" {
				return nil, why
			}
			continue
		}
		switch v {
		case "-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path":
		default:
			continue
		}
		if len(args) == 0 {
			break
		}
		switch v {
		case "-c":
			if !args[0].ok {
				return nil, "sets git configuration it cannot resolve"
			}
			k, val, _ := strings.Cut(args[0].val, "=")
			if why := c.gitConfigWhy(k, litArg(val)); why != "" {
				return nil, why
			}
		case "--config-env":
			k, _, _ := strings.Cut(args[0].val, "=")
			if why := c.gitConfigWhy(k, shArg{}); why != "" {
				return nil, why
			}
		case "-C":
			c.cd(args[:1])
		}
		args = args[1:]
	}
	return args, ""
}

func gitPush(_ *cmdChecker, g gitCall) string {
	for f := range g.p.flags {
		if f == "-f" || f == "-d" || f == "--mirror" || f == "--delete" || f == "--prune" ||
			strings.HasPrefix(f, "--force") {
			return "force-pushes or deletes remote history"
		}
	}
	for i, a := range g.p.ops {
		if a.ok && (strings.HasPrefix(a.val, "+") || strings.HasPrefix(a.val, ":") || strings.Contains(a.val, ":+")) {
			return "force-pushes or deletes remote history"
		}
		if i == 0 && (!a.ok || strings.Contains(a.val, "://") || remoteHostOperand(a) && strings.Contains(a.val, "@")) {
			return "pushes code to an ad-hoc remote"
		}
		if i == 0 && deployRemotes()[a.val] {
			return "deploys by pushing to " + a.val
		}
	}
	return ""
}

func gitReset(_ *cmdChecker, g gitCall) string {
	if g.p.has("--hard", "--merge") {
		return "discards uncommitted work"
	}
	return ""
}

func gitClean(_ *cmdChecker, g gitCall) string {
	if (g.shortHas('f') || g.p.has("--force")) && !g.shortHas('n') && !g.p.has("--dry-run") {
		return "deletes untracked files"
	}
	return ""
}

func gitRestore(_ *cmdChecker, g gitCall) string {
	if !g.p.has("--staged", "-S") || g.p.has("--worktree", "-W") {
		return "discards uncommitted changes"
	}
	return ""
}

func gitSwitch(_ *cmdChecker, g gitCall) string {
	if g.p.has("-f", "--force", "--discard-changes") {
		return "discards uncommitted changes"
	}
	return ""
}

func gitRm(_ *cmdChecker, g gitCall) string {
	if g.p.has("-f", "--force") && !g.p.has("--cached") {
		return "force-deletes tracked files with their changes"
	}
	return ""
}

func gitWorktree(_ *cmdChecker, g gitCall) string {
	if g.op(0) == "remove" && g.p.has("-f", "--force") {
		return "force-removes a worktree"
	}
	return ""
}

func gitBranch(_ *cmdChecker, g gitCall) string {
	p := g.p
	if p.has("-D") || p.has("-d", "--delete") && p.has("-f", "--force") || p.has("-M", "-C") ||
		p.has("-f", "--force") && len(p.ops) > 0 {
		return "force-deletes or overwrites a branch"
	}
	return ""
}

// gitStash: a dropped stash is held by nothing but the stash's reflog.
func gitStash(_ *cmdChecker, g gitCall) string {
	if op := g.op(0); op == "clear" || op == "drop" {
		return "discards stashed work"
	}
	return ""
}

func gitRewrites(*cmdChecker, gitCall) string { return "rewrites history" }

func gitUpdateRef(_ *cmdChecker, g gitCall) string {
	if g.p.has("-d", "--stdin") {
		return "deletes a ref"
	}
	return ""
}

// gitReflog: the reflog is what keeps rewritten and reset-away commits;
// expiring it early, or deleting entries, leaves them to the next gc.
func gitReflog(_ *cmdChecker, g gitCall) string {
	switch g.op(0) {
	case "delete":
		return "drops reflog entries"
	case "expire":
		for _, f := range []string{"--expire", "--expire-unreachable"} {
			if v, ok := g.p.get(f); ok && expiresSoon(v) {
				return "expires the reflog early, so unreachable commits can be pruned"
			}
		}
	}
	return ""
}

// gitGc: routine gc keeps unreachable objects for two weeks; --prune with
// a shorter time drops them now.
func gitGc(_ *cmdChecker, g gitCall) string {
	if v, ok := g.p.get("--prune"); ok && v != "" && expiresSoon(v) {
		return "prunes unreachable objects"
	}
	return ""
}

// gitPrune deletes every unreachable loose object unless told to keep
// recent ones.
func gitPrune(_ *cmdChecker, g gitCall) string {
	if g.p.has("-n", "--dry-run") {
		return ""
	}
	if v, ok := g.p.get("--expire"); ok && !expiresSoon(v) {
		return ""
	}
	return "prunes unreachable objects"
}

// gitRepack: -a -d rewrites every pack and deletes the old ones; the
// unreachable objects in them are dropped unless -A, -k or --cruft keeps
// them.
func gitRepack(_ *cmdChecker, g gitCall) string {
	if g.shortHas('a') && g.shortHas('d') && !g.shortHas('A') && !g.shortHas('k') &&
		!g.p.has("--keep-unreachable", "--cruft") {
		return "drops unreachable objects (repack -a -d)"
	}
	return ""
}

// expiresSoon reports an expiry that reaches objects younger than days:
// "now", "all", a date, a count of hours. Weeks, months, years, days and
// "never" are routine.
func expiresSoon(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	if v == "never" || v == "false" {
		return false
	}
	for _, w := range []string{"day", "week", "month", "year"} {
		if strings.Contains(v, w) {
			return false
		}
	}
	return true
}

func gitRebase(c *cmdChecker, g gitCall) string {
	for i, a := range g.rest {
		if (a.val == "-x" || a.val == "--exec") && i+1 < len(g.rest) {
			return c.gitRuns(g.rest[i+1:i+2], g.in)
		}
		if v, ok := strings.CutPrefix(a.val, "--exec="); ok {
			return c.gitRuns([]shArg{{val: v, ok: a.ok}}, g.in)
		}
	}
	return ""
}

func gitBisect(c *cmdChecker, g gitCall) string {
	for i, a := range g.rest {
		if a.val == "run" && i+1 < len(g.rest) {
			return c.gitRuns(g.rest[i+1:], g.in)
		}
	}
	return ""
}

func gitSubmodule(c *cmdChecker, g gitCall) string {
	if g.op(0) == "deinit" && g.p.has("-f", "--force") {
		return "discards submodule work"
	}
	if len(g.p.ops) > 1 && g.op(0) == "foreach" {
		return c.gitRuns(g.p.ops[1:], g.in)
	}
	return ""
}

// gitRuns judges commands git runs for rebase -x, bisect run, submodule
// foreach.
func (c *cmdChecker) gitRuns(args []shArg, in *guardCall) string {
	vals := make([]string, 0, len(args))
	for _, a := range args {
		if !a.ok {
			return "makes git run a command it cannot resolve"
		}
		vals = append(vals, a.val)
	}
	script := vals[0]
	if len(vals) > 1 {
		script = quoteArgvForShell(vals) // bisect run sh -c '...' is an argv
	}
	c.nested(script, in.node, false)
	return ""
}

// gitCheckout flags forms that overwrite worktree files: "--" paths, ".",
// -f, and operands that name existing files rather than branches.
func (c *cmdChecker) gitCheckout(rest []shArg, p parsedArgs) string {
	if p.has("-f", "--force") {
		return "discards uncommitted changes"
	}
	if p.has("-b", "-B", "--orphan") {
		return ""
	}
	for i, a := range rest {
		if a.ok && a.val == "--" {
			if i+1 < len(rest) {
				return "discards uncommitted changes to files"
			}
			return ""
		}
	}
	for _, a := range p.ops {
		if !a.ok {
			return "checks out a path it cannot resolve"
		}
		if a.val == "." || a.val == ":/" || a.glob {
			return "discards uncommitted changes"
		}
		if pa := c.abs(a.val); pa != "" {
			if _, err := os.Lstat(pa); err == nil && len(p.ops) >= 1 {
				return "discards uncommitted changes to files"
			}
		}
	}
	return ""
}

func gitConfig(_ []shArg, p parsedArgs) string {
	if !p.has("--global", "--system") {
		for f, v := range p.flags {
			if f == "--file" || f == "-f" {
				if strings.Contains(v, ".gitconfig") {
					return "changes the global git config"
				}
			}
		}
		return ""
	}
	for _, ro := range []string{"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--get-color", "--get-colorbool"} {
		if p.has(ro) {
			return ""
		}
	}
	ops := p.ops
	if len(ops) > 0 && (ops[0].val == "get" || ops[0].val == "list") {
		return ""
	}
	if len(ops) <= 1 && !p.has("--unset", "--unset-all", "--add", "--replace-all", "--edit", "-e",
		"--rename-section", "--remove-section") {
		return "" // reading one key
	}
	return "changes the global git config"
}

// trackGit records the folder git clone creates: new (so deleting it is
// fine) and fetched from the network (so running its scripts is not).
func trackGit(c *cmdChecker, in *guardCall) {
	pos := positionalSkipping(in.args, "-C", "-c", "--git-dir", "--work-tree", "-b", "--branch", "--depth", "-o", "--origin", "--reference", "-j", "--jobs", "--filter")
	if len(pos) < 2 || pos[0] != "clone" {
		return
	}
	dir := litArg(strings.TrimSuffix(filepath.Base(pos[1]), ".git"))
	if len(pos) >= 3 {
		dir = litArg(pos[2])
	}
	c.markCreated(dir)
	if p := c.abs(dir.val); p != "" {
		c.shared.fetched = append(c.shared.fetched, p)
	}
}
