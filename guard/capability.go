package guard

import (
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Judging interpreter code by what it can reach, not by how it spells it.
// codeWhy reads the direct calls it can (system("ls"), os.remove("x")) and
// judges their literal arguments. Everything else that names a
// process-spawning or file-deleting capability (an alias such as
// f = os.system, a name in a string such as ["execSync"] or
// getattr(os, "sys"+"tem"), a module bound to another name) is a call the
// guard cannot follow, so the code counts as dangerous.

// capTokens are names of capabilities that run commands or delete files.
var capTokens = sync.OnceValue(func() map[string]bool {
	return nameSet(
		// processes
		"system", "popen", "popen2", "popen3", "popen4", "Popen", "subprocess", "child_process",
		"execSync", "execFileSync", "execFile", "spawnSync", "spawn", "execv", "execve", "execvp",
		"execvpe", "execl", "execle", "execlp", "execlpe", "spawnv", "spawnve", "spawnvp", "spawnl",
		"spawnlp", "posix_spawn", "posix_spawnp", "shell_exec", "passthru", "proc_open", "pcntl_exec",
		"Open3", "capture2", "capture2e", "capture3", "getoutput", "getstatusoutput", "check_output",
		"check_call", "pty", "ProcessBuilder", "execa", "shelljs", "startProcess", "spawn_sync", "binding",
		// native calls, which reach everything
		"ctypes", "CDLL", "cdll", "ffi", "dlopen",
		// file deletion
		"unlink", "rmdir", "rmtree", "rmSync", "rmdirSync", "unlinkSync", "rm_rf", "rm_r", "remove_tree", "removedirs",
		"rimraf", "remove_entry", "remove_entry_secure")
})

// judgedCalls are the capability names codeWhy reads as direct calls and
// judges by their literal arguments; a direct call of any other
// capability (Open3.capture2, ctypes) cannot be judged.
var judgedCalls = sync.OnceValue(func() map[string]bool {
	return nameSet("system", "popen", "Popen", "execSync", "execFileSync", "execFile",
		"spawnSync", "spawn", "execv", "execve", "execvp", "execvpe", "execl", "execle", "execlp",
		"execlpe", "spawnv", "spawnve", "spawnvp", "spawnl", "spawnlp", "shell_exec", "passthru",
		"proc_open", "getoutput", "getstatusoutput", "check_output", "check_call", "rmtree", "rmSync",
		"rmdirSync", "unlinkSync", "rm_rf", "rm_r", "remove_tree", "removedirs", "rimraf", "unlink", "rmdir")
})

// reComputedWrite opens or writes a file whose path is computed from the
// home folder or the environment (open(os.path.expanduser("~/.bashrc"), "a")).
var reComputedWrite = lazyRegexp(`(?:open|writeFileSync|appendFileSync|writeFile|appendFile|write_text|fopen|file_put_contents|File\.write|IO\.write)\s*\(\s*[^'"),][^,]*(expanduser|environ|getenv|homedir|home\(\)|Dir\.home|ENV\[|\$HOME|HOME)[^,]*,\s*(['"][wa+x]|[^)]*(flag|mode)\s*[:=]\s*['"][wa])|(?:writeFileSync|appendFileSync|file_put_contents|write_text|File\.write)\s*\([^,)]*(expanduser|environ|getenv|homedir|Dir\.home|ENV\[|HOME)`)

// capModules may be named as a module (import subprocess, require("child_process"),
// subprocess.run): only other uses of them count.
var capModules = sync.OnceValue(func() map[string]bool {
	return nameSet("subprocess", "child_process", "pty", "Open3", "shelljs", "execa", "rimraf")
})

var (
	// reConcat joins string literals glued by + (Python, JS), . (PHP, Perl)
	// or adjacency, so 'sys'+'tem' reads as 'system'.
	reConcat = lazyRegexp(`(['"])\s*(?:\+|\.|\.\.|<<)?\s*(['"])`)
	// reImport are statements that only name a module.
	reImport = lazyRegexp(`\bimport\s+[\w.]+(?:\s*,\s*[\w.]+)*\s*(?:;|\n|$)|require\s*\(?\s*['"](?:node:)?[\w/.-]+['"]\s*\)?|\buse\s+[\w:]+\s*(?:qw\([^)]*\))?\s*;|from\s+['"](?:node:)?[\w/.-]+['"]`)
	// reDestructure binds names unchanged: const {execSync} = require(...).
	reDestructure = lazyRegexp(`\{[\w\s,]*\}\s*=\s*require`)
	// reDynamicSyntax calls by a computed name: __import__(x), require(x),
	// import(x), PHP's $f(), obj[k](). Word forms (getattr, send) are in
	// dynamicWords.
	reDynamicSyntax = lazyRegexp(`\b(?:__import__|require|import)\s*\(\s*[^'"\s)]|\$[A-Za-z_]\w*\s*\(|\[\s*[A-Za-z_]\w*\s*\]\s*\(|\bmethod\s*\(\s*:`)
	// reEnvAll reads the whole environment.
	reEnvAll = lazyRegexp(`os\.environ\b\s*[^\[.\s]|os\.environ\s*$|environ\.(copy|items)\b|dict\s*\(\s*os\.environ|process\.env\s*[^.\[\s]|process\.env\s*$|\bENV\.(to_h|to_a|each|map|inspect)\b|%ENV\b|\$_ENV\b|\$_SERVER\b|getenv\s*\(\s*\)|\bDeno\.env\.toObject`)
)

// capabilityWhy judges what code reaches beyond the direct calls codeWhy read.
func capabilityWhy(lang, code string) string {
	norm := code
	if strings.ContainsAny(code, "'\"") {
		norm = reConcat.ReplaceAllStringFunc(code, func(m string) string {
			if m[0] != m[len(m)-1] || len(m) == 2 {
				return m // "" or a quote pair that is not a join
			}
			return ""
		})
	}
	// The regular expressions below are costly; a set of the words in the
	// code decides cheaply which of them can match at all.
	words := map[string]bool{}
	forEachWord(norm, func(w string, _, _ int) bool { words[w] = true; return true })
	if why := directCapabilityWhy(lang, norm, words); why != "" {
		return why
	}
	return indirectCapabilityWhy(lang, norm, words)
}

// directCapabilityWhy judges the capabilities code names outright: the
// environment sent away, secret files, SDK deletions, SQL, and what each
// language's own ways reach.
func directCapabilityWhy(lang, norm string, words map[string]bool) string {
	hasAny := func(ws ...string) bool {
		for _, w := range ws {
			if words[w] {
				return true
			}
		}
		return false
	}
	if hasAny("environ", "env", "ENV", "getenv", "_ENV", "_SERVER", "toObject") && hasAny(netWords...) && reEnvAll.MatchString(norm) {
		return "sends the environment over the network"
	}
	if secretFragment(norm) {
		return "reads a secret file"
	}
	if hasAny(sdkWords...) && reSDKMutation.MatchString(norm) {
		return "changes remote state through an SDK"
	}
	if strings.ContainsAny(norm, "'\"`") {
		for _, lit := range codeStringLiterals(norm) {
			if why := sqlWhy(lit); why != "" {
				return why
			}
		}
	}
	if why := langCapabilityWhy(lang, norm); why != "" {
		return why
	}
	if hasAny("expanduser", "environ", "getenv", "homedir", "home", "HOME", "ENV") && reComputedWrite.MatchString(norm) {
		return "writes to a path computed from the home folder or the environment"
	}
	if hasAny(dangerousModules...) && (hasAny(dynamicWords...) || mayCallDynamically(norm, words) && reDynamicSyntax.MatchString(norm)) {
		return "calls functions by computed names in code that can run commands or delete files"
	}
	return ""
}

// langCapabilityWhy judges the capabilities of AppleScript, PowerShell,
// Deno, Bun and pty that run commands or change files.
func langCapabilityWhy(lang, norm string) string {
	if lang == "osascript" {
		l := strings.ToLower(norm)
		if strings.Contains(l, "do shell script") {
			return "runs shell commands through AppleScript"
		}
		if strings.Contains(l, "finder") && (strings.Contains(l, "delete") || strings.Contains(l, "move")) {
			return "deletes or moves files through the Finder"
		}
	}
	if (lang == "pwsh" || lang == "powershell") && rePowerShellCap.MatchString(norm) {
		return "runs commands or changes files through PowerShell"
	}
	for _, api := range []string{"Deno.Command", "Deno.run(", "Deno.remove", "Bun.$", "Bun.write("} {
		if strings.Contains(norm, api) {
			return "reaches " + strings.TrimRight(api, "(") + ", which the guard cannot follow"
		}
	}
	if strings.Contains(norm, "pty.spawn") || strings.Contains(norm, "pty.fork") {
		return "opens an interactive shell"
	}
	return ""
}

// indirectCapabilityWhy finds a capable name (os, subprocess…) used in a
// way the guard cannot follow: an alias, a string or a computed name.
func indirectCapabilityWhy(lang, norm string, words map[string]bool) string {
	found := false
	for w := range words {
		found = found || capTokens()[w]
	}
	if !found {
		return ""
	}
	stripped := reImport.ReplaceAllString(norm, " ")
	if strings.Contains(stripped, "require") && reDestructure.MatchString(stripped) {
		stripped = reDestructure.ReplaceAllString(stripped, " ")
	}
	why := ""
	forEachWord(stripped, func(tok string, i, j int) bool {
		if capTokens()[tok] && (indirectUse(lang, stripped, i, j, capModules()[tok]) || !judgedCalls()[tok] && !capModules()[tok]) {
			why = "reaches " + tok + " in a way the guard cannot follow (an alias, a string or a computed name)"
			return false
		}
		return true
	})
	return why
}

// mayCallDynamically is a cheap test for what reDynamicSyntax matches.
func mayCallDynamically(s string, words map[string]bool) bool {
	return words["__import__"] || words["require"] || words["import"] || words["method"] ||
		strings.Contains(s, "](") || strings.Contains(s, "] (") || strings.Contains(s, "$") && strings.Contains(s, "(")
}

// rePowerShellCap names PowerShell commands that run programs, fetch code
// or change files.
var rePowerShellCap = lazyRegexp(`(?i)\b(Remove-Item|rmdir|del|ri|Invoke-Expression|iex|Start-Process|saps|Invoke-WebRequest|iwr|Invoke-RestMethod|irm|Set-Content|Out-File|Add-Content|Copy-Item|Move-Item)\b|(?i)(^|[;|]\s*)rm\s`)

// sdkWords name client libraries of remote services and databases.
var sdkWords = []string{"boto3", "botocore", "aws", "google", "azure", "kubernetes", "stripe",
	"Octokit", "octokit", "github", "Github", "redis", "Redis", "psycopg2", "pymongo", "MongoClient",
	"mysql", "sqlalchemy", "PrismaClient", "prisma", "mongoose", "pg", "Client", "firebase_admin",
	"supabase", "heroku", "digitalocean", "docker"}

// reSDKMutation calls an SDK method that deletes or wipes remote state.
var reSDKMutation = lazyRegexp(`\.(delete|terminate|destroy|drop|purge|flushall|flushdb|flush_all|deleteMany|delete_many|drop_database|dropDatabase|remove_all|empty_bucket)\w*\s*\(`)

// Word sets that gate the costly expressions in capabilityWhy.
var (
	netWords = []string{"requests", "urllib", "urlopen", "http", "httpx", "aiohttp", "fetch", "axios",
		"https", "net", "socket", "Net", "URI", "curl_init", "curl_exec", "fsockopen", "XMLHttpRequest",
		"WebSocket", "dns", "gethostbyname", "smtplib", "ftplib", "paramiko", "LWP", "HTTP", "IO", "request"}
	dangerousModules = []string{"os", "subprocess", "child_process", "fs", "shutil", "pty", "posix",
		"Open3", "FileUtils", "File", "Dir", "IO", "Process", "Runtime", "sys"}
	dynamicWords = []string{"getattr", "importlib", "globals", "vars", "__builtins__", "__dict__",
		"send", "public_send", "call_user_func", "call_user_func_array", "Reflect", "const_get", "Kernel"}
)

// forEachWord calls f with each identifier in s and its span, until f
// returns false.
func forEachWord(s string, f func(w string, i, j int) bool) {
	isStart := func(b byte) bool { return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }
	for i := 0; i < len(s); {
		if !isStart(s[i]) || i > 0 && (s[i-1] >= '0' && s[i-1] <= '9') {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && (isStart(s[j]) || s[j] >= '0' && s[j] <= '9') {
			j++
		}
		if !f(s[i:j], i, j) {
			return
		}
		i = j
	}
}

// indirectUse reports a capability name at s[i:j] that is not a direct
// call (name(...), or name "..." in Perl and Ruby) and, for a module, not a
// member access (subprocess.run).
func indirectUse(lang, s string, i, j int, module bool) bool {
	k := j
	for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
		k++
	}
	var next byte
	if k < len(s) {
		next = s[k]
	}
	var prev byte
	if i > 0 {
		prev = s[i-1]
	}
	quoted := prev == '\'' || prev == '"' || prev == ':' && lang == "ruby"
	if quoted {
		return true // "execSync", :system
	}
	if prev == '.' && i >= 2 && s[i-2] == '$' {
		return true
	}
	switch {
	case next == '(':
		return false
	case next == '.' && module:
		return false
	case k > j && (next == '"' || next == '\'' || next == '$' || next == '@') && (lang == "perl" || lang == "ruby" || lang == "php"):
		return false
	}
	return true
}

// pipeCmdWhy judges a command that code pipes text into or reads from
// (awk's print | "cmd", Perl's open(F, "|cmd")): a shell or interpreter
// reading that text runs generated code.
func (c *cmdChecker) pipeCmdWhy(cmd string, anchor syntax.Node) string {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return ""
	}
	in := &guardCall{args: make([]shArg, len(f))}
	for i, w := range f {
		in.args[i] = litArg(w)
	}
	c.unwrap(in)
	if u := c.stdinUse(in); u.kind == stdinCode {
		return "pipes generated text into " + in.name
	}
	c.nested(cmd, anchor, false)
	return ""
}
