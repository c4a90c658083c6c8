package guard

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/aci-dev/aci/tools/gitconf"
)

// Commands that change state somewhere else: clusters, clouds, deploys,
// databases, where a mistake cannot be undone from the workspace. Reading
// that state (get, list, describe, plan) stays silent.

// verbRule flags a command when its first positional word (after skipping
// the given option words that take values) is one of verbs.
func verbRule(what string, verbs ...string) guardRule {
	vs := nameSet(verbs...)
	return func(c *cmdChecker, in *guardCall) string {
		if dryRun(in.args) {
			return ""
		}
		pos := positionalWords(in.args)
		if len(pos) > 0 && vs[pos[0]] {
			return what + " (" + in.name + " " + pos[0] + ")"
		}
		return ""
	}
}

// dryRun reports a flag that makes a command only preview its change.
func dryRun(args []shArg) bool {
	for _, a := range args {
		v := a.val
		if v == "--dry-run" || strings.HasPrefix(v, "--dry-run=") && v != "--dry-run=none" || v == "--dryrun" || v == "--what-if" {
			return true
		}
	}
	return false
}

var kubectlVerbs = sync.OnceValue(func() map[string]bool {
	return nameSet("apply", "create", "delete", "replace", "patch", "edit", "scale", "rollout",
		"set", "label", "annotate", "drain", "cordon", "uncordon", "taint", "exec", "run", "expose",
		"autoscale", "cp", "attach", "debug", "certificate")
})

func ruleKubectl(c *cmdChecker, in *guardCall) string {
	if dryRun(in.args) {
		return ""
	}
	var pos []string
	for i := 0; i < len(in.args); i++ {
		v := in.args[i].val
		switch {
		case v == "-n" || v == "--namespace" || v == "--context" || v == "--kubeconfig" || v == "--cluster" ||
			v == "--user" || v == "-s" || v == "--server" || v == "-l" || v == "-o" || v == "-c":
			i++
		case !strings.HasPrefix(v, "-"):
			pos = append(pos, v)
		}
	}
	if len(pos) == 0 || !kubectlVerbs()[pos[0]] {
		return ""
	}
	if pos[0] == "rollout" && len(pos) > 1 && (pos[1] == "status" || pos[1] == "history") {
		return ""
	}
	return "changes cluster state (" + in.name + " " + pos[0] + ")"
}

func ruleTerraform(c *cmdChecker, in *guardCall) string {
	pos := positionalWords(in.args)
	if len(pos) == 0 {
		return ""
	}
	switch pos[0] {
	case "destroy":
		return "destroys infrastructure"
	case "apply", "import", "taint", "untaint", "refresh":
		return "changes infrastructure (" + in.name + " " + pos[0] + ")"
	case "state":
		if len(pos) > 1 && (pos[1] == "rm" || pos[1] == "push" || pos[1] == "mv" || pos[1] == "replace-provider") {
			return "rewrites infrastructure state"
		}
	case "workspace":
		if len(pos) > 1 && pos[1] == "delete" {
			return "deletes infrastructure state"
		}
	case "force-unlock":
		return "forces a state unlock"
	}
	return ""
}

// cloudMutating are verb prefixes of cloud CLIs' operations that change
// resources (aws ec2 run-instances, gcloud run deploy, az vm delete).
var cloudMutating = []string{"create", "delete", "deploy", "update", "put-", "terminate", "stop",
	"start", "run-", "modify", "attach", "detach", "associate", "disassociate", "remove", "reboot",
	"deregister", "register", "invoke", "publish", "send-", "tag-", "untag", "import", "restore",
	"revoke", "authorize", "cancel", "enable", "disable", "reset", "rotate", "upload", "purge",
	"destroy", "resize", "rollback", "restart", "scale", "apply", "add-iam", "set-iam", "submit",
	"patch", "replace", "copy-", "move", "set-"}

func cloudVerb(op string) bool {
	for _, p := range cloudMutating {
		if strings.HasSuffix(p, "-") && strings.HasPrefix(op, p) ||
			!strings.HasSuffix(p, "-") && (op == p || strings.HasPrefix(op, p+"-")) {
			return true
		}
	}
	return false
}

func ruleAws(c *cmdChecker, in *guardCall) string {
	pos := positionalSkipping(in.args, "--profile", "--region", "--output", "--endpoint-url", "--query",
		"--ca-bundle", "--cli-read-timeout", "--cli-connect-timeout", "--color")
	if len(pos) < 2 || dryRun(in.args) {
		return ""
	}
	svc, op := pos[0], pos[1]
	switch svc {
	case "s3":
		switch op {
		case "rm", "rb", "mv":
			return "deletes cloud storage (aws s3 " + op + ")"
		case "cp", "sync", "mb":
			for _, p := range pos[2:] {
				if strings.HasPrefix(p, "s3://") && p == pos[len(pos)-1] {
					return "writes cloud storage (aws s3 " + op + ")"
				}
			}
		}
		return ""
	case "configure", "sso", "sts":
		return ""
	}
	if cloudVerb(op) {
		return "changes cloud resources (aws " + svc + " " + op + ")"
	}
	return ""
}

// positionalSkipping is positionalWords, skipping the values of opts.
func positionalSkipping(args []shArg, opts ...string) []string {
	skip := nameSet(opts...)
	var out []string
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case skip[v]:
			i++
		case args[i].ok && !strings.HasPrefix(v, "-"):
			out = append(out, v)
		}
	}
	return out
}

// ruleCloudWords flags gcloud and az when any command word is a mutating
// verb; their local configuration groups stay free.
func ruleCloudWords(c *cmdChecker, in *guardCall) string {
	pos := positionalWords(in.args)
	if len(pos) == 0 || dryRun(in.args) {
		return ""
	}
	switch pos[0] {
	case "config", "auth", "components", "login", "logout", "account", "init", "info", "version", "help":
		return ""
	}
	for _, p := range pos {
		if cloudVerb(p) {
			return "changes cloud resources (" + in.name + " " + strings.Join(pos[:min(3, len(pos))], " ") + ")"
		}
	}
	return ""
}

// ruleDeploy flags hosting CLIs that deploy or destroy; bare vercel
// deploys. Local development verbs stay free.
func ruleDeploy(c *cmdChecker, in *guardCall) string {
	pos := positionalWords(in.args)
	local := nameSet("dev", "build", "login", "logout", "whoami", "link", "pull", "ls", "list",
		"inspect", "logs", "status", "open", "init", "help", "version", "doctor", "auth", "info",
		"apps", "history", "releases", "config", "env", "orgs", "regions", "platform", "docs", "ps",
		"emulators", "serve", "tail", "whoami", "use", "projects:list", "functions:log")
	if len(pos) == 0 {
		if in.name == "vercel" {
			return "deploys to production hosting (vercel)"
		}
		return ""
	}
	verb := pos[0]
	if base, sub, ok := strings.Cut(verb, ":"); ok { // heroku apps:destroy, netlify sites:delete
		verb = sub
		if local[base] && !nameSet("destroy", "delete", "remove", "rm", "reset", "purge", "set", "unset",
			"add", "create", "deploy", "promote", "rollback", "restart", "scale", "stop", "transfer")[sub] {
			return "" // firebase emulators:start, heroku apps:info
		}
	}
	switch {
	case verb == "env" && len(pos) > 1 && pos[1] != "pull" && pos[1] != "ls" && pos[1] != "list",
		verb == "secrets" && len(pos) > 1 && pos[1] != "list",
		verb == "config" && len(pos) > 1 && (pos[1] == "set" || pos[1] == "unset"):
		return "changes deployed configuration (" + in.name + " " + verb + ")"
	case local[verb]:
		return ""
	case verb == "run" && in.name == "railway":
		return "" // railway run: a local command with the project's variables
	case verb == "launch", verb == "up", verb == "down", verb == "promote", verb == "alias", verb == "redeploy", verb == "run",
		verb == "pg" && len(pos) > 1, cloudVerb(verb):
		return "changes deployed services (" + in.name + " " + pos[0] + ")"
	}
	return ""
}

// Database resets by migration tools and frameworks.
var dbResetTasks = sync.OnceValue(func() map[string]bool {
	return nameSet("db:drop", "db:reset", "db:purge", "db:schema:load", "db:truncate_all",
		"db:wipe", "migrate:fresh", "migrate:reset", "migrate:refresh", "ecto.drop", "ecto.reset",
		"schema:drop", "flush", "reset_db", "sqlflush", "db:seed:replant", "db:migrate:reset")
})

// ruleDBTask flags rails/rake/artisan/mix/manage.py tasks that drop or
// empty a database.
func ruleDBTask(c *cmdChecker, in *guardCall) string {
	for _, p := range positionalWords(in.args) {
		if dbResetTasks()[p] {
			return "drops or empties a database (" + p + ")"
		}
	}
	return ""
}

func rulePrisma(c *cmdChecker, in *guardCall) string {
	pos := positionalWords(in.args)
	if len(pos) >= 2 && pos[0] == "migrate" && pos[1] == "reset" ||
		hasLitArg(in.args, "--force-reset", "--accept-data-loss") {
		return "drops or empties a database (prisma)"
	}
	return ""
}

// gitRemoteWhy judges git remote: pointing a remote at a host the
// repository does not already use redirects later pushes.
func (c *cmdChecker) gitRemoteWhy(ops []shArg) string {
	if len(ops) == 0 {
		return ""
	}
	var url shArg
	switch ops[0].val {
	case "set-url":
		if len(ops) < 3 {
			return ""
		}
		url = ops[len(ops)-1]
	case "add":
		if len(ops) < 3 {
			return ""
		}
		url = ops[2]
	default:
		return ""
	}
	if !url.ok {
		return "points a git remote at a URL it cannot resolve"
	}
	// The seal's rule for URLs a repository may keep (tools/gitconf): a
	// transport helper runs a program at the person's next fetch.
	if why := gitconf.URLWhy(url.val); why != "" {
		return "points a git remote at a URL that is no ordinary transport: " + why
	}
	hosts := c.gitRemoteHosts()
	if len(hosts) == 0 && ops[0].val == "add" {
		return "" // a fresh repository gets its first remote
	}
	h := gitURLHost(url.val)
	if h != "" && hosts[h] {
		return ""
	}
	return "points a git remote at another host (" + url.val + ")"
}

// gitRemoteHosts reads the hosts of the workspace repository's remotes.
func (c *cmdChecker) gitRemoteHosts() map[string]bool {
	if c.env.work == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(c.env.work, ".git", "config"))
	if err != nil {
		return nil
	}
	hosts := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if ok && strings.TrimSpace(k) == "url" {
			if h := gitURLHost(strings.TrimSpace(v)); h != "" {
				hosts[h] = true
			}
		}
	}
	return hosts
}

// gitURLHost is the host of https://host/x, ssh://u@host/x or u@host:x.
func gitURLHost(u string) string {
	if _, rest, ok := strings.Cut(u, "://"); ok {
		u = rest
		if i := strings.IndexByte(u, '/'); i >= 0 {
			u = u[:i]
		}
	} else if i := strings.IndexByte(u, ':'); i > 0 {
		u = u[:i]
	} else {
		return ""
	}
	if i := strings.LastIndexByte(u, '@'); i >= 0 {
		u = u[i+1:]
	}
	if i := strings.IndexByte(u, ':'); i >= 0 {
		u = u[:i]
	}
	return strings.ToLower(u)
}

// deployRemotes are git remote names that deploy on push.
var deployRemotes = sync.OnceValue(func() map[string]bool {
	return nameSet("heroku", "dokku", "production", "prod", "live", "deploy", "azure", "flynn", "piku")
})

// ruleTunnel flags tunnels that publish a local port on the internet.
func ruleTunnel(c *cmdChecker, in *guardCall) string {
	pos := positionalWords(in.args)
	if len(pos) == 0 {
		return ""
	}
	switch pos[0] {
	case "version", "help", "update", "login", "config", "authtoken", "--version":
		return ""
	}
	return "exposes a local service to the internet (" + in.name + ")"
}

// ruleSupabase: the local stack (start, stop, gen, migration new) is free;
// pushing to or resetting a linked project, deploying and secrets are not.
func ruleSupabase(c *cmdChecker, in *guardCall) string {
	pos := positionalWords(in.args)
	if len(pos) == 0 {
		return ""
	}
	two := pos[0]
	if len(pos) > 1 {
		two += " " + pos[1]
	}
	switch two {
	case "db push", "db reset", "functions deploy", "functions delete", "secrets set", "secrets unset",
		"projects delete", "branches delete", "storage rm", "migration repair", "migration squash":
		if two == "db reset" && !hasLitArg(in.args, "--linked") && !hasLitArg(in.args, "--db-url") {
			return "drops and recreates the local database (supabase db reset)"
		}
		return "changes a Supabase project (supabase " + two + ")"
	}
	return ""
}
