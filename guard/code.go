package guard

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/aci-dev/aci/tools/secrets"
)

// Judging interpreter one-liners (python -c, perl -e, node -e, awk ...).
// The code is not parsed as its language; the guard looks for the calls
// that run commands, evaluate code, delete or write files, and for secret
// paths, and judges their literal arguments. A call whose argument is not a
// plain literal cannot be judged and counts as dangerous.

var (
	// reShellCall finds calls that run a shell command.
	reShellCall = lazyRegexp(`(?:\b|\.)(system|popen|shell_exec|passthru|proc_open|execSync|execFileSync|execFile|spawnSync|spawn|getoutput|getstatusoutput|check_output|check_call|Popen|execute|system2|exec[lv]p?e?|spawn[lv]p?e?|subprocess\.run|subprocess\.call|exec)\s*(\(|\s+["'$@])`)
	// reEvalCall finds calls that evaluate code in the same language.
	reEvalCall = lazyRegexp(`(?:\b|\.)(eval|compile|Function|runInNewContext|runInThisContext|instance_eval|class_eval|load|loadstring|create_function)\s*(\(|\s+["'$])`)
	rePyExec   = lazyRegexp(`(?:^|[^.\w])exec\s*\(`)
	reAwkPipe  = lazyRegexp(`\|\s*"([^"]*)"|"([^"]*)"\s*\|\s*getline`)
	// reAwkVarPipe pipes to or from a command held in a variable.
	reAwkVarPipe = lazyRegexp(`\b[A-Za-z_]\w*\s*\|\s*getline|\bprint[^|;}]*\|\s*[A-Za-z_$(]`)
	reDelete     = lazyRegexp(`(?:\b|\.)(rmtree|remove_tree|rm_rf|rm_r|remove_dir|rmSync|rmdirSync|rimraf|rimraf\.sync|removeSync|removedirs|rm|rmdir|remove|unlink|unlinkSync|delete|file\.remove|Remove-Item)\s*(\(|\s+["'$@])`)
	reWrite      = lazyRegexp(`(?:\b|\.)(writeFileSync|writeFile|appendFileSync|appendFile|createWriteStream|file_put_contents|write_text|write_bytes|copyfile|copy2|copytree|copy|move|rename|replace)\s*\(`)
	reOpen       = lazyRegexp(`(?:\b|\.)(open|fopen)\s*\(`)
	rePathLib    = lazyRegexp(`Path\(\s*(['"])([^'"]*)['"]\s*\)(?:\s*\.\s*(?:expanduser|resolve|absolute)\(\s*\))*\s*\.\s*(unlink|rmdir|write_text|write_bytes|chmod)\s*\(`)
	// reChmod changes permissions or owners of a path.
	reChmod    = lazyRegexp(`(?:\b|\.)(chmod|chown|lchown|chmodSync|chownSync|lchownSync)\s*\(`)
	reBacktick = lazyRegexp("`([^`]*)`|\\bqx\\s*[({/]([^)}/]*)[)}/]|%x[({]([^)}]*)[)}]")
	reForkBomb = lazyRegexp(`(?s)\bwhile\b.{0,60}\bfork\b|\bfork\b.{0,12}\bwhile\b|for\s*\(\s*;\s*;\s*\).{0,40}\bfork\b|\bloop\b.{0,40}\bfork\b`)
	reRevShell = lazyRegexp(`dup2\s*\(\s*[\w.]+\.fileno\s*\(|/dev/tcp/|\bpty\.spawn\b.*\bsocket\b|\bsocket\b.*\bpty\.spawn\b`)
	reObfCall  = lazyRegexp(`getattr\s*\(\s*(os|subprocess|__builtins__|builtins)|__import__\s*\(\s*['"]os['"]\s*\)\s*\.\s*__dict__|importlib.{0,80}(system|popen)`)
	reEnvRead  = lazyRegexp(`(?:environ(?:\.get)?\s*[\[(]\s*|getenv\s*\(\s*|process\.env\.|process\.env\[\s*|ENV\[\s*|ENV\.fetch\(\s*|\$ENV\{\s*|Sys\.getenv\(\s*)['"]?([A-Za-z_][A-Za-z0-9_]*)`)
	reOutput   = lazyRegexp(`\b(print|println|printf|puts|console\.log|console\.error|echo|say|warn|write|dump|p|pp|cat|requests|fetch|urlopen|http|https|socket)\b`)
	reUpload   = lazyRegexp(`requests\.(post|put|patch)|urlopen\([^)]*data=|method\s*:\s*['"](POST|PUT)|Net::HTTP\.post|curl_exec|axios\.(post|put)|http\.request|ftplib|smtplib|paramiko`)
	reReadFile = lazyRegexp(`\bopen\s*\(|readFile|File\.read|file_get_contents|createReadStream|read_text|read_bytes`)
)

// codeWhy judges inline code of lang; anchor is the command running it.
// Each step looks for one kind of effect; the first that finds something
// (a reason, or a finding of a nested command in c.found) decides.
func (c *cmdChecker) codeWhy(lang, code string, anchor syntax.Node, depth int) string {
	if depth > 4 {
		return "nests code too deeply to check"
	}
	if why := codeSignsWhy(code); why != "" {
		return why
	}
	if why := c.codeSecretPathsWhy(code); why != "" {
		return why
	}
	skip := map[int]bool{} // matches already judged through pathlib
	steps := []func() string{
		func() string { return c.codePathlibWhy(code, skip) },
		func() string { return c.codeBackticksWhy(lang, code, anchor) },
		func() string { return c.codeShellCallsWhy(lang, code, anchor) },
		func() string { return c.codeEvalsWhy(lang, code, anchor, depth) },
		func() string { return c.codePipesWhy(lang, code, anchor) },
		func() string { return c.codeFiles(lang, code, skip) },
	}
	for _, step := range steps {
		if why := step(); why != "" || c.found != nil {
			return why
		}
	}
	return capabilityWhy(lang, code)
}

// codeHas reports whether code contains any of subs: cheap substring
// checks gate each costly expression.
func codeHas(code string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(code, x) {
			return true
		}
	}
	return false
}

// codeSignsWhy finds the shapes of attacks whatever their arguments: fork
// bombs, reverse shells, obfuscated system calls, secrets printed or
// sent, local files uploaded.
func codeSignsWhy(code string) string {
	if codeHas(code, "fork") && reForkBomb.MatchString(code) {
		return "is a fork bomb"
	}
	if codeHas(code, "dup2", "/dev/tcp/", "pty") && reRevShell.MatchString(code) {
		return "opens a remote shell"
	}
	if codeHas(code, "getattr", "__import__", "importlib") && reObfCall.MatchString(code) {
		return "calls the system through obfuscation"
	}
	if codeHas(code, "env", "ENV", "Env") {
		for _, m := range reEnvRead.FindAllStringSubmatch(code, -1) {
			if secrets.IsCredentialVar(m[1]) && reOutput.MatchString(code) {
				return "prints or sends a secret environment variable"
			}
		}
	}
	if codeHas(code, "requests", "urlopen", "POST", "PUT", "Net::HTTP", "curl_exec", "axios", "http", "ftplib", "smtplib", "paramiko") &&
		reUpload.MatchString(code) && reReadFile.MatchString(code) {
		return "uploads local data"
	}
	return ""
}

// codeSecretPathsWhy flags string literals that name secret files.
func (c *cmdChecker) codeSecretPathsWhy(code string) string {
	for _, s := range codeStringLiterals(code) {
		if strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") {
			if why := c.secretArg(litArg(s), false); why != "" {
				return why
			}
		}
	}
	return ""
}

// codePathlibWhy judges Path('x').unlink() and friends, marking the
// matches it judged in skip.
func (c *cmdChecker) codePathlibWhy(code string, skip map[int]bool) string {
	for _, m := range rePathLib.FindAllStringSubmatchIndex(code, -1) {
		p, method := code[m[4]:m[5]], code[m[6]:m[7]]
		skip[m[6]] = true
		var why string
		switch method {
		case "unlink", "rmdir":
			why = c.deleteWhy(globCodeArg(p), false)
		default:
			why = c.writeWhy(globCodeArg(p))
		}
		if why != "" {
			return why
		}
	}
	return ""
}

// codeBackticksWhy judges `cmd`, qx{} and %x() in Perl, Ruby and PHP.
func (c *cmdChecker) codeBackticksWhy(lang, code string, anchor syntax.Node) string {
	if lang != "perl" && lang != "ruby" && lang != "php" {
		return ""
	}
	for _, m := range reBacktick.FindAllStringSubmatch(code, -1) {
		cmd := m[1] + m[2] + m[3]
		if strings.ContainsAny(cmd, "$#@") {
			return "runs a command it cannot resolve"
		}
		if c.nested(cmd, anchor, false); c.found != nil {
			return ""
		}
	}
	return ""
}

// codeShellCallsWhy judges system(), popen(), exec*(), spawn() and the like
// by the command their literal arguments make.
func (c *cmdChecker) codeShellCallsWhy(lang, code string, anchor syntax.Node) string {
	for _, m := range reShellCall.FindAllStringSubmatchIndex(code, -1) {
		name := code[m[2]:m[3]]
		if name == "exec" && lang == "python" || name == "execute" && lang != "lua" || name == "spawn" && lang == "python" {
			continue // python exec is code, judged with evals
		}
		vals, complete := codeCallArgs(code[m[4]:])
		if !complete || len(vals) == 0 {
			return "runs a command it cannot resolve"
		}
		list := strings.HasPrefix(strings.TrimLeft(code[m[4]:], "( \t"), "[")
		if c.nested(shellCallCommand(name, vals, list), anchor, false); c.found != nil {
			return ""
		}
	}
	return ""
}

// shellCallCommand is the command line a call runs, from its arguments.
func shellCallCommand(name string, vals []string, list bool) string {
	switch {
	case (name == "popen" || name == "proc_open") && !list && len(vals) == 2 && len(vals[1]) <= 3:
		return vals[0] // popen("cmd", "r"): a shell command and a mode.
	case strings.HasPrefix(name, "exec") && len(name) > 4 && strings.ContainsAny(name[4:5], "lv") && len(vals) > 1:
		// os.execl(path, argv0, args...): argv0 is not an argument.
		return quoteArgvForShell(append([]string{vals[0]}, vals[2:]...))
	case len(vals) > 1 || list:
		return quoteArgvForShell(vals)
	}
	return vals[0]
}

// codeEvalsWhy judges code evaluated in the same language (eval, compile,
// load, Python's exec) as code.
func (c *cmdChecker) codeEvalsWhy(lang, code string, anchor syntax.Node, depth int) string {
	for _, m := range reEvalCall.FindAllStringSubmatchIndex(code, -1) {
		name := code[m[2]:m[3]]
		if name == "load" && lang != "lua" || name == "compile" && lang != "python" {
			continue
		}
		vals, _ := codeCallArgs(code[m[4]:])
		if len(vals) == 0 {
			return "runs code it cannot resolve"
		}
		if why := c.codeWhy(lang, vals[0], anchor, depth+1); why != "" || c.found != nil {
			return why
		}
	}
	if lang != "python" {
		return ""
	}
	for _, m := range rePyExec.FindAllStringIndex(code, -1) {
		vals, _ := codeCallArgs(code[m[1]-1:])
		if len(vals) == 0 {
			return "runs code it cannot resolve"
		}
		if why := c.codeWhy(lang, vals[0], anchor, depth+1); why != "" || c.found != nil {
			return why
		}
	}
	return ""
}

// codePipesWhy judges commands piped to or from: awk's print | "cmd" and
// "cmd" | getline, Perl's and Ruby's open(FH, "cmd |").
func (c *cmdChecker) codePipesWhy(lang, code string, anchor syntax.Node) string {
	switch lang {
	case "awk":
		for _, m := range reAwkPipe.FindAllStringSubmatch(code, -1) {
			if why := c.pipeCmdWhy(m[1]+m[2], anchor); why != "" || c.found != nil {
				return why
			}
		}
		if reAwkVarPipe.MatchString(code) {
			return "pipes to or from a command it cannot resolve"
		}
	case "perl", "ruby":
		for _, m := range reOpen.FindAllStringIndex(code, -1) {
			vals := perlOpen(code[m[1]-1:])
			if len(vals) == 2 && strings.Contains(vals[1], "|") {
				if why := c.pipeCmdWhy(vals[0], anchor); why != "" || c.found != nil {
					return why
				}
			}
		}
	}
	return ""
}

// codeFiles judges deletes and writes in code.
func (c *cmdChecker) codeFiles(lang, code string, skip map[int]bool) string {
	for _, m := range reDelete.FindAllStringSubmatchIndex(code, -1) {
		if skip[m[2]] {
			continue
		}
		name := code[m[2]:m[3]]
		if (name == "remove" || name == "delete" || name == "rm") && !deleteOwner(code[:m[2]]) {
			continue // list.remove(x), map.delete(k): not files
		}
		vals, _ := codeCallArgs(code[m[4]:])
		if len(vals) == 0 {
			return "deletes a path it cannot resolve"
		}
		rec := name != "unlink" && name != "unlinkSync" && name != "remove" && name != "delete"
		for _, v := range vals {
			if why := c.deleteWhy(globCodeArg(v), rec); why != "" {
				return why
			}
		}
	}
	for _, m := range reWrite.FindAllStringSubmatchIndex(code, -1) {
		if skip[m[2]] {
			continue
		}
		name := code[m[2]:m[3]]
		vals, _ := codeCallArgs(code[m[1]-1:])
		twoArg := name == "copy" || name == "move" || name == "rename" || name == "replace" ||
			name == "copytree" || name == "copyfile" || name == "copy2"
		if twoArg && !strings.Contains(code[:m[2]], "shutil") && !strings.Contains(code[:m[2]], "os.") {
			continue // str.replace and friends
		}
		if len(vals) == 0 || twoArg && len(vals) < 2 {
			return "writes to a path it cannot resolve"
		}
		target := vals[0]
		if twoArg {
			target = vals[1]
		}
		if why := c.writeWhy(globCodeArg(target)); why != "" {
			return why
		}
		c.markScript(target)
	}
	for _, m := range reChmod.FindAllStringIndex(code, -1) {
		vals, _ := codeCallArgs(code[m[1]-1:])
		if len(vals) == 0 {
			return "changes permissions of a path it cannot resolve"
		}
		if why := c.writeWhy(globCodeArg(vals[0])); why != "" {
			return "changes permissions: " + why
		}
	}
	for _, m := range reOpen.FindAllStringSubmatchIndex(code, -1) {
		vals, _ := codeCallArgs(code[m[1]-1:])
		if lang == "perl" {
			vals = perlOpen(code[m[1]-1:])
		}
		if len(vals) < 2 || !strings.ContainsAny(vals[1], "wa+x>") {
			continue
		}
		if why := c.writeWhy(globCodeArg(vals[0])); why != "" {
			return why
		}
		c.markScript(vals[0])
	}
	return ""
}

// deleteOwner reports whether a generic name like remove( is called on a
// file API (os.remove, fs.rm, File.delete) rather than a collection.
func deleteOwner(before string) bool {
	before = strings.TrimRight(before, " \t")
	if strings.HasSuffix(before, "').") || strings.HasSuffix(before, "\").") {
		// require('fs/promises').rm(...): a call on a module.
		if i := strings.LastIndex(before, "require("); i >= 0 && strings.Contains(before[i:], "fs") {
			return true
		}
	}
	for _, o := range []string{"os.", "fs.", "File.", "FileUtils.", "Files.", "file.", "promises.", "fse.", "shutil.", "Path.", "Dir."} {
		if strings.HasSuffix(before, o) {
			return true
		}
	}
	return before == "" || !strings.HasSuffix(before, ".")
}

func globCodeArg(s string) shArg { return shArg{val: s, ok: true, glob: strings.ContainsAny(s, "*?[")} }

// quoteArgvForShell turns an argv list into a shell command line.
func quoteArgvForShell(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// perlOpen reads open(FH, '>', 'file') and open(FH, ">file") as
// [file, mode].
func perlOpen(s string) []string {
	_, rest, ok := strings.Cut(s, ",")
	if !ok {
		return nil
	}
	vals, _ := codeCallArgs("(" + rest)
	switch {
	case len(vals) >= 2:
		return []string{vals[1], vals[0]}
	case len(vals) == 1:
		v := strings.TrimSpace(vals[0])
		path := strings.TrimLeft(v, "+<>| ")
		return []string{path, v[:len(v)-len(path)]}
	}
	return nil
}
