package guard

import (
	"path/filepath"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/aci-dev/aci/tools/secrets"
)

// Data leaving the machine. A network tool whose arguments (URL, header,
// body, DNS name) carry a command's output or a secret variable sends
// local data, whatever the transport; talking to this machine's own
// servers stays free.

// netOutputOpts name files a tool writes locally: a substitution there
// names a file, it is not sent.
var netOutputOpts = sync.OnceValue(func() map[string]bool {
	return nameSet("-o", "--output", "-O", "--output-document", "-P", "--directory-prefix",
		"--output-dir", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii", "--stderr")
})

// egressWhy judges what a network tool's arguments carry.
func (c *cmdChecker) egressWhy(in *guardCall, spec *cmdSpec) string {
	if !spec.net || c.remote {
		return ""
	}
	var hosts []string
	for _, a := range in.args {
		if a.ok && !strings.HasPrefix(a.val, "-") && reTarget.MatchString(a.val) {
			hosts = append(hosts, a.val)
		}
	}
	if len(hosts) > 0 && allLoopback(hosts) {
		return ""
	}
	if m := httpMethod(in.args); m == "DELETE" || m == "PUT" || m == "PATCH" {
		return "changes remote state through an HTTP API (" + m + ")"
	}
	for i, a := range in.args {
		if i > 0 && netOutputOpts()[in.args[i-1].val] {
			continue
		}
		if authArg(in.args, i) && (a.word == nil || c.credentialFitsHost(c.text(a.word), hosts)) {
			continue // credentials for the API being called, as intended
		}
		if a.secret {
			return "sends a secret environment variable over the network"
		}
		if a.word != nil && hasCmdSubst(a.word) && (dnsTools()[in.name] || !c.harmlessSubst(a.word)) {
			return "sends a command's output over the network"
		}
	}
	return ""
}

// reTarget matches what looks like a URL or a host (not a method or a body).
var reTarget = lazyRegexp(`^([a-zA-Z][\w+.-]*://|[\w.-]*@)?(localhost|\[[0-9a-fA-F:]+\]|[\w-]+(\.[\w-]+)+)(:\d+)?([/?#].*)?$`)

// allLoopback reports that every URL or host names this machine.
func allLoopback(targets []string) bool {
	if len(targets) == 0 {
		return false
	}
	for _, t := range targets {
		h := t
		if _, rest, ok := strings.Cut(h, "://"); ok {
			h = rest
		}
		if i := strings.IndexAny(h, "/?#"); i >= 0 {
			h = h[:i]
		}
		if i := strings.LastIndexByte(h, '@'); i >= 0 {
			h = h[i+1:]
		}
		if strings.HasPrefix(h, "[") {
			h, _, _ = strings.Cut(h[1:], "]")
		} else if i := strings.LastIndexByte(h, ':'); i >= 0 && strings.Count(h, ":") == 1 {
			h = h[:i]
		}
		h = strings.ToLower(h)
		switch {
		case h == "localhost", strings.HasSuffix(h, ".localhost"), strings.HasPrefix(h, "127."),
			h == "::1", h == "0.0.0.0", h == "host.docker.internal":
		default:
			return false
		}
	}
	return true
}

// secretNameArg reports an argument naming a project secret file by its
// name: .env (not .env.example), private keys, credential files.
func (c *cmdChecker) secretNameArg(a shArg) string {
	if !a.ok || a.glob {
		return ""
	}
	v := argPath(a.val)
	if v == "" || strings.HasPrefix(v, "-") || strings.Contains(v, "://") || strings.ContainsAny(v, " =:") {
		return ""
	}
	p := c.abs(v)
	if p == "" {
		return ""
	}
	p = c.viaLinks(p)
	for _, q := range []string{p, c.env.real(p, true)} {
		if why := nameSecretWhy(q, filepath.Base(q)); why != "" {
			return why
		}
	}
	return ""
}

// netStdinText judges literal text (a here-document) given to a network
// tool: commands for a remote shell, or sftp's put.
func (c *cmdChecker) netStdinText(name, text string, anchor syntax.Node) {
	switch name {
	case "ssh":
		c.nested(text, anchor, true)
	case "sftp", "ftp", "lftp", "smbclient":
		for _, line := range strings.Split(text, "\n") {
			f := strings.Fields(line)
			if len(f) > 0 && (f[0] == "put" || f[0] == "mput" || f[0] == "reput" || f[0] == "mirror" && strings.Contains(line, "-R")) {
				c.flag(anchor, "sends local files to a remote host")
				return
			}
		}
	}
}

// authArg reports that args[i] is a credential given to the server being
// called: an Authorization header, curl -u, --oauth2-bearer.
func authArg(args []shArg, i int) bool {
	v := args[i].val
	prev := ""
	if i > 0 {
		prev = args[i-1].val
	}
	if h, ok := strings.CutPrefix(v, "--header="); ok {
		prev, v = "--header", h
	}
	switch prev {
	case "-H", "--header":
		name, _, _ := strings.Cut(v, ":")
		switch strings.ToLower(strings.Trim(name, "\"' \t")) {
		case "authorization", "proxy-authorization", "private-token", "x-api-key", "api-key", "x-auth-token":
			return true
		}
	case "-u", "--user", "--oauth2-bearer", "--http-password", "--password", "--auth":
		return true
	}
	return false
}

// dnsTools resolve names: a substitution in a name is the classic way to
// smuggle data out through DNS.
var dnsTools = sync.OnceValue(func() map[string]bool {
	return nameSet("dig", "nslookup", "host", "drill", "delv", "kdig", "ping", "ping6", "traceroute", "resolvectl", "getent")
})

// harmlessValues print values that say nothing about the machine's files
// or secrets: a timestamp, a commit, a JSON body built from literals.
var harmlessValues = sync.OnceValue(func() map[string]bool {
	return nameSet("date", "uuidgen", "seq", "expr", "basename", "dirname", "git", "jq",
		"printf", "echo", "wc", "sha256sum", "sha1sum", "md5sum", "tr", "cut", "sed", "awk", "head", "tail",
		"xargs", "node", "python", "uname", "nproc", "openssl")
})

// harmlessSubst reports that every command inside w's substitutions only
// computes a value (date, git rev-parse, jq -n) and reads no file other
// than through a filter of such a value.
func (c *cmdChecker) harmlessSubst(w *syntax.Word) bool {
	ok := true
	syntax.Walk(w, func(n syntax.Node) bool {
		if !ok {
			return false
		}
		switch n := n.(type) {
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				return true
			}
			in := c.effective(n)
			if !harmlessValues()[in.name] || c.refsSecret(n.Args[len(n.Args)-1].Parts) {
				ok = false
				return false
			}
			// Filters are fine on a piped value, not on a named file: count
			// the operands each takes before its files.
			ops := len(cmdOperands(in.args))
			switch in.name {
			case "sed", "awk":
				ok = ops <= 1
			case "jq":
				ok = jqOperands(in.args) <= 1
			case "tr":
				ok = ops <= 2
			case "head", "tail", "cut", "wc", "sha256sum", "sha1sum", "md5sum":
				ok = ops == 0
			case "node", "python", "openssl":
				ok = in.name == "openssl" && hasLitArg(in.args, "rand")
			case "git":
				pos := positionalWords(in.args)
				ok = len(pos) > 0 && (pos[0] == "rev-parse" || pos[0] == "describe" || pos[0] == "branch" || pos[0] == "log" || pos[0] == "symbolic-ref")
			}
		case *syntax.ParamExp:
			if n.Param != nil && secrets.IsCredentialVar(n.Param.Value) {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// jqOperands counts jq's filter and files, skipping --arg name value;
// --rawfile and --slurpfile read files, which count as many.
func jqOperands(args []shArg) int {
	n := 0
	for i := 0; i < len(args); i++ {
		switch v := args[i].val; {
		case v == "--arg" || v == "--argjson":
			i += 2
		case v == "--rawfile" || v == "--slurpfile" || v == "-f" || v == "--from-file":
			return 99
		case !strings.HasPrefix(v, "-"):
			n++
		}
	}
	return n
}

// httpMethod is the method curl -X, wget --method or httpie's first word
// asks for, upper-cased; "" when none is given.
func httpMethod(args []shArg) string {
	for i, a := range args {
		v := a.val
		switch {
		case (v == "-X" || v == "--request" || v == "--method") && i+1 < len(args):
			return strings.ToUpper(args[i+1].val)
		case strings.HasPrefix(v, "--request=") || strings.HasPrefix(v, "--method="):
			_, m, _ := strings.Cut(v, "=")
			return strings.ToUpper(m)
		case strings.HasPrefix(v, "-X") && len(v) > 2:
			return strings.ToUpper(v[2:])
		}
	}
	if len(args) > 0 {
		switch m := args[0].val; m {
		case "DELETE", "PUT", "PATCH", "delete", "put", "patch":
			return strings.ToUpper(m) // http DELETE example.com/x
		}
	}
	return ""
}

// serviceHosts maps the first word of a credential variable to the host
// its service lives at: $GITHUB_TOKEN belongs to github.com.
var serviceHosts = map[string]string{"github": "github", "gh": "github", "gitlab": "gitlab",
	"openai": "openai", "anthropic": "anthropic", "stripe": "stripe", "slack": "slack",
	"npm": "npmjs", "pypi": "pypi", "docker": "docker", "dockerhub": "docker", "heroku": "heroku",
	"vercel": "vercel", "netlify": "netlify", "cloudflare": "cloudflare", "cf": "cloudflare",
	"sentry": "sentry", "twilio": "twilio", "sendgrid": "sendgrid", "hf": "huggingface",
	"huggingface": "huggingface", "discord": "discord", "telegram": "telegram", "linear": "linear",
	"notion": "notion", "aws": "amazonaws", "fly": "fly", "supabase": "supabase", "datadog": "datadog",
	"dd": "datadog", "circleci": "circleci", "jira": "atlassian", "atlassian": "atlassian"}

var reVarRef = lazyRegexp(`\$\{?([A-Za-z_][A-Za-z0-9_]*)`)

// credentialFitsHost reports that every credential variable in text goes
// to its own service (or to a host the guard cannot tell apart):
// $GITHUB_TOKEN only to GitHub, $OPENAI_API_KEY only to OpenAI.
func (c *cmdChecker) credentialFitsHost(text string, hosts []string) bool {
	for _, m := range reVarRef.FindAllStringSubmatch(text, -1) {
		name := m[1]
		first, _, _ := strings.Cut(strings.ToLower(name), "_")
		want, known := serviceHosts[first]
		if !known {
			continue
		}
		for _, h := range hosts {
			if !strings.Contains(strings.ToLower(h), want) {
				return false
			}
		}
	}
	return true
}
