package lsp

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// A language server runs with the session's rights and the person's
// programs, never the repository's code: the server, its interpreter and
// the runtime pieces it loads come from the person's installation, found
// on a PATH without the workspace's folders; a workspace copy (its
// node_modules, .yarn/sdks, a venv's python, plugins its config names, a
// toolchain its go.mod or rust-toolchain.toml asks for) is used only in a
// folder the person trusts. Each server is told so in its own terms
// (launchFor); one with no such piece outside the workspace is not started,
// and the person is told why once.

// launch is how one language's server starts in one workspace.
type launch struct {
	argv []string
	// init are the initializationOptions; settings answer the server's
	// workspace/configuration requests, by section.
	init     map[string]any
	settings map[string]any
	env      []string
	// machine are the folders below /tmp or /var/tmp the server's program
	// and pieces live in: shown to it read-only (its /tmp is the
	// session's own).
	machine []string
}

// launchFor finds lang's server as the pool may start it, or says why it
// does not start ("" and false: none installed, nothing to say).
func (p *Pool) launchFor(lang Language) (launch, string, bool) {
	path := p.searchPath()
	var l launch
	for _, c := range lang.Commands {
		if len(c) == 0 {
			continue
		}
		prog, err := p.lookPath(c[0], path)
		if err != nil {
			continue
		}
		if !p.opt.Trusted && p.inRoot(prog) {
			return l, fmt.Sprintf("%s is not started: it is the workspace's own (%s), and the folder is not trusted", filepath.Base(c[0]), prog), false
		}
		l.argv = append([]string{prog}, c[1:]...)
		break
	}
	if l.argv == nil {
		return l, "", false
	}
	l.env = append(l.env, "PATH="+path)
	pieces := []string{l.argv[0]}
	if interp := p.interpreter(l.argv[0], path); interp != "" {
		pieces = append(pieces, interp)
	}
	if !p.opt.Trusted {
		switch lang.Name {
		case "typescript":
			ts := personTSServer(l.argv[0])
			if ts == "" || p.inRoot(ts) {
				return l, filepath.Base(l.argv[0]) + " is not started: no TypeScript is installed beside it (npm install -g typescript), and the workspace's own is not run in an untrusted folder", false
			}
			l.init = map[string]any{"tsserver": map[string]any{"path": ts}}
			pieces = append(pieces, ts)
		case "python":
			if py, err := p.lookPath("python3", path); err == nil {
				l.settings = map[string]any{"python": map[string]any{"pythonPath": py}}
				pieces = append(pieces, py)
			}
		case "go":
			l.env = append(l.env, "GOTOOLCHAIN=local")
		case "rust":
			l.init = map[string]any{"cargo": map[string]any{"buildScripts": map[string]any{"enable": false}},
				"procMacro": map[string]any{"enable": false}, "checkOnSave": false}
			l.env = append(l.env, "RUSTC_WRAPPER=", "RUSTC_WORKSPACE_WRAPPER=", "RUSTUP_AUTO_INSTALL=0")
		}
	}
	if lang.Name == "typescript" {
		// Types fetched from the registry would be npm run by the server.
		if l.init == nil {
			l.init = map[string]any{}
		}
		l.init["disableAutomaticTypingAcquisition"] = true
	}
	for _, piece := range pieces {
		l.machine = appendMachine(l.machine, piece)
		if real, err := filepath.EvalSymlinks(piece); err == nil {
			l.machine = appendMachine(l.machine, real)
		}
	}
	return l, "", true
}

// searchPath is aci's PATH without the workspace's folders (unless the
// folder is trusted) and without relative entries, which name whatever
// folder a server runs in.
func (p *Pool) searchPath() string {
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		if !p.opt.Trusted && p.inRoot(d) {
			continue
		}
		keep = append(keep, d)
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

// lookPath finds prog on path; a relative path with a slash (./tools/x,
// from the person's settings) names a file of the workdir.
func (p *Pool) lookPath(prog, path string) (string, error) {
	if strings.ContainsRune(prog, '/') {
		if !filepath.IsAbs(prog) {
			prog = filepath.Join(p.opt.Workdir, prog)
		}
		return exec.LookPath(prog)
	}
	for _, d := range filepath.SplitList(path) {
		c := filepath.Join(d, prog)
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return c, nil
		}
	}
	return "", exec.ErrNotFound
}

// inRoot says whether path, as named or with its links resolved, is in
// the workspace.
func (p *Pool) inRoot(path string) bool {
	if p.inWorkspace(path) {
		return true
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return p.inWorkspace(real)
	}
	return false
}

// interpreter is the program a script's "#!" line runs it with (env's
// argument found on path), or "".
func (p *Pool) interpreter(script, path string) string {
	f, err := os.Open(script)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return ""
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return ""
	}
	if filepath.Base(fields[0]) == "env" {
		for _, a := range fields[1:] {
			if !strings.HasPrefix(a, "-") {
				if prog, err := p.lookPath(a, path); err == nil {
					return prog
				}
				return ""
			}
		}
		return ""
	}
	return fields[0]
}

// personTSServer is the tsserver.js of the TypeScript installed with the
// language server at prog (beside it, as node would find it from there),
// or "".
func personTSServer(prog string) string {
	real, err := filepath.EvalSymlinks(prog)
	if err != nil {
		return ""
	}
	for d := filepath.Dir(real); ; d = filepath.Dir(d) {
		for _, c := range []string{filepath.Join(d, "node_modules", "typescript", "lib", "tsserver.js"),
			filepath.Join(d, "lib", "node_modules", "typescript", "lib", "tsserver.js")} {
			if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
				return c
			}
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// appendMachine adds the top folder below /tmp or /var/tmp that path lies
// in, if it does.
func appendMachine(list []string, path string) []string {
	for _, root := range []string{"/tmp/", "/var/tmp/"} {
		rest, ok := strings.CutPrefix(filepath.Clean(path), root)
		if !ok {
			continue
		}
		top, _, _ := strings.Cut(rest, "/")
		m := root + top
		for _, have := range list {
			if have == m {
				return list
			}
		}
		return append(list, m)
	}
	return list
}
