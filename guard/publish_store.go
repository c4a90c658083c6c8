package guard

import "strings"

// Git commands other than add and commit that write content into the
// repository's object store: once there, a push of the right ref, a
// bundle or a copy of the folder carries it along. Publishes reports them
// so that the caller checks them as it checks a commit (tools/gitscan).

// storeKinds are the publish kinds of gitTable's rows that store content:
// "stash" (the worktree's changes, and with -u/-a its untracked and
// ignored files) and "store" (the files or texts named: hash-object -w,
// update-index --add, apply --cached/--index, tag, notes, commit-tree).

// recordStore fills p for a stash or store row; false when this use
// writes nothing (git stash list, hash-object without -w).
func recordStore(kind string, g gitCall, p *GitPublish) bool {
	switch kind {
	case "stash":
		return recordStash(g, p)
	case "store":
		return recordStoreFiles(g, p)
	}
	return false
}

// recordStash reads git stash [push|save] [-u] [-a] [-m MSG] [-- paths].
func recordStash(g gitCall, p *GitPublish) bool {
	args := g.rest
	if len(args) > 0 && args[0].ok && !strings.HasPrefix(args[0].val, "-") {
		switch args[0].val {
		case "push", "save", "create":
			args = args[1:]
		default:
			return false // list, show, pop, apply, drop, branch, clear
		}
	}
	pa := parseCmdArgs(args, "m", nameSet("--message", "--pathspec-from-file"))
	p.All = true // every tracked change
	p.Untracked = pa.has("-u", "--include-untracked") || shortCluster(args, 'u')
	p.Ignored = pa.has("-a", "--all") || shortCluster(args, 'a')
	p.Untracked = p.Untracked || p.Ignored
	if m, ok := pa.flags["-m"]; ok {
		p.Messages = append(p.Messages, m)
	}
	if m, ok := pa.flags["--message"]; ok {
		p.Messages = append(p.Messages, m)
	}
	for _, a := range pa.ops {
		if a.ok {
			p.Paths = append(p.Paths, a.val)
		}
	}
	return true
}

// recordStoreFiles reads the subcommands that store named files or texts.
func recordStoreFiles(g gitCall, p *GitPublish) bool {
	name := g.name
	lits := func(ops []shArg) {
		for _, a := range ops {
			if a.ok {
				p.Paths = append(p.Paths, a.val)
			}
		}
	}
	switch name {
	case "hash-object":
		pa := parseCmdArgs(g.rest, "t", nameSet("--path"))
		if !pa.has("-w") {
			return false
		}
		lits(pa.ops)
	case "update-index":
		pa := parseCmdArgs(g.rest, "", nameSet("--cacheinfo", "--chmod", "--index-info"))
		if !pa.has("--add", "--replace") {
			return false
		}
		lits(pa.ops)
		p.Force = true // update-index adds ignored files without -f
	case "apply":
		pa := parseCmdArgs(g.rest, "pC", nameSet("--directory", "--exclude", "--include", "--whitespace"))
		if !pa.has("--cached", "--index") {
			return false
		}
		lits(pa.ops) // the patches: what they add is in them
	case "tag", "notes", "commit-tree":
		pa := parseCmdArgs(g.rest, "mFpu", nameSet("--message", "--file"))
		for _, f := range []string{"-m", "--message"} {
			if v, ok := pa.flags[f]; ok {
				p.Messages = append(p.Messages, v)
			}
		}
		for _, f := range []string{"-F", "--file"} {
			if v, ok := pa.flags[f]; ok && v != "-" {
				p.Paths = append(p.Paths, v)
			}
		}
		if len(p.Messages)+len(p.Paths) == 0 {
			return false
		}
	default:
		return false
	}
	return true
}
