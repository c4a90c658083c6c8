package commands

import (
	"fmt"
	"strings"
)

// builtins are the prompt commands aci brings: /init and /review.
func builtins() []Command {
	return []Command{
		{Name: "init", Scope: ScopeBuiltin, Description: "study the project and write or update AGENTS.md",
			expand: initPrompt},
		{Name: "review", Scope: ScopeBuiltin, ArgumentHint: "[TARGET]", ReadOnly: true,
			Description: "review the uncommitted changes (or a branch, a commit, a range): findings by file and line, nothing changed",
			expand:      reviewPrompt},
	}
}

func initPrompt(args string) string {
	p := `Study this project and write AGENTS.md at the root of the working directory: the instructions a coding agent needs to work here well.

First look around: the folder layout, the build and package files, the README, the CI configuration, existing rule files (CLAUDE.md, .cursorrules, .github/copilot-instructions.md) and a few representative sources. Then write AGENTS.md, short and specific to this project:
- what the project is, in two or three lines;
- the commands to build, test (a single test too), lint and format it;
- the layout: where things live, what depends on what;
- the conventions of its code that are not obvious (naming, errors, tests, style);
- anything that surprises a newcomer.

Leave out what any developer knows and what the tools already enforce. If AGENTS.md already exists, open it and update it where it is out of date or incomplete, keeping what is still true and the author's wording; change nothing else in the project. Answer with a short summary of what you wrote.`
	if args = strings.TrimSpace(args); args != "" {
		p += "\n\nThe person adds: " + args
	}
	return p
}

func reviewPrompt(args string) string {
	target := strings.TrimSpace(args)
	var what string
	switch {
	case target == "":
		what = "the uncommitted changes in this git repository: staged, unstaged and untracked files (`git status --short`, `git diff HEAD`, and untracked files read whole)"
	case strings.Contains(target, ".."):
		what = fmt.Sprintf("the commit range %s (`git log --oneline %s`, `git diff %s`)", target, target, target)
	default:
		what = fmt.Sprintf("%s: if it is a branch, its changes since it left the current branch (`git log --oneline HEAD..%s`, `git diff HEAD...%s`); if it is a commit, that commit (`git show %s`)", target, target, target, target)
	}
	return `Review ` + what + `.

Read the changed code and enough of its surroundings to judge it. Look for bugs, wrong edge cases, races, security problems, missing error handling, missing or weak tests, and code that does not match the project's conventions. Do not report style nits the formatter fixes.

Change nothing: this is a review, and every file write or command that changes files is refused in this turn. Use only reading commands (git diff, git log, git show, cat, grep, ls).

Answer with the findings grouped by file, most serious first, each as one line:
` + "`path:line: [severity] what is wrong, and what to do`" + `
with severity one of blocker, major, minor, nit. End with a one-paragraph verdict. If you find nothing worth changing, say so.`
}
