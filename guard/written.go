package guard

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/aci-dev/aci/tools/secrets"
)

// Scripts written earlier in the same command, by any program, and then
// run: what they contain is judged when they run (runsWritten). Redirects
// are recorded in flow.go; this file records tee, dd of=, cp and mv.

// writtenTargets are the files a tee or dd writes its standard input to.
func writtenTargets(in *guardCall) []shArg {
	switch in.name {
	case "tee":
		return cmdOperands(in.args)
	case "dd":
		for _, a := range in.args {
			if v, ok := strings.CutPrefix(a.val, "of="); ok {
				return []shArg{{val: v, ok: a.ok}}
			}
		}
	}
	return nil
}

// recordStdinWrite remembers what tee or dd writes, given the text on its
// standard input (known=false: it cannot be read).
func (c *cmdChecker) recordStdinWrite(in *guardCall, text string, known bool) {
	for _, a := range writtenTargets(in) {
		p := c.abs(a.val)
		if !a.ok || p == "" {
			continue
		}
		if !known {
			text = unknownScript
		}
		if prev, had := c.shared.written[p]; had && hasLitArg(in.args, "-a", "--append") && prev != unknownScript && known {
			text = prev + text
		}
		c.shared.written[p] = text
	}
}

// recordPipeWrites handles tee and dd fed by the previous pipeline stage.
func (c *cmdChecker) recordPipeWrites(prev, next *syntax.Stmt) {
	ce, ok := next.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return
	}
	in := c.effective(ce)
	if len(writtenTargets(in)) == 0 {
		return
	}
	text, known, ok := c.literalOutput(prev)
	c.recordStdinWrite(in, text, ok && known)
}

// recordHdocWrites handles tee and dd fed by a here-document.
func (c *cmdChecker) recordHdocWrites(s *syntax.Stmt, in *guardCall) {
	if in == nil || len(writtenTargets(in)) == 0 {
		return
	}
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			c.recordStdinWrite(in, c.hdocText(r.Hdoc), !hasCmdSubst(r.Hdoc))
		case syntax.WordHdoc:
			t, k := c.literal(r.Word)
			c.recordStdinWrite(in, t+"\n", k)
		case syntax.RdrIn:
			c.recordStdinWrite(in, "", false)
		}
	}
}

// trackCopy carries what cp, mv or install put at their destination: a
// copy of a script written earlier keeps its content; a file brought in
// from outside the workspace is a script the guard has not seen.
func trackCopy(c *cmdChecker, in *guardCall) {
	p := parseCmdArgs(in.args, "tSmogb", nameSet("--target-directory", "--suffix", "--mode", "--owner", "--group"))
	srcs, dst := copyDest(p, in)
	if dst == nil || !dst.ok {
		return
	}
	if in.name == "cp" || in.name == "mv" {
		c.markCreated(*dst)
	}
	d := c.abs(dst.val)
	if d == "" {
		return
	}
	fi, err := os.Stat(d)
	isDir := err == nil && fi.IsDir() || strings.HasSuffix(dst.val, "/") || len(srcs) > 1
	for _, s := range srcs {
		target := d
		if isDir {
			target = filepath.Join(d, filepath.Base(s.val))
		}
		ps := c.abs(s.val)
		if c.shared.copies != nil && ps != "" && s.ok && !s.glob {
			c.shared.copies[target] = ps
		}
		if text, ok := c.shared.written[ps]; ok && s.ok {
			c.shared.written[target] = text
			continue
		}
		if !s.ok || ps == "" || s.glob || strings.Contains(s.val, "://") || remoteHostOperand(s) {
			c.shared.written[target] = unknownScript
			continue
		}
		switch c.env.zoneOf(c.env.real(ps, true)) {
		case zoneWork, zoneRoot:
		default:
			c.shared.written[target] = unknownScript
		}
	}
}

// fetchedPath reports a path inside a folder this command cloned.
func (c *cmdChecker) fetchedPath(p string) bool {
	for _, d := range c.shared.fetched {
		if p != d && pathWithin(p, d) {
			return true
		}
	}
	return false
}

// markScript records a file that code wrote with content the guard did
// not read (python's open(...).write(...)): running it later is running
// generated code.
func (c *cmdChecker) markScript(target string) {
	if p := c.abs(target); p != "" {
		c.shared.written[p] = unknownScript
	}
}

// reSecretFragment finds the secrets no table names: another process's
// environment, and SSH keys by their default names.
var reSecretFragment = lazyRegexp(`/proc/[^/ ]+/environ|\bid_(rsa|ed25519|ecdsa|dsa)\b`)

// secretFragment finds a secret path spelled inside a larger word or a
// string of code ($(echo ~/.ssh/id_rsa), homedir() + "/.aws/credentials"):
// a secret store of the one table (secrets.HomeStores, SystemStores) at
// a word's edge. A registry's settings file (.npmrc) counts only below a
// folder, as a home's: the workspace's own is judged by its content.
func secretFragment(s string) bool {
	if reSecretFragment.MatchString(s) {
		return true
	}
	for _, store := range secrets.HomeStores {
		if fragmentAt(s, store, secrets.SecretFile(filepath.Base(store)) == secrets.Registry) {
			return true
		}
	}
	for _, p := range secrets.SystemStores {
		if !strings.ContainsRune(p, '*') && strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// fragmentAt reports frag in s with no name character right before or
// after it (.ssh/ and ".ssh" count, .sshd does not); underFolder asks for
// a / right before it.
func fragmentAt(s, frag string, underFolder bool) bool {
	nameChar := func(c byte) bool {
		return c == '_' || c == '-' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	for off := 0; ; {
		i := strings.Index(s[off:], frag)
		if i < 0 {
			return false
		}
		i += off
		end := i + len(frag)
		before := i == 0 || !nameChar(s[i-1])
		if underFolder {
			before = i > 0 && s[i-1] == '/'
		}
		if before && (end == len(s) || !nameChar(s[end])) {
			return true
		}
		off = i + 1
	}
}

// hiddenArgWhy judges arguments the guard cannot expand: a path to a secret
// spelled inside a substitution, or a value decoded at run time (which can
// name anything). echo and printf only print such values.
func (c *cmdChecker) hiddenArgWhy(in *guardCall, spec *cmdSpec) string {
	if in.name == "echo" || in.name == "printf" {
		return ""
	}
	for _, a := range in.args {
		if a.ok || a.word == nil {
			continue
		}
		if !spec.secretOK && secretFragment(a.val) {
			return "reads a secret through a path it builds at run time"
		}
		if c.decodesIn(a.word) {
			return "uses a value it decodes at run time"
		}
		for _, m := range reVarRef.FindAllStringSubmatch(a.val, -1) {
			if c.shared.decoded[m[1]] {
				return "uses a value it decodes at run time ($" + m[1] + ")"
			}
		}
	}
	return ""
}

// decodesIn reports a substitution in w that decodes or unescapes text
// (base64 -d, xxd -r, printf '\x..'), which can spell any path or command.
func (c *cmdChecker) decodesIn(w *syntax.Word) bool {
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		ce, ok := n.(*syntax.CallExpr)
		if found || !ok || len(ce.Args) == 0 {
			return !found
		}
		in := c.effective(ce)
		switch in.name {
		case "base64", "base32", "basenc":
			found = hasLitArg(in.args, "-d", "-D", "--decode")
		case "xxd":
			found = hasLitArg(in.args, "-r", "-rp", "-pr")
		case "openssl":
			found = hasLitArg(in.args, "-d")
		case "uudecode", "rev":
			found = true
		case "printf":
			found = len(in.args) > 0 && (strings.Contains(in.args[0].val, `\x`) || strings.Contains(in.args[0].val, `\0`))
		}
		return !found
	})
	return found
}

// recentScriptAge: a shell script changed this recently was probably
// written in this session (by a file window or an earlier command), so its
// content is judged when it runs; older project scripts are trusted as
// before, since asking for every ./build.sh would teach blind approval.
const recentScriptAge = 2 * time.Hour

// judgeRecentScript judges the content of a recently changed shell script
// that a command runs; explicitShell is set for bash x.sh and source x.sh,
// where no shebang is needed. It reports whether it judged the file.
func (c *cmdChecker) judgeRecentScript(p string, anchor syntax.Node, explicitShell bool) bool {
	if c.remote || p == "" {
		return false
	}
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 64<<10 || time.Since(fi.ModTime()) > recentScriptAge {
		return false
	}
	b, err := os.ReadFile(p)
	if err != nil || bytes.IndexByte(b, 0) >= 0 {
		return false
	}
	text := string(b)
	if first, _, _ := strings.Cut(text, "\n"); strings.HasPrefix(first, "#!") {
		f := strings.Fields(strings.TrimPrefix(first, "#!"))
		if len(f) > 0 && canonCmd(f[0]) == "env" && len(f) > 1 {
			f = f[1:]
		}
		if len(f) == 0 || !specOf(canonCmd(f[0])).shell {
			return false // another interpreter's program: not judged here
		}
	} else if !explicitShell {
		return false
	}
	saved := c.scriptDir
	c.scriptDir = filepath.Dir(p)
	c.nested(text, anchor, false)
	c.scriptDir = saved
	return true
}
