package guard

import "strings"

// Package managers: system packages, global installs, publishing to
// registries. Installs into the project stay free.

func rulePkg(subs ...string) guardRule {
	ss := nameSet(subs...)
	return func(c *cmdChecker, in *guardCall) string {
		for _, p := range positionalWords(in.args) {
			if ss[p] {
				return c.needsMachine("changes system packages (" + in.name + " " + p + ")")
			}
		}
		return ""
	}
}

func pubRule(subs ...string) guardRule {
	ss := nameSet(subs...)
	return func(c *cmdChecker, in *guardCall) string {
		if hasLitArg(in.args, "--dry-run", "-n") && in.name != "cargo" || hasLitArg(in.args, "--dry-run") {
			return ""
		}
		pos := positionalWords(in.args)
		for _, p := range pos {
			if ss[p] {
				return "publishes (" + in.name + " " + p + ")"
			}
		}
		return ""
	}
}

func npmGlobalFlag(args []shArg) bool {
	return hasLitArg(args, "-g", "--global", "--location=global") || func() bool {
		for i, a := range args {
			if a.val == "--location" && i+1 < len(args) && args[i+1].val == "global" {
				return true
			}
		}
		return false
	}()
}

func ruleNpm(c *cmdChecker, in *guardCall) string {
	if why := c.packageScriptsWhy(in); why != "" || c.found != nil {
		return why
	}
	pos := positionalWords(in.args)
	if len(pos) == 0 {
		return ""
	}
	switch pos[0] {
	case "publish", "unpublish", "deprecate", "dist-tag", "owner":
		if hasLitArg(in.args, "--dry-run") || pos[0] == "dist-tag" && (len(pos) < 2 || pos[1] == "ls") {
			return ""
		}
		return "publishes to the package registry"
	case "i", "install", "add", "un", "uninstall", "remove", "rm", "r", "update", "up", "upgrade", "link", "ln", "unlink":
		if npmGlobalFlag(in.args) {
			return c.needsMachine("installs packages globally")
		}
		for _, p := range pos[1:] {
			if remoteSpec(p) {
				return "installs code straight from a URL (" + p + ")"
			}
		}
	}
	return ""
}

func ruleBun(c *cmdChecker, in *guardCall) string {
	if why := c.packageScriptsWhy(in); why != "" || c.found != nil {
		return why
	}
	pos := positionalWords(in.args)
	if len(pos) > 0 && pos[0] == "publish" && !hasLitArg(in.args, "--dry-run") {
		return "publishes to the package registry"
	}
	if npmGlobalFlag(in.args) {
		return c.needsMachine("installs packages globally")
	}
	return ruleInterp(c, in)
}

func ruleYarn(c *cmdChecker, in *guardCall) string {
	if why := c.packageScriptsWhy(in); why != "" || c.found != nil {
		return why
	}
	pos := positionalWords(in.args)
	if len(pos) == 0 {
		return ""
	}
	switch {
	case pos[0] == "global" && len(pos) > 1 && pos[1] != "list" && pos[1] != "bin" && pos[1] != "dir":
		return c.needsMachine("installs packages globally")
	case pos[0] == "publish" || pos[0] == "npm" && len(pos) > 1 && pos[1] == "publish":
		return "publishes to the package registry"
	}
	return ""
}

func rulePip(c *cmdChecker, in *guardCall) string {
	if why := pipRemoteWhy(in); why != "" {
		return why
	}
	if why := pipConfigWhy(in); why != "" {
		return why
	}
	pos := positionalWords(in.args)
	if len(pos) == 0 || pos[0] != "install" && pos[0] != "uninstall" {
		return ""
	}
	for _, a := range in.args {
		switch {
		case a.val == "--user", a.val == "--break-system-packages":
			return c.needsMachine("installs packages outside a virtual environment")
		case a.val == "--target" || a.val == "-t" || a.val == "--prefix" || a.val == "--root" ||
			strings.HasPrefix(a.val, "--target=") || strings.HasPrefix(a.val, "--prefix=") || strings.HasPrefix(a.val, "--root="):
			return c.needsMachine("installs packages outside the workspace")
		}
	}
	return ""
}

func ruleGem(c *cmdChecker, in *guardCall) string {
	pos := positionalWords(in.args)
	if len(pos) == 0 {
		return ""
	}
	switch pos[0] {
	case "push", "yank", "owner":
		return "publishes to the package registry"
	case "install", "i", "uninstall", "update", "cleanup":
		if hasLitArg(in.args, "--user-install") {
			return ""
		}
		return "installs gems system-wide"
	}
	return ""
}

func rulePacman(c *cmdChecker, in *guardCall) string {
	for _, a := range in.args {
		v := a.val
		if strings.HasPrefix(v, "-S") || strings.HasPrefix(v, "--sync") {
			if strings.ContainsAny(v[2:], "sigl") && !strings.ContainsAny(v[2:], "uy") {
				continue // search and info queries
			}
			return c.needsMachine("changes system packages")
		}
		if strings.HasPrefix(v, "-R") || strings.HasPrefix(v, "-U") || v == "--remove" || v == "--upgrade" {
			return c.needsMachine("changes system packages")
		}
	}
	return ""
}

func ruleEmerge(c *cmdChecker, in *guardCall) string {
	if hasLitArg(in.args, "-p", "--pretend", "-s", "--search", "-S", "--searchdesc", "--info") {
		return ""
	}
	return c.needsMachine("changes system packages")
}

func ruleNixEnv(c *cmdChecker, in *guardCall) string {
	for _, a := range in.args {
		if a.val == "-i" || a.val == "--install" || a.val == "-e" || a.val == "--uninstall" || a.val == "-u" || a.val == "--upgrade" {
			return "changes installed packages"
		}
	}
	return ""
}

func ruleDotnet(c *cmdChecker, in *guardCall) string {
	pos := positionalWords(in.args)
	if len(pos) >= 2 && pos[0] == "nuget" && (pos[1] == "push" || pos[1] == "delete") {
		return "publishes to the package registry"
	}
	if len(pos) >= 2 && pos[0] == "tool" && pos[1] == "install" && npmGlobalFlag(in.args) {
		return "installs tools globally"
	}
	return ""
}
