package guard

import (
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Code fetched from the network and run at once, without a pinned version
// or a lock file: a package name typed once is trusted forever. Installs
// from the project's own manifests (npm install, pip install -r) stay free.

// remoteSpec reports a package spec that is a URL or a VCS address.
func remoteSpec(v string) bool {
	l := strings.ToLower(v)
	for _, p := range []string{"git+", "hg+", "svn+", "bzr+", "http://", "https://", "ftp://", "git://", "github:", "gitlab:", "bitbucket:"} {
		if strings.HasPrefix(l, p) || strings.Contains(l, "@"+p) || strings.Contains(l, " @ "+p) {
			return true
		}
	}
	return false
}

// pipRemoteWhy flags pip install from a URL or repository.
func pipRemoteWhy(in *guardCall) string {
	pos := positionalWords(in.args)
	if len(pos) == 0 || pos[0] != "install" {
		return ""
	}
	for _, p := range pos[1:] {
		if remoteSpec(p) {
			return "installs and runs code straight from a URL (" + p + ")"
		}
	}
	return ""
}

// wellKnownTools are runner targets common enough in projects that asking
// each time would only teach users to approve blindly.
var wellKnownTools = sync.OnceValue(func() map[string]bool {
	return nameSet("ruff", "black", "mypy", "pytest", "isort", "flake8", "pylint",
		"pre-commit", "tox", "nox", "hatch", "poetry", "build", "pyright", "coverage", "uv",
		"cookiecutter", "copier", "pip-tools", "pip-compile", "bandit", "yapf", "autopep8",
		"tsc", "typescript", "eslint", "prettier", "vite", "next", "nuxi", "jest", "vitest", "mocha",
		"prisma", "turbo", "nx", "storybook", "@angular/cli", "ng", "degit", "tsx", "ts-node", "playwright",
		"shadcn", "shadcn-ui", "serve", "http-server", "nodemon", "rimraf", "concurrently", "husky",
		"lint-staged", "drizzle-kit", "wrangler", "knip", "biome", "@biomejs/biome", "oxlint", "npm-check-updates")
})

// runnerWhy judges uvx / pipx run / npx-style runners: a tool that is not
// well known, fetched at its newest version, runs code nobody pinned.
func runnerWhy(runner string, rest []shArg) string {
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		v := a.val
		switch {
		case !a.ok:
			return "runs a package it cannot resolve, fetched from the registry"
		case v == "--from" || v == "--with" || v == "--spec" || v == "-p" || v == "--package" || v == "--python":
			if i+1 < len(rest) && (v == "--from" || v == "--spec" || v == "-p" || v == "--package") {
				if remoteSpec(rest[i+1].val) {
					return "runs code straight from a URL (" + rest[i+1].val + ")"
				}
			}
			i++
		case strings.HasPrefix(v, "-"):
		default:
			name, ver := v, ""
			if j := strings.LastIndexAny(v, "@="); j > 0 {
				name, ver = strings.TrimRight(v[:j], "="), v[j+1:]
			}
			switch {
			case remoteSpec(v):
				return "runs code straight from a URL (" + v + ")"
			case wellKnownTools()[name], strings.HasPrefix(name, "create-"), strings.HasPrefix(name, "@") && strings.Contains(name, "/create"):
				return ""
			case runner == "npx" && ver != "latest" && ver != "next":
				return "" // npx prefers the project's own node_modules
			case ver != "" && ver != "latest" && ver != "next":
				return "" // a pinned version
			}
			return "runs a package fetched from the registry without a pinned version (" + runner + " " + v + ")"
		}
	}
	return ""
}

// goRunWhy flags go run of a remote module at @latest.
func goRunWhy(in *guardCall) string {
	pos := positionalWords(in.args)
	if len(pos) < 2 || pos[0] != "run" {
		return ""
	}
	for _, p := range pos[1:] {
		if strings.HasSuffix(p, "@latest") || strings.HasSuffix(p, "@master") || strings.HasSuffix(p, "@main") {
			return "runs remote code at an unpinned version (" + p + ")"
		}
	}
	return ""
}

func ruleGo(c *cmdChecker, in *guardCall) string { return goRunWhy(in) }

func ruleUvx(c *cmdChecker, in *guardCall) string { return runnerWhy("uvx", in.args) }

func rulePipx(c *cmdChecker, in *guardCall) string {
	pos := positionalWords(in.args)
	if len(pos) == 0 {
		return ""
	}
	switch pos[0] {
	case "run":
		for i, a := range in.args {
			if a.val == "run" {
				return runnerWhy("pipx run", in.args[i+1:])
			}
		}
	case "install", "inject", "upgrade", "upgrade-all", "reinstall-all", "uninstall":
		for _, p := range pos[1:] {
			if remoteSpec(p) {
				return "installs code straight from a URL (" + p + ")"
			}
		}
	}
	return ""
}

// ruleDebugger runs the shell commands that gdb -ex and expect -c carry.
func ruleDebugger(c *cmdChecker, in *guardCall) string {
	for i := 0; i+1 < len(in.args); i++ {
		v := in.args[i].val
		if v != "-ex" && v != "--eval-command" && v != "-c" && v != "-iex" {
			continue
		}
		code := in.args[i+1]
		if !code.ok {
			return "runs debugger commands it cannot resolve"
		}
		for _, line := range strings.FieldsFunc(code.val, func(r rune) bool { return r == '\n' || r == ';' }) {
			line = strings.TrimSpace(line)
			for _, pre := range []string{"shell ", "!", "pipe ", "spawn ", "exec ", "system "} {
				if rest, ok := strings.CutPrefix(line, pre); ok {
					c.nested(rest, syntax.Node(in.node), false)
					if c.found != nil {
						return ""
					}
				}
			}
			if strings.HasPrefix(line, "python") || strings.HasPrefix(line, "source") {
				return "runs debugger scripts"
			}
		}
	}
	return ""
}
