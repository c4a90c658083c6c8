package guard

import (
	"strings"
	"sync/atomic"

	"mvdan.cc/sh/v3/syntax"
)

// Verdict is the guard's judgement of a command or a file access.
type Verdict struct {
	Dangerous bool
	// Reason names the dangerous part and why, in a few words, e.g.
	// "rm -rf /home: deletes outside the workspace".
	Reason string
	// Part is the exact substring of the judged command that is dangerous,
	// for the UI to highlight; "" when it cannot be pinned down.
	Part string
	// Writes are the paths outside the workspace that a dangerous command
	// writes, creates or deletes in, as they must be writable for it to do
	// what it says: a deleted path's folder, a written file (or the nearest
	// folder that exists, for a new one), a wildcard's folder. "/" means
	// no narrower grant would do (deleting the workspace, the home folder
	// or a folder of the root). Set only with Dangerous; see grants.go.
	Writes []string
	// Machine are the paths below a temp root (/tmp, /var/tmp) that the
	// command names and that exist on the machine (the deepest existing
	// part of each): a contained command, which sees its session's own
	// /tmp, must be shown these real ones. Set whether dangerous or not.
	Machine []string
	// Effects are the paths outside the workspace the command deletes,
	// moves away or writes, as judged (grants_effects.go): once it ran
	// with Writes granted, the caller can check they happened.
	Effects []Effect
}

// checkCommand walks command with the anchors env.
func checkCommand(env *guardPaths, command string) Verdict {
	if m := reSafetySwitch.FindString(command); m != "" && reDotEnv.MatchString(command) {
		return Verdict{Dangerous: true, Reason: m + ": writes aci's safety switches near a .env file, which could turn approvals off", Part: m}
	}
	budget := guardMaxWork
	c := &cmdChecker{
		env:       env,
		src:       command,
		cwd:       env.workLex,
		vars:      map[string]string{},
		downloads: map[string]bool{},
		created:   map[string]bool{},
		shared:    &guardShared{written: map[string]string{}, links: map[string]string{}, decoded: map[string]bool{}},
		budget:    &budget,
	}
	c.run()
	if c.found == nil {
		c.found = c.shared.grantFound
	}
	if c.found == nil {
		return Verdict{Machine: c.shared.machine}
	}
	part := c.found.part
	if !strings.Contains(command, part) {
		part = command
	}
	reason := shortReason(c.found.label) + ": " + c.found.why
	if g := c.shared.grantFound; g != nil && g != c.found {
		reason += "; and " + shortReason(g.label) + ": " + g.why
	}
	return Verdict{Dangerous: true, Reason: reason, Part: part, Writes: c.shared.grants, Machine: c.shared.machine, Effects: c.shared.effects}
}

// guardStrict makes the safety-net recover re-panic, so fuzzing finds the
// bugs it would otherwise hide.
var guardStrict atomic.Bool

const (
	guardMaxDepth = 6    // nested shells (bash -c "bash -c ...")
	guardMaxWork  = 4000 // statements, plus nested parses by size, per command
	guardMaxInput = 1 << 20
)

// guardShared is what earlier parts of a command leave for later ones, across
// nested shells: scripts it writes and links it makes.
type guardShared struct {
	written map[string]string // path -> literal content; unknownScript if not literal
	links   map[string]string // symlink path -> target
	fetched []string          // folders cloned from the network
	decoded map[string]bool   // variables holding decoded text (p=$(... | base64 -d))
	// publishes collects git add, commit and push for Publishes; nil
	// when judging.
	publishes *[]GitPublish
	copies    map[string]string // for Publishes: copy target -> source, both absolute
	grantState
}

// unknownScript marks a file written with content the guard cannot see.
const unknownScript = "\x00"

// guardFinding is the first dangerous thing found. label names it for the
// reason (innermost text); part is its text in the current source.
type guardFinding struct{ label, part, why string }

// cmdChecker walks one (possibly nested) script, tracking what a reader
// of the script would: the working directory, literal variables, and what
// earlier statements wrote or downloaded.
type cmdChecker struct {
	env       *guardPaths
	src       string
	cwd       string            // "" once a cd could not be resolved
	vars      map[string]string // literal assignments seen so far
	depth     int
	cond      int  // >0 inside conditional or loop bodies
	remote    bool // judging commands for another host (ssh)
	found     *guardFinding
	downloads map[string]bool // files this command downloads (curl -o x.sh)
	created   map[string]bool // paths this command creates or moves things to
	shared    *guardShared
	sink      string // where stdout of the current command goes: "" output, "file", or the next command
	envLoad   bool   // inside export $(...): output loads variables, it is not shown
	scriptDir string // the folder of the script file being judged, for cd "$(dirname "$0")"
	budget    *int
}

func (c *cmdChecker) run() {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(c.src), "")
	if err != nil {
		c.found = &guardFinding{label: c.src, part: c.src, why: "does not parse as a shell command, so it cannot be checked"}
		return
	}
	c.stmts(f.Stmts)
}

// flag records the first dangerous finding; n is the node to highlight.
func (c *cmdChecker) flag(n syntax.Node, why string) {
	if c.found != nil {
		return
	}
	t := c.text(n)
	if t == "" {
		t = c.src
	}
	f := &guardFinding{label: t, part: t, why: why}
	if c.deferGrant(f) {
		return
	}
	c.found = f
}

// spend charges one unit of work and flags the command once the budget is
// gone, so adversarial input cannot make the guard slow.
func (c *cmdChecker) spend() bool {
	*c.budget--
	if *c.budget < 0 {
		if c.found == nil {
			c.found = &guardFinding{label: c.src, part: c.src, why: "too complex to check"}
		}
		return false
	}
	return true
}

// nested judges script, which anchor (a node of this source) runs in a new
// shell. A finding inside keeps its own label and is highlighted in this
// source when its text appears within the anchor verbatim.
func (c *cmdChecker) nested(script string, anchor syntax.Node, remote bool) {
	*c.budget -= len(script) / 512 // parsing costs by size
	if c.found != nil || !c.spend() {
		return
	}
	if c.depth >= guardMaxDepth {
		c.flag(anchor, "nests shells too deeply to check")
		return
	}
	if why := hiddenCharWhy(script); why != "" {
		c.flag(anchor, "runs a script that "+why)
		return
	}
	child := &cmdChecker{env: c.env, src: script, cwd: c.cwd, vars: map[string]string{}, envLoad: c.envLoad, scriptDir: c.scriptDir,
		depth: c.depth + 1, remote: c.remote || remote, downloads: c.downloads, created: c.created,
		shared: c.shared, budget: c.budget}
	if remote {
		// Another host: no workspace there, and its cwd is unknown.
		env := *c.env
		env.work, env.workLex = "", ""
		child.env, child.cwd = &env, ""
	} else {
		for k, v := range c.vars {
			child.vars[k] = v
		}
	}
	child.run()
	f := child.found
	if f == nil {
		return
	}
	at := c.text(anchor)
	if at == "" {
		at = c.src
	}
	part := at
	if f.part != "" && strings.Contains(at, f.part) {
		if i := strings.Index(at, f.part); i >= 0 {
			part = at[i : i+len(f.part)]
		}
	}
	c.found = &guardFinding{label: f.label, part: part, why: f.why}
}

type shellState struct {
	cwd  string
	vars map[string]string
}

// save and restore scope cd and assignments to subshells.
func (c *cmdChecker) save() shellState {
	vars := make(map[string]string, len(c.vars))
	for k, v := range c.vars {
		vars[k] = v
	}
	return shellState{cwd: c.cwd, vars: vars}
}

func (c *cmdChecker) restore(s shellState) { c.cwd, c.vars = s.cwd, s.vars }

func (c *cmdChecker) stmts(list []*syntax.Stmt) {
	for _, s := range list {
		if c.found != nil {
			return
		}
		c.stmt(s)
	}
}

func (c *cmdChecker) stmt(s *syntax.Stmt) {
	if s == nil || c.found != nil || !c.spend() {
		return
	}
	var info *guardCall
	if s.Cmd != nil {
		saved := c.sink
		if stdoutToFile(s) {
			c.sink = "file"
		}
		info = c.command(s.Cmd, s)
		c.sink = saved
	}
	c.redirs(s, info)
}

// stdoutToFile reports a statement whose standard output goes to a file.
func stdoutToFile(s *syntax.Stmt) bool {
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
			if r.N != nil && r.N.Value != "1" {
				continue
			}
			if t := r.Word.Lit(); t != "/dev/stdout" && t != "/dev/stderr" && t != "/dev/tty" {
				return true
			}
		}
	}
	return false
}

// command walks one command; for a simple command it returns what runs.
func (c *cmdChecker) command(cmd syntax.Command, s *syntax.Stmt) *guardCall {
	switch x := cmd.(type) {
	case *syntax.CallExpr:
		return c.call(x)
	case *syntax.Block:
		c.stmts(x.Stmts)
	case *syntax.Subshell:
		saved := c.save()
		c.stmts(x.Stmts)
		c.restore(saved)
	case *syntax.IfClause:
		c.ifClause(x)
	case *syntax.WhileClause:
		c.stmts(x.Cond)
		c.cond++
		c.stmts(x.Do)
		c.cond--
	case *syntax.ForClause:
		c.forClause(x)
	case *syntax.CaseClause:
		c.substsWord(x.Word)
		c.cond++
		for _, it := range x.Items {
			for _, p := range it.Patterns {
				c.substsWord(p)
			}
			c.stmts(it.Stmts)
		}
		c.cond--
	case *syntax.BinaryCmd:
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			c.pipeline(x)
			return nil
		}
		c.stmt(x.X)
		c.cond++
		c.stmt(x.Y)
		c.cond--
	case *syntax.FuncDecl:
		c.funcDecl(x)
	case *syntax.ArithmCmd, *syntax.TestClause, *syntax.LetClause:
		c.substs(x)
	case *syntax.DeclClause:
		c.declClause(x)
	case *syntax.TimeClause:
		c.stmt(x.Stmt)
	case *syntax.CoprocClause:
		c.stmt(x.Stmt)
	case *syntax.TestDecl:
		c.stmt(x.Body)
	default:
		c.flag(s, "uses a shell construct the guard does not know")
	}
	return nil
}

func (c *cmdChecker) ifClause(x *syntax.IfClause) {
	for ; x != nil && c.found == nil; x = x.Else {
		c.stmts(x.Cond)
		c.cond++
		c.stmts(x.Then)
		c.cond--
	}
}

// forClause checks the body once per literal item, with the loop variable
// bound, so "for d in build dist; do rm -rf $d; done" is judged exactly.
func (c *cmdChecker) forClause(x *syntax.ForClause) {
	c.cond++
	defer func() { c.cond-- }()
	wi, ok := x.Loop.(*syntax.WordIter)
	if !ok {
		c.substs(x.Loop)
		c.stmts(x.Do)
		return
	}
	for _, w := range wi.Items {
		c.substsWord(w)
	}
	name := wi.Name.Value
	items := c.words(wi.Items)
	known := wi.InPos.IsValid() && len(items) > 0 && len(items) <= 16
	for _, it := range items {
		known = known && it.ok
	}
	if !known {
		delete(c.vars, name)
		c.stmts(x.Do)
		return
	}
	for _, it := range items {
		if c.found != nil {
			return
		}
		c.vars[name] = it.val
		c.stmts(x.Do)
	}
	delete(c.vars, name)
}

func (c *cmdChecker) funcDecl(x *syntax.FuncDecl) {
	if x.Name != nil && isForkBomb(x.Name.Value, x.Body) {
		c.flag(x, "is a fork bomb (a function that spawns itself)")
		return
	}
	saved := c.save()
	c.cond++
	c.stmt(x.Body)
	c.cond--
	c.restore(saved)
}

func (c *cmdChecker) substsWord(w *syntax.Word) {
	if w != nil {
		c.substs(w)
	}
}

// substs checks the commands inside $(...), `...` and <(...) within n; they
// run in subshells.
func (c *cmdChecker) substs(n syntax.Node) {
	if n == nil || c.found != nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		if c.found != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.CmdSubst:
			saved := c.save()
			c.stmts(n.Stmts)
			c.restore(saved)
			return false
		case *syntax.ProcSubst:
			saved := c.save()
			c.stmts(n.Stmts)
			c.restore(saved)
			return false
		}
		return true
	})
}

// pipeline checks each stage (each runs in a subshell) and what flows
// between them: code piped into a shell, data piped to the network.
func (c *cmdChecker) pipeline(b *syntax.BinaryCmd) {
	var stages []*syntax.Stmt
	var flatten func(s *syntax.Stmt)
	flatten = func(s *syntax.Stmt) {
		if bc, ok := s.Cmd.(*syntax.BinaryCmd); ok && len(s.Redirs) == 0 &&
			(bc.Op == syntax.Pipe || bc.Op == syntax.PipeAll) {
			flatten(bc.X)
			flatten(bc.Y)
			return
		}
		stages = append(stages, s)
	}
	flatten(b.X)
	flatten(b.Y)
	saved, sink := c.save(), c.sink
	for i, st := range stages {
		if i+1 < len(stages) {
			c.sink = "cmd"
			if ce, ok := stages[i+1].Cmd.(*syntax.CallExpr); ok && len(ce.Args) > 0 {
				c.sink = c.effective(ce).name
			}
		} else {
			c.sink = sink
		}
		c.stmt(st)
		c.restore(saved)
		saved = c.save()
	}
	c.sink = sink
	for i := 1; i < len(stages) && c.found == nil; i++ {
		c.feed(stages[i-1], stages[i], b)
		c.recordPipeWrites(stages[i-1], stages[i])
	}
}
