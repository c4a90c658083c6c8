package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// The rule: inside the workspace, a contained command may not create or
// change a file that a program reads and obeys later, outside the
// sandbox, without the person running the project's own code: aci's own
// configuration (read when the next session starts) and what editors,
// shells and other agents load or run when the person opens or enters the
// folder. The project's build files (Makefile, package.json scripts) are
// not in it: they run only when the person runs them, and the person
// reads their diff like any other change. Neither are version pins
// (.nvmrc, .python-version, .tool-versions), which pick one of the tools
// already installed and run no code of their own. Git's hooks and config
// are kept read-only by the policy already (Policy.ReadOnly).

// protectedKind says where an entry of the table applies.
type protectedKind int

const (
	// onChain: in every folder from the git root down to the working
	// directory, as aci looks for it there.
	onChain protectedKind = iota
	// atRoot: at the git root and in the working directory.
	atRoot
)

// protectedEntry is one row of the table. name is relative to a folder;
// a trailing "/" marks a folder (protected whole); a "*" makes it a
// pattern, protected only where it matches existing files.
type protectedEntry struct {
	name  string
	where protectedKind
	why   string
	// standIn marks the files aci itself trusts at its next start: where
	// one is missing while a command runs, the journal says so, so that
	// one the command made is moved out even if aci is killed before the
	// command ends (protect_watch.go). Like any protected name a command
	// creates, it is moved out of the workspace when the command ends, and
	// named in its result (Sandbox.Command). (It once meant an empty
	// stand-in file in the real workspace, which everyone saw.)
	standIn bool
}

// protectedTable is the one list of protected names.
var protectedTable = []protectedEntry{
	{"AGENTS.md", onChain, "aci reads this file at start as the project's instructions: a change steers what later sessions do", true},
	{"CLAUDE.md", onChain, "aci (and Claude Code) read this file at start as the project's instructions: a change steers what later sessions do", true},
	{".mcp.json", onChain, "aci and other agents start the programs this file names: a change runs code outside the sandbox", false},
	{".env", atRoot, "aci reads this file at start: a change can redirect its API key to another endpoint", true},
	{".env.*", atRoot, "programs load their settings and secrets from this file when they start", false},
	{".aci/", atRoot, "aci's workspace settings: a change alters its limits for later sessions", false},
	{".claude/", atRoot, "Claude Code runs the hooks and obeys the settings in this folder", false},
	{".codex/", atRoot, "Codex CLI obeys the settings in this folder", false},
	{".cursor/", atRoot, "Cursor obeys the rules and runs the MCP servers named in this folder", false},
	{".gemini/", atRoot, "Gemini CLI obeys the settings in this folder", false},
	{".vscode/", atRoot, "VS Code runs tasks from this folder when the folder opens and takes program paths from its settings", false},
	{"*.code-workspace", atRoot, "VS Code runs the tasks and obeys the settings of a workspace file when it is opened", false},
	{".idea/", atRoot, "JetBrains IDEs run the startup tasks and obey the run configurations in this folder", false},
	{".zed/", atRoot, "Zed runs the tasks and language servers this folder names", false},
	{".devcontainer/", atRoot, "editors build and run the container this folder describes, with its lifecycle commands", false},
	{".envrc", atRoot, "direnv runs this file when a shell enters the folder", false},
	{".mise.toml", atRoot, "mise runs the hooks and sets the environment in this file when a shell enters the folder", false},
	{"mise.toml", atRoot, "mise runs the hooks and sets the environment in this file when a shell enters the folder", false},
	{".husky/", atRoot, "git runs the hooks in this folder (husky points core.hooksPath here) on the person's next commit", false},
}

// protectedCandidates lists the protected paths of a workspace: every
// table row joined to the folders it applies to (patterns left as
// patterns), and the subset aci trusts at its next start (at the root and
// the working directory only: protectedEntry.standIn). root is the git root (or the
// working dir), workdir the working directory; both clean and absolute.
func protectedCandidates(root, workdir string) (all, standIns []string) {
	chain := []string{root}
	if workdir != root && within(workdir, root) {
		rel := strings.TrimPrefix(workdir, root+"/")
		d := root
		for _, part := range strings.Split(rel, "/") {
			d = filepath.Join(d, part)
			chain = append(chain, d)
		}
	}
	roots := []string{root}
	if workdir != root {
		roots = append(roots, workdir)
	}
	for _, e := range protectedTable {
		dirs := roots
		if e.where == onChain {
			dirs = chain
		}
		for _, d := range dirs {
			c := filepath.Join(d, e.name) + dirSuffix(e.name)
			all = appendUnique(all, c)
			if e.standIn && (d == root || d == workdir) {
				standIns = appendUnique(standIns, c)
			}
		}
	}
	return all, standIns
}

func dirSuffix(name string) string {
	if strings.HasSuffix(name, "/") {
		return "/"
	}
	return ""
}

// ProtectedWhy says what the file at path controls when it is one of the
// workspace's protected files (see protectedTable), or "". workdir is the
// session's working directory; the workspace is its git root, or workdir.
// Instruction files count in any folder of the workspace: a later session
// started there reads them. path is judged where it leads now (symlinks
// resolved), and as given.
func ProtectedWhy(workdir, path string) string {
	wd := real(workdir)
	root := wd
	if r := gitRoot(wd); r != "" {
		root = r
	}
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(workdir, abs)
	}
	for _, p := range []string{filepath.Clean(abs), realParent(abs)} {
		if why := protectedWhy(root, wd, p); why != "" {
			return why
		}
	}
	return ""
}

// realParent resolves the folders of path, keeping its last element (the
// file may not exist yet).
func realParent(path string) string {
	return filepath.Join(real(filepath.Dir(path)), filepath.Base(path))
}

// protectedWhy judges path by its names from the workspace root down: a
// protected name at any depth counts (protect_index.go), except below a
// dependency folder. workdir is kept for callers; the rule no longer
// depends on it.
func protectedWhy(root, _, path string) string {
	if !within(path, root) || path == root {
		return ""
	}
	parts := strings.Split(strings.TrimPrefix(path, root+"/"), "/")
	for i, c := range parts {
		if why := protectedName(c, true); why != "" {
			return why
		}
		if i == len(parts)-1 {
			return protectedName(c, false)
		}
		if skippedDirs[c] {
			return ""
		}
	}
	return ""
}

// rowMatches reports whether path is the row's name in folder d, or lies
// in it when the row is a folder.
func rowMatches(name, d, path string) bool {
	if dir, ok := strings.CutSuffix(name, "/"); ok {
		return within(path, filepath.Join(d, dir))
	}
	if strings.Contains(name, "*") {
		ok, _ := filepath.Match(filepath.Join(d, name), path)
		return ok
	}
	return path == filepath.Join(d, name)
}

// protectedNow splits the policy's protected paths as they are on disk
// now: existing ones (patterns expanded) to bind read-only, and missing
// ones (unguarded: one a command makes is moved out when it ends).
func protectedNow(p Policy) (existing, unguarded []string) {
	for _, c := range p.Protected {
		c = strings.TrimSuffix(c, "/")
		if strings.Contains(filepath.Base(c), "*") {
			matches, _ := filepath.Glob(c)
			for _, m := range matches {
				existing = appendUnique(existing, m)
			}
			continue
		}
		fi, err := os.Lstat(c)
		switch {
		case err == nil && fi.Mode()&os.ModeSymlink != 0:
			// A link is bound where it leads only when that stays in the
			// workspace; bwrap would follow it anywhere.
			if r := real(c); underAny(r, p.Workspace) {
				existing = appendUnique(existing, c)
			}
		case err == nil:
			existing = appendUnique(existing, c)
		case !os.IsNotExist(err):
		default:
			// No stand-in is made in the real workspace any more: the
			// person's editor, git and the command itself would see it.
			// One that appears while a command runs is moved out when it
			// ends (protectCommand), and after a crash by the next aci
			// (protect_watch.go).
			unguarded = append(unguarded, c)
		}
	}
	return existing, unguarded
}

// protected says what path controls when it is one of the policy's
// protected paths, or "".
func (p Policy) protected(path string) string {
	if len(p.Workspace) == 0 {
		return ""
	}
	for _, c := range p.Protected {
		if rowMatches(filepath.Base(strings.TrimSuffix(c, "/"))+dirSuffix(c), filepath.Dir(strings.TrimSuffix(c, "/")), path) {
			return protectedWhy(p.Workspace[0], filepath.Dir(strings.TrimSuffix(c, "/")), path)
		}
	}
	return ""
}
