package guard

import (
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/aci-dev/aci/tools/secrets"
)

// Rules for processes, services, shell state, secrets in the environment
// and databases.

func ruleKill(c *cmdChecker, in *guardCall) string {
	var targets []shArg
	minusOne := false
	for i := 0; i < len(in.args); i++ {
		a := in.args[i]
		v := a.val
		switch {
		case a.ok && (v == "-l" || v == "-L" || v == "--list" || v == "--table"):
			return ""
		case a.ok && (v == "-s" || v == "-n" || v == "--signal") && len(targets) == 0:
			i++
		case a.ok && v == "--":
			targets = append(targets, in.args[i+1:]...)
			i = len(in.args)
		case a.ok && i == 0 && strings.HasPrefix(v, "-") && len(v) > 1:
			minusOne = v == "-1" // signal 1, or "every process" to a reader
		default:
			targets = append(targets, a)
		}
	}
	if len(targets) == 0 && minusOne || in.extra {
		return "kills processes broadly"
	}
	for _, t := range targets {
		v := t.val
		switch {
		case !t.ok:
			return "kills processes it cannot resolve"
		case strings.HasPrefix(v, "%"):
		case v == "-1":
			return "kills every process"
		case v == "1":
			return "kills init"
		case v == "0":
			return "kills its own process group"
		case strings.HasPrefix(v, "-"):
			return "kills a process group"
		case strings.Trim(v, "0123456789") != "":
			return "kills processes it cannot resolve"
		}
	}
	return ""
}

var systemctlReadOnly = sync.OnceValue(func() map[string]bool {
	return nameSet("status", "show", "cat", "list-units", "list-unit-files", "list-timers",
		"list-sockets", "list-dependencies", "list-jobs", "list-machines", "list-automounts", "list-paths",
		"is-active", "is-enabled", "is-failed", "is-system-running", "help", "get-default", "show-environment")
})

func ruleSystemctl(c *cmdChecker, in *guardCall) string {
	p := parseCmdArgs(in.args, "tpHMnoP", nameSet("--type", "--property", "--host", "--machine", "--lines", "--output", "--state"))
	if len(p.ops) == 0 || systemctlReadOnly()[p.ops[0].val] {
		return ""
	}
	return c.needsMachine("changes system services (systemctl " + p.ops[0].val + ")")
}

func ruleService(c *cmdChecker, in *guardCall) string {
	pos := positionalWords(in.args)
	if len(pos) < 2 || pos[1] == "status" {
		return ""
	}
	return c.needsMachine("changes system services (service " + pos[1] + ")")
}

func ruleCrontab(c *cmdChecker, in *guardCall) string {
	p := parseCmdArgs(in.args, "u", nil)
	if p.has("-l") && len(p.ops) == 0 {
		return ""
	}
	return "changes scheduled jobs (crontab)"
}

func ruleSysctl(c *cmdChecker, in *guardCall) string {
	for _, a := range in.args {
		if a.val == "-w" || a.val == "--write" || a.val == "-p" || a.val == "--load" || a.val == "--system" ||
			!strings.HasPrefix(a.val, "-") && strings.Contains(a.val, "=") {
			return "changes kernel settings"
		}
	}
	return ""
}

var launchctlReadOnly = sync.OnceValue(func() map[string]bool {
	return nameSet("list", "print", "print-disabled", "print-cache", "blame", "version",
		"help", "procinfo", "dumpstate", "managerpid", "manageruid", "managername", "error", "hostinfo")
})

func ruleLaunchctl(c *cmdChecker, in *guardCall) string {
	pos := positionalWords(in.args)
	if len(pos) == 0 || launchctlReadOnly()[pos[0]] {
		return ""
	}
	return c.needsMachine("changes system services (launchctl " + pos[0] + ")")
}

func ruleFirewall(c *cmdChecker, in *guardCall) string {
	pos := positionalWords(in.args)
	switch in.name {
	case "nft":
		if len(pos) == 0 || pos[0] == "list" {
			return ""
		}
		return "changes firewall rules"
	case "ufw":
		if len(pos) == 0 || pos[0] == "status" || pos[0] == "show" || pos[0] == "version" {
			return ""
		}
		return "changes firewall rules"
	}
	short := "ADIRFXPNZE" // iptables commands that change rules
	if in.name == "pfctl" {
		short = "defFkK"
	}
	for _, a := range in.args {
		v := a.val
		if strings.HasPrefix(v, "--") {
			for _, pre := range []string{"--append", "--delete", "--insert", "--replace", "--flush",
				"--policy", "--new-chain", "--zero", "--rename-chain", "--add", "--remove", "--set",
				"--reload", "--complete-reload", "--permanent", "--change", "--panic"} {
				if strings.HasPrefix(v, pre) {
					return "changes firewall rules"
				}
			}
			continue
		}
		if strings.HasPrefix(v, "-") && len(v) >= 2 && strings.IndexByte(short, v[1]) >= 0 {
			return "changes firewall rules"
		}
	}
	return ""
}

func ruleDate(c *cmdChecker, in *guardCall) string {
	for _, a := range in.args {
		v := a.val
		if v == "-s" || strings.HasPrefix(v, "--set") || len(v) >= 8 && strings.Trim(v, "0123456789.") == "" {
			return "sets the system clock"
		}
	}
	return ""
}

// printsOut reports whether the current command's output reaches the
// terminal (and so the model), directly or through a filter.
func (c *cmdChecker) printsOut() bool { return c.sink == "" || specOf(c.sink).printer }

func rulePrint(c *cmdChecker, in *guardCall) string {
	for _, a := range in.args {
		if a.secret && c.printsOut() {
			return "prints a secret environment variable"
		}
	}
	return ""
}

func rulePrintenv(c *cmdChecker, in *guardCall) string {
	for _, p := range positionalWords(in.args) {
		if secrets.IsCredentialVar(p) && c.printsOut() {
			return "prints a secret environment variable"
		}
	}
	return ""
}

// credWhy flags commands that print stored credentials.
func credWhy(in *guardCall, spec *cmdSpec) string {
	if spec.creds != nil && spec.creds(in) ||
		strings.HasPrefix(in.name, "docker-credential-") && hasLitArg(in.args, "get") {
		return "prints stored credentials"
	}
	return ""
}

// ruleVim judges editor commands that reach a shell (vim -c '!cmd').
func ruleVim(c *cmdChecker, in *guardCall) string {
	for i, a := range in.args {
		cmd := ""
		switch {
		case (a.val == "-c" || a.val == "--cmd") && i+1 < len(in.args):
			cmd = in.args[i+1].val
		case strings.HasPrefix(a.val, "+"):
			cmd = a.val[1:]
		default:
			continue
		}
		if strings.Contains(cmd, "system(") || strings.Contains(cmd, "systemlist(") {
			return "runs a shell command from the editor"
		}
		if _, sh, ok := strings.Cut(cmd, "!"); ok {
			c.nested(sh, in.node, false)
		}
	}
	return ""
}

// sqlInline collects the statements given on a database client's command
// line; has=false when it reads them from stdin.
func sqlInline(in *guardCall) (texts []shArg, has bool) {
	var flags map[string]bool
	switch in.name {
	case "psql":
		flags = nameSet("-c", "--command")
	case "mysql", "cqlsh", "cockroach":
		flags = nameSet("-e", "--execute")
	case "clickhouse-client", "clickhouse":
		flags = nameSet("-q", "--query")
	case "mongo", "mongosh":
		flags = nameSet("--eval")
	case "sqlcmd":
		flags = nameSet("-Q", "-q")
	case "duckdb":
		flags = nameSet("-c", "-cmd")
	case "sqlite3":
		flags = nameSet("-cmd")
	}
	var pos []shArg
	for i := 0; i < len(in.args); i++ {
		a := in.args[i]
		v := a.val
		name, val, eq := strings.Cut(v, "=")
		switch {
		case a.ok && flags[v] && i+1 < len(in.args):
			i++
			texts = append(texts, in.args[i])
		case a.ok && eq && flags[name]:
			texts = append(texts, shArg{val: val, ok: true})
		case a.ok && len(v) > 2 && flags[v[:2]] && !strings.HasPrefix(v, "--"):
			texts = append(texts, shArg{val: v[2:], ok: true})
		case a.ok && (in.name == "sqlite3" || in.name == "duckdb") && (v == "-separator" || v == "-newline" || v == "-nullvalue" || v == "-init"):
			i++
		case a.ok && in.name == "redis-cli" && len(v) == 2 && strings.Contains("-h-p-a-n-u-s-r-i", v):
			i++
		case !a.ok || !strings.HasPrefix(v, "-"):
			pos = append(pos, a)
		}
	}
	switch in.name {
	case "sqlite3", "duckdb":
		if len(pos) > 1 {
			texts = append(texts, pos[1:]...)
		}
	case "redis-cli":
		if len(pos) > 0 {
			texts = append(texts, pos...)
		}
	}
	return texts, len(texts) > 0 || in.name == "redis-cli" && len(pos) > 0
}

func ruleSQL(c *cmdChecker, in *guardCall) string {
	texts, _ := sqlInline(in)
	for _, t := range texts {
		if !t.ok {
			return "runs SQL it cannot resolve"
		}
		if why := sqlWhy(t.val); why != "" {
			return why
		}
		if c.sqlEscapesWhy(t.val, argAnchor(t, in)); c.found != nil {
			return ""
		}
	}
	return ""
}

// sqlWhy flags statements that drop or empty data.
func sqlWhy(text string) string {
	if sqlDrop.MatchString(text) {
		return "drops or empties database data"
	}
	if mongoWipe.MatchString(text) {
		return "deletes every document"
	}
	for _, st := range strings.Split(text, ";") {
		if sqlDelete.MatchString(st) && !sqlWhere.MatchString(st) {
			return "deletes or updates every row (no WHERE)"
		}
	}
	return ""
}

// isForkBomb reports a function that runs itself in a pipeline or in the
// background, multiplying processes until the machine stalls.
func isForkBomb(name string, body *syntax.Stmt) bool {
	calls := func(s *syntax.Stmt) bool {
		if s == nil {
			return false
		}
		ce, ok := s.Cmd.(*syntax.CallExpr)
		return ok && len(ce.Args) > 0 && ce.Args[0].Lit() == name
	}
	found := false
	syntax.Walk(body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			if n.Background && calls(n) {
				found = true
			}
		case *syntax.BinaryCmd:
			if (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && (calls(n.X) || calls(n.Y)) {
				found = true
			}
		}
		return !found
	})
	return found
}
