package guard

import (
	"sort"
	"strings"
)

// GitPublish is a git command that records or publishes content (add,
// commit, push, stash, and the other writes into the object store, kind
// "store": see publish_store.go): what a secret check must look at
// before the command runs. The guard only reads the command line; looking into the
// repository is the caller's job (tools/gitscan).
type GitPublish struct {
	Kind  string // "add", "commit", "push", "stash" or "store"
	Dir   string // where git runs (cd and -C followed); "" when unknown
	All   bool   // commit -a: every tracked change; add -A
	Force bool   // add -f: files git ignores too
	// Untracked and Ignored: stash -u takes the untracked files, stash -a
	// the ignored ones too.
	Untracked, Ignored bool
	Paths              []string // pathspecs given to add or commit
	Messages           []string // commit -m texts
	Remote             string   // push: the remote or URL; "" for the default
	Refs               []string // push: the refspecs
	// Pending are the files earlier parts of the command write or copy,
	// which do not hold their new content yet when it is checked.
	Pending []PendingFile
}

// PendingFile is a file the command writes before a git add or commit:
// its literal content when the guard could read it, or the file it is
// copied from.
type PendingFile struct {
	Path    string // absolute
	Content string // literal content written (echo ... > f)
	From    string // absolute path of the source of a copy
	Known   bool   // Content or From tells the content
}

// Publishes lists the git add, commit and push commands in command, in
// order, for a check of what they would publish. Like Check it runs
// nothing. A part of the command it cannot read is left out: Check asks
// about such commands anyway.
func (g *Guard) Publishes(command, workdir string) (out []GitPublish) {
	defer func() {
		if r := recover(); r != nil {
			if guardStrict.Load() {
				panic(r)
			}
			out = nil
		}
	}()
	if !strings.Contains(command, "git") || len(command) > guardMaxInput {
		return nil
	}
	env := g.paths(workdir)
	budget := guardMaxWork
	var list []GitPublish
	c := &cmdChecker{
		env: env, src: command, cwd: env.workLex, vars: map[string]string{},
		downloads: map[string]bool{}, created: map[string]bool{},
		shared: &guardShared{written: map[string]string{}, links: map[string]string{}, decoded: map[string]bool{},
			publishes: &list, copies: map[string]string{}},
		budget: &budget,
	}
	c.run()
	return list
}

// recordPublish notes a git add, commit or push for Publishes; c.cwd is
// where git runs (after -C).
func (c *cmdChecker) recordPublish(kind string, g gitCall) {
	if c.shared.publishes == nil {
		return
	}
	p := GitPublish{Kind: kind, Dir: c.cwd}
	for path, text := range c.shared.written {
		f := PendingFile{Path: path, Content: text, Known: text != unknownScript}
		if from, ok := c.shared.copies[path]; ok && !f.Known {
			f.Content, f.From, f.Known = "", from, true
		}
		p.Pending = append(p.Pending, f)
	}
	for path, from := range c.shared.copies {
		if _, ok := c.shared.written[path]; !ok {
			p.Pending = append(p.Pending, PendingFile{Path: path, From: from, Known: true})
		}
	}
	sort.Slice(p.Pending, func(i, j int) bool { return p.Pending[i].Path < p.Pending[j].Path })
	lits := func(args []shArg) []string {
		var out []string
		for _, a := range args {
			if a.ok {
				out = append(out, a.val)
			}
		}
		return out
	}
	switch kind {
	case "add":
		pa := parseCmdArgs(g.rest, "", nameSet("--chmod", "--pathspec-from-file"))
		p.Force = pa.has("-f", "--force") || shortCluster(g.rest, 'f')
		p.All = pa.has("-A", "--all") || shortCluster(g.rest, 'A')
		p.Paths = lits(pa.ops)
	case "commit":
		pa := parseCmdArgs(g.rest, "mFCct", nameSet("--message", "--file", "--reuse-message", "--reedit-message",
			"--author", "--date", "--template", "--fixup", "--squash", "--trailer", "--cleanup", "--pathspec-from-file"))
		p.All = pa.has("-a", "--all") || shortCluster(g.rest, 'a')
		p.Paths = lits(pa.ops)
		for i, a := range g.rest {
			if (a.val == "-m" || a.val == "--message") && i+1 < len(g.rest) {
				p.Messages = append(p.Messages, g.rest[i+1].val)
			} else if v, ok := strings.CutPrefix(a.val, "--message="); ok {
				p.Messages = append(p.Messages, v)
			}
		}
	case "push":
		pa := parseCmdArgs(g.rest, "o", nameSet("--repo", "--push-option", "--receive-pack", "--exec"))
		ops := lits(pa.ops)
		if len(ops) > 0 {
			p.Remote, p.Refs = ops[0], ops[1:]
		}
	default:
		if !recordStore(kind, g, &p) {
			return
		}
	}
	*c.shared.publishes = append(*c.shared.publishes, p)
}

// shortCluster reports a short option letter inside a cluster (-am).
func shortCluster(args []shArg, letter byte) bool {
	for _, a := range args {
		v := a.val
		if a.ok && len(v) > 2 && v[0] == '-' && v[1] != '-' && strings.IndexByte(v[1:], letter) >= 0 {
			// -m's value may follow in the same word (-mfix): stop there.
			if i := strings.IndexByte(v, 'm'); i > 0 && i < strings.IndexByte(v, letter) {
				continue
			}
			return true
		}
	}
	return false
}
