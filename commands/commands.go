// Package commands reads the person's and the project's slash commands and
// skills (docs/protocol.md §9): Markdown prompt files in .aci/commands,
// $XDG_CONFIG_HOME/aci/commands and .claude/commands, the built-in prompt
// commands /init and /review, and SKILL.md folders. A command line such as
// "/fix-issue 123" becomes the prompt the model gets here, in one place;
// the session calls it for every front end.
package commands

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aci-dev/aci/internal/dirs"
)

// Where a command comes from.
const (
	ScopeBuiltin = "built-in"
	ScopeProject = "project"
	ScopeUser    = "user"
	ScopeSkill   = "skill"
)

// maxFileBytes caps a command or skill file: a prompt, not a data set.
const maxFileBytes = 64 << 10

// Reserved are the front ends' own commands (docs/protocol.md §1): a file of
// one of these names is listed with a note and never run.
var Reserved = []string{
	"help", "reset", "new", "clear", "undo", "rewind", "windows", "show", "compact",
	"model", "effort", "fork", "serve", "usage", "status", "mode", "permissions",
	"exit", "quit", "init", "review", "diff",
}

// Command is one slash command.
type Command struct {
	Name         string // without the slash; a folder is a namespace: "git:commit"
	Description  string
	ArgumentHint string // "[issue-number]"
	Model        string // the model for this command's turn, "" for the session's
	Scope        string // ScopeBuiltin, ScopeProject, ScopeUser, ScopeSkill
	Path         string // the file, "" for a built-in
	// Problem says why the command is listed but cannot run (broken front
	// matter, an unknown placeholder, a built-in's name).
	Problem string
	// ReadOnly turns run in plan mode, whatever the session's mode (/review).
	ReadOnly bool

	body   string
	expand func(args string) string // a built-in's own expansion
}

// Set is the commands of one workspace, as Load found them.
type Set struct {
	Commands []Command // built-ins, then files by name, then skills
	// Notes are files left out (a name the project's file took, a skill
	// without a name), one line each.
	Notes []string
}

// UserDir is the person's aci folder, $XDG_CONFIG_HOME/aci (by default
// ~/.config/aci); "" without a home.
func UserDir() string {
	d, err := dirs.Config()
	if err != nil {
		return ""
	}
	return d
}

// folder is one place command files are read from, in precedence order.
type folder struct {
	dir, scope string
	// claude marks .claude/commands, whose model names (haiku, sonnet)
	// mean nothing to aci's server: their model key is not used.
	claude bool
}

// Load reads the commands of workdir: built-ins, the project's
// .aci/commands, .claude/commands, the person's commands in userDir
// (UserDir(); "" reads none), and the skills. A name found twice is the
// first folder's: the project's wins over the person's.
func Load(workdir, userDir string) *Set {
	set := &Set{}
	taken := map[string]string{}
	for _, b := range builtins() {
		set.Commands = append(set.Commands, b)
		taken[b.Name] = "built in"
	}
	reserved := map[string]bool{}
	for _, r := range Reserved {
		reserved[r] = true
	}
	folders := []folder{
		{dir: filepath.Join(workdir, ".aci", "commands"), scope: ScopeProject},
		{filepath.Join(workdir, ".claude", "commands"), ScopeProject, true},
	}
	if userDir != "" {
		folders = append(folders, folder{dir: filepath.Join(userDir, "commands"), scope: ScopeUser})
	}
	var files []Command
	for _, f := range folders {
		for _, c := range readFolder(f) {
			switch {
			case reserved[c.Name]:
				c.Problem = "a built-in command has this name: rename the file"
			case taken[c.Name] != "":
				set.Notes = append(set.Notes, fmt.Sprintf("%s: /%s is already %s", Shown(c.Path, workdir), c.Name, Shown(taken[c.Name], workdir)))
				continue
			}
			if taken[c.Name] == "" {
				taken[c.Name] = c.Path
			}
			files = append(files, c)
		}
	}
	sort.SliceStable(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	set.Commands = append(set.Commands, files...)
	skills, notes := LoadSkills(workdir, userDir)
	for _, n := range notes {
		set.Notes = append(set.Notes, n.Text)
	}
	for _, s := range skills {
		if reserved[s.Name] || taken[s.Name] != "" {
			set.Notes = append(set.Notes, fmt.Sprintf("skill %s (%s): /%s is already a command; the model can still open the skill", s.Name, Shown(s.Path, workdir), s.Name))
			continue
		}
		taken[s.Name] = s.Path
		set.Commands = append(set.Commands, s.command())
	}
	return set
}

// readFolder reads the .md files under dir, subfolders as namespaces.
func readFolder(f folder) []Command {
	var out []Command
	filepath.WalkDir(f.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a missing or unreadable folder has no commands
		}
		if d.IsDir() {
			if path != f.dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.EqualFold(filepath.Ext(path), ".md") {
			return nil
		}
		rel, _ := filepath.Rel(f.dir, path)
		name := strings.ToLower(strings.TrimSuffix(filepath.ToSlash(rel), filepath.Ext(rel)))
		name = strings.ReplaceAll(name, "/", ":")
		c := readCommand(path, name, f.scope)
		if f.claude {
			c.Model = ""
		}
		out = append(out, c)
		return nil
	})
	return out
}

// readCommand reads one command file; what is wrong with it goes in
// Problem, so that it is listed with the reason and not run.
func readCommand(path, name, scope string) Command {
	c := Command{Name: name, Scope: scope, Path: path}
	if !validName(name) {
		c.Problem = "the name may hold only letters, digits, - _ . and a folder's :"
		return c
	}
	text, err := readFile(path)
	if err != nil {
		c.Problem = err.Error()
		return c
	}
	keys, body, err := frontMatter(text)
	if err != nil {
		c.Problem = err.Error()
		return c
	}
	c.Description = oneLine(keys["description"])
	c.ArgumentHint = oneLine(keys["argument-hint"])
	c.Model = strings.TrimSpace(keys["model"])
	c.body = body
	if c.Description == "" {
		c.Description = firstLine(body)
	}
	if err := checkPlaceholders(body); err != nil {
		c.Problem = err.Error()
	}
	return c
}

func readFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("cannot read: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return "", fmt.Errorf("cannot read: %w", err)
	}
	if len(data) > maxFileBytes {
		return "", fmt.Errorf("larger than %d KiB", maxFileBytes>>10)
	}
	return string(data), nil
}

func validName(name string) bool {
	if name == "" || strings.HasPrefix(name, ":") || strings.HasSuffix(name, ":") || strings.Contains(name, "::") {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':') {
			return false
		}
	}
	return true
}

// oneLine makes a front matter value fit one line of a list.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// firstLine is a body's first line of text, as Claude Code describes a
// command without a description.
func firstLine(body string) string {
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#"))
		if l != "" {
			if r := []rune(l); len(r) > 80 {
				l = string(r[:79]) + "…"
			}
			return l
		}
	}
	return ""
}

// Lookup finds a runnable or listed command by name (without the slash).
func (s *Set) Lookup(name string) (Command, bool) {
	name = strings.ToLower(name)
	for _, c := range s.Commands {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// Parse splits "/name args" when the line names a command of the set. A
// line such as "/etc/hosts is wrong" or "/nothing-known" is a question, not
// a command: ok is false.
func (s *Set) Parse(line string) (c Command, args string, ok bool) {
	name, args, ok := Split(line)
	if !ok {
		return Command{}, "", false
	}
	c, ok = s.Lookup(name)
	return c, args, ok
}

// Split reads "/name rest" without knowing the commands: name is lowercase,
// rest trimmed (it may span lines).
func Split(line string) (name, rest string, ok bool) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "/") {
		return "", "", false
	}
	end := strings.IndexAny(line, " \t\n")
	if end < 0 {
		end = len(line)
	}
	name = strings.ToLower(line[1:end])
	if !validName(name) {
		return "", "", false
	}
	return name, strings.TrimSpace(line[end:]), true
}

// Shown is path as a person reads it: relative to workdir inside it,
// under ~ inside the home folder.
func Shown(path, workdir string) string {
	if !filepath.IsAbs(path) {
		return path
	}
	if rel, err := filepath.Rel(workdir, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if rel, err := filepath.Rel(home, path); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join("~", rel)
		}
	}
	return path
}
