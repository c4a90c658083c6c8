package guard

import (
	"strings"
	"sync"
)

// Git configuration keys whose value git runs as a command. Setting one
// (git config, git -c, --config-env, GIT_CONFIG_KEY_n) plants a command
// that a later, harmless-looking git status or git log runs.

// gitCommandKey reports whether git runs the value of key (lower-cased).
func gitCommandKey(key string) bool {
	switch key {
	case "core.pager", "core.editor", "core.sshcommand", "core.fsmonitor", "core.hookspath",
		"core.askpass", "core.gitproxy", "sequence.editor", "diff.external", "credential.helper",
		"gpg.program", "uploadpack.packobjectshook", "include.path", "web.browser",
		"sendemail.sendmailcmd", "sendemail.tocmd", "sendemail.cccmd", "sendemail.smtpserver":
		return true
	}
	first, _, _ := strings.Cut(key, ".")
	last := key[strings.LastIndexByte(key, '.')+1:]
	switch first {
	case "alias", "pager", "includeif":
		return true
	case "filter":
		return last == "clean" || last == "smudge" || last == "process"
	case "diff":
		return last == "command" || last == "textconv"
	case "merge":
		return last == "driver"
	case "mergetool", "difftool", "browser", "man", "gpg":
		return last == "cmd" || last == "path" || last == "program"
	case "remote":
		return last == "uploadpack" || last == "receivepack" || last == "proxy" && false
	case "credential":
		return last == "helper"
	case "protocol":
		return strings.HasPrefix(key, "protocol.ext.") || key == "protocol.allow"
	}
	return false
}

// gitSafeValues are programs and values that are fine to set as pagers,
// editors, helpers and the like.
var gitSafeValues = sync.OnceValue(func() map[string]bool {
	return nameSet("less", "more", "cat", "most", "delta", "diff-so-fancy", "bat",
		"vim", "vi", "nvim", "nano", "emacs", "code", "subl", "true", "false", "0", "1", "yes", "no",
		"store", "cache", "manager", "manager-core", "osxkeychain", "libsecret", "wincred", "ssh",
		"gpg", "gpg2", "never", "user", "")
})

// gitConfigWhy judges setting key to val (val.ok=false: unknown, as with
// --config-env). where says how it is set, for the reason.
func (c *cmdChecker) gitConfigWhy(key string, val shArg) string {
	key = strings.ToLower(strings.TrimSpace(key))
	if strings.HasPrefix(key, "remote.") && (strings.HasSuffix(key, ".url") || strings.HasSuffix(key, ".pushurl")) {
		return c.gitRemoteWhy([]shArg{litArg("set-url"), litArg(key), val})
	}
	if why := gitHistoryKeyWhy(key, val); why != "" {
		return why
	}
	if !gitCommandKey(key) {
		return ""
	}
	why := "makes git run a command (" + key + ")"
	if !val.ok {
		return why
	}
	v := strings.TrimSpace(val.val)
	first, _, _ := strings.Cut(key, ".")
	switch {
	case key == "core.hookspath":
		// The repository's own hooks folder (husky, .githooks) is fine.
		if p := c.abs(v); p != "" && c.env.zoneOf(c.env.real(p, true)) == zoneWork {
			return ""
		}
		return "points git hooks outside the workspace (" + key + ")"
	case first == "alias":
		if strings.HasPrefix(v, "!") {
			return why
		}
		return ""
	case key == "core.fsmonitor" && (v == "true" || v == "false"):
		return ""
	case strings.HasPrefix(key, "protocol."):
		if v == "always" || v == "user" {
			return "enables git's ext:: transport, which runs commands"
		}
		return ""
	}
	if strings.ContainsAny(v, "!;|&$`<>(){}\n") {
		return why
	}
	f := strings.Fields(v)
	if len(f) == 0 || gitSafeValues()[f[0]] {
		return ""
	}
	return why
}

// gitConfigSet judges `git config ...`: what it sets, and whether it changes
// the global configuration.
func (c *cmdChecker) gitConfigSet(rest []shArg, p parsedArgs) string {
	for _, ro := range []string{"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l",
		"--get-color", "--get-colorbool", "--unset", "--unset-all", "--remove-section", "--rename-section"} {
		if p.has(ro) {
			return gitConfig(rest, p)
		}
	}
	ops := p.ops
	if len(ops) > 0 && ops[0].ok {
		switch ops[0].val {
		case "get", "list", "unset", "remove-section", "rename-section", "edit":
			return gitConfig(rest, p)
		case "set":
			ops = ops[1:]
		}
	}
	if len(ops) >= 2 {
		if !ops[0].ok {
			return "sets git configuration it cannot resolve"
		}
		if why := c.gitConfigWhy(ops[0].val, ops[1]); why != "" {
			return why
		}
	}
	return gitConfig(rest, p)
}

// gitEnvConfigWhy judges GIT_CONFIG_KEY_n / GIT_CONFIG_PARAMETERS
// assignments, which set configuration for one git run.
func (c *cmdChecker) gitEnvConfigWhy(name, val string, known bool) string {
	switch {
	case name == "GIT_CONFIG_PARAMETERS":
		if !known {
			return "sets git configuration it cannot resolve"
		}
		for _, f := range strings.Fields(strings.NewReplacer("'", " ", `"`, " ").Replace(val)) {
			k, v, _ := strings.Cut(f, "=")
			if why := c.gitConfigWhy(k, shArg{val: v, ok: false}); why != "" {
				return why
			}
		}
	case strings.HasPrefix(name, "GIT_CONFIG_KEY_"):
		if !known {
			return "sets git configuration it cannot resolve"
		}
		if gitCommandKey(strings.ToLower(val)) && !strings.EqualFold(val, "core.hookspath") {
			return "makes git run a command (" + strings.ToLower(val) + ")"
		}
	}
	return ""
}

// gitHistoryKeyWhy judges settings that make routine maintenance (git gc,
// run by git itself now and then) destroy unreachable history: early
// expiry of unreachable objects and reflogs, or no reflog at all.
func gitHistoryKeyWhy(key string, val shArg) string {
	switch key {
	case "gc.pruneexpire", "gc.reflogexpire", "gc.reflogexpireunreachable":
		if !val.ok || expiresSoon(val.val) {
			return "makes git gc drop unreachable history early (" + key + ")"
		}
	case "core.logallrefupdates":
		if !val.ok || strings.EqualFold(strings.TrimSpace(val.val), "false") {
			return "stops git keeping the reflog that recovers lost commits (" + key + ")"
		}
	}
	return ""
}
