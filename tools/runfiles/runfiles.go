// Package runfiles finds the workspace files a declared command line
// runs, so that trusting a folder covers their content and not only the
// line (docs/protocol.md §10 "Trusted folders"): a hook `sh scripts/check.sh`
// is trusted as the line and as what scripts/check.sh holds. Found are
// every word of the line that names a file inside the workspace (the
// script after sh, python, node…, a ./tool, a --config=path), the module
// of `python -m`, and, one file leading to the next, the local files
// those scripts source, import or require. A word shaped like a path
// that names no file yet is kept as absent, so that a file appearing
// there later is a change too.
package runfiles

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Absent is the hash of a path that names no file.
const Absent = "absent"

// maxFiles bounds what one folder's lines may name: a line naming more
// is still covered by its first maxFiles files.
const maxFiles = 128

// Set is files by absolute path, each with its content's hash (or Absent).
type Set map[string]string

// Shell is the workspace files the shell line runs, started in dir; root
// is the workspace (CLAUDE_PROJECT_DIR and ACI_PROJECT_DIR are it).
func Shell(line, dir, root string) Set {
	f := finder{dir: dir, root: root, set: Set{}}
	for _, argv := range shellCommands(line, dir, root) {
		f.argv(argv)
	}
	f.follow()
	return f.set
}

// Argv is the workspace files a program started with argv (and env's
// values, which may name files too) runs, in dir.
func Argv(argv []string, env map[string]string, dir, root string) Set {
	f := finder{dir: dir, root: root, set: Set{}}
	f.argv(argv)
	for _, v := range env {
		for _, w := range strings.Fields(v) {
			f.code(w)
		}
	}
	f.follow()
	return f.set
}

// Hash is the hash of the file at path, Absent when it is not a file.
func Hash(path string) string {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return Absent
	}
	fh, err := os.Open(path)
	if err != nil {
		return Absent
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return Absent
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Changed lists the paths of s whose content is not what s says now,
// sorted.
func (s Set) Changed() []string {
	var out []string
	for p, h := range s {
		if Hash(p) != h {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// Paths are the paths of s, sorted.
func (s Set) Paths() []string {
	out := make([]string, 0, len(s))
	for p := range s {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Add puts o's entries into s.
func (s Set) Add(o Set) {
	for p, h := range o {
		s[p] = h
	}
}

// shellCommands are the simple commands of a shell line, each as its
// words expanded as far as can be without running anything: the project
// variables are root, the rest empty. A line the parser refuses is one
// command split at blanks.
func shellCommands(line, dir, root string) [][]string {
	file, err := syntax.NewParser().Parse(strings.NewReader(line), "")
	if err != nil {
		return [][]string{strings.Fields(line)}
	}
	cfg := &expand.Config{Env: expand.ListEnviron("CLAUDE_PROJECT_DIR="+root, "ACI_PROJECT_DIR="+root, "PWD="+dir, "HOME="+os.Getenv("HOME"))}
	var out [][]string
	syntax.Walk(file, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		var argv []string
		for _, w := range call.Args {
			if v, err := expand.Literal(cfg, w); err == nil {
				argv = append(argv, v)
			} else {
				argv = append(argv, w.Lit())
			}
		}
		out = append(out, argv)
		return true
	})
	return out
}

type finder struct {
	dir, root string
	set       Set
	queue     []string // found files whose own references are still to read
}

// wrappers run the command after them (after their options).
var wrappers = map[string]bool{"env": true, "exec": true, "command": true, "nohup": true, "time": true, "timeout": true,
	"nice": true, "xargs": true, "sudo": true, "npx": true, "bunx": true, "pnpx": true}

// runners are a word pair that runs the command after it: uv run, poetry run.
var runners = map[string]bool{"uv": true, "poetry": true, "pipenv": true, "pdm": true, "hatch": true, "rye": true}

// interpreters run the script named by their first argument that is not
// an option.
var interpreters = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "fish": true,
	"python": true, "python2": true, "python3": true, "pypy3": true, "node": true, "nodejs": true, "deno": true, "bun": true,
	"ruby": true, "perl": true, "php": true, "lua": true, "luajit": true, "Rscript": true, "tsx": true, "ts-node": true,
	"pwsh": true, "source": true, ".": true, "go": true, "java": true}

// argv adds what one simple command runs: the command word, the script
// of an interpreter (or its -c line, or -m module), the build file of
// make and npm run, and every argument that is a code file of the
// workspace (by extension, shebang or execute bit). A plain data file
// named as an argument (a log, a marker it touches) is not run, and not
// covered: covering it would ask again each time the hook writes it.
func (f *finder) argv(argv []string) {
	i := 0
	for i < len(argv) {
		w := filepath.Base(argv[i])
		switch {
		case strings.Contains(argv[i], "=") && !strings.Contains(w, "/") && i == 0:
			i++ // VAR=value before the command
			continue
		case wrappers[w]:
			i++
			for i < len(argv) && (strings.HasPrefix(argv[i], "-") || strings.Contains(argv[i], "=") || isNumber(argv[i])) {
				i++
			}
			continue
		case runners[w] && i+1 < len(argv) && argv[i+1] == "run":
			i += 2
			continue
		}
		break
	}
	if i >= len(argv) {
		return
	}
	cmd, args := argv[i], argv[i+1:]
	f.run(cmd)
	base := filepath.Base(cmd)
	switch {
	case base == "make" || base == "gmake":
		for _, m := range []string{"GNUmakefile", "makefile", "Makefile"} {
			f.add(m, f.dir, false)
		}
	case (base == "npm" || base == "pnpm" || base == "yarn") && len(args) > 0:
		f.add("package.json", f.dir, false)
	case interpreters[base]:
		f.interpreted(base, args)
	}
	for _, a := range args {
		if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
			a = v
		}
		f.code(a)
	}
}

// interpreted adds the script an interpreter runs: its first argument
// that is not an option, python's -m module, a shell's -c line.
func (f *finder) interpreted(base string, args []string) {
	for j := 0; j < len(args); j++ {
		a := args[j]
		switch {
		case a == "-m" && j+1 < len(args):
			f.module(args[j+1], f.dir)
			return
		case a == "-c" && j+1 < len(args):
			if strings.HasSuffix(base, "sh") {
				for _, argv := range shellCommands(args[j+1], f.dir, f.root) {
					f.argv(argv)
				}
			}
			return
		case (a == "-r" || a == "--require" || a == "--import" || a == "-jar") && j+1 < len(args):
			f.run(args[j+1])
			j++
		case base == "go" && a == "run":
		case strings.HasPrefix(a, "-"):
		default:
			f.run(a)
			return
		}
	}
}

// run adds a file in a place where it is run: kept as Absent when it is
// path-shaped and not there yet.
func (f *finder) run(word string) { f.add(word, f.dir, true) }

// code adds a word naming an existing code file of the workspace.
func (f *finder) code(word string) {
	p := word
	if !filepath.IsAbs(p) {
		p = filepath.Join(f.dir, p)
	}
	if isCode(p) {
		f.add(word, f.dir, false)
	}
}

// isCode reports whether the file at p is a program or a module: by its
// extension, its shebang, or its execute bit.
func isCode(p string) bool {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if scriptExt[filepath.Ext(p)] || fi.Mode()&0o111 != 0 {
		return true
	}
	fh, err := os.Open(p)
	if err != nil {
		return false
	}
	defer fh.Close()
	head := make([]byte, 2)
	n, _ := io.ReadFull(fh, head)
	return n == 2 && string(head) == "#!"
}

func isNumber(s string) bool {
	for _, c := range s {
		if (c < '0' || c > '9') && c != '.' && c != 's' && c != 'm' {
			return false
		}
	}
	return s != ""
}

// add records the file word names, relative to base, when it lies in the
// workspace: a file with its hash, and, where top says the word is in a
// place where a file is run, a path-shaped word naming nothing as Absent.
func (f *finder) add(word, base string, top bool) bool {
	if word == "" || len(f.set) >= maxFiles || strings.ContainsAny(word, "\n*?") {
		return false
	}
	p := word
	if strings.HasPrefix(p, "~/") {
		p = filepath.Join(os.Getenv("HOME"), p[2:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	p = filepath.Clean(p)
	if !inside(realish(p), realish(f.root)) || p == filepath.Clean(f.root) {
		return false
	}
	if _, seen := f.set[p]; seen {
		return true
	}
	fi, err := os.Stat(p)
	switch {
	case err == nil && fi.Mode().IsRegular():
		f.set[p] = Hash(p)
		f.queue = append(f.queue, p)
		return true
	case err != nil && os.IsNotExist(err) && pathShaped(word, top):
		f.set[p] = Absent
		return true
	}
	return false
}

// pathShaped reports whether a word naming nothing still reads as a
// file's path (a script to come), not as an option or a plain word.
func pathShaped(word string, top bool) bool {
	if strings.HasPrefix(word, "-") || strings.Contains(word, "://") {
		return false
	}
	return top && (strings.Contains(word, "/") || scriptExt[filepath.Ext(word)])
}

var scriptExt = map[string]bool{".sh": true, ".bash": true, ".zsh": true, ".fish": true, ".py": true, ".js": true, ".mjs": true,
	".cjs": true, ".jsx": true, ".ts": true, ".tsx": true, ".mts": true, ".rb": true, ".pl": true, ".php": true, ".lua": true,
	".jar": true, ".go": true, ".ps1": true, ".R": true}

// module adds what `python -m mod` runs from base: mod.py, or the
// package's __main__.py and __init__.py.
func (f *finder) module(mod, base string) {
	rel := strings.ReplaceAll(mod, ".", "/")
	if !f.add(rel+".py", base, false) {
		f.add(filepath.Join(rel, "__main__.py"), base, false)
		f.add(filepath.Join(rel, "__init__.py"), base, false)
	}
}

// References in scripts: what a shell script sources or runs, a Python
// file imports, a JavaScript file requires or imports. Compiled when a
// command first names a script, not at every start.
var (
	shSource = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^\s*(?:source|\.|sh|bash|zsh|python3?|node|ruby|perl)\s+["']?([^\s"';|&]+)`)
	})
	pyImport = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^\s*(?:from\s+(\.*[\w.]*)\s+import\s+\(?([\w, ]+)|import\s+([\w.]+))`)
	})
	jsImport = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:require\(\s*|import\s*\(\s*|from\s+|import\s+)["'](\.{1,2}/[^"']+)["']`)
	})
)

// follow reads the found files for the local files they name, until
// nothing new is found or the bound is reached.
func (f *finder) follow() {
	for len(f.queue) > 0 && len(f.set) < maxFiles {
		p := f.queue[0]
		f.queue = f.queue[1:]
		b, err := readHead(p)
		if err != nil {
			continue
		}
		text, here := string(b), filepath.Dir(p)
		switch ext := filepath.Ext(p); {
		case ext == ".py":
			for _, m := range pyImport().FindAllStringSubmatch(text, -1) {
				mod := strings.TrimLeft(m[1]+m[3], ".")
				if mod != "" {
					f.module(mod, here)
				}
				for _, name := range strings.Split(m[2], ",") { // from pkg import mod: pkg/mod.py
					if name = strings.TrimSpace(name); name != "" && mod != "" {
						f.module(mod+"."+name, here)
					}
				}
			}
		case ext == ".js" || ext == ".mjs" || ext == ".cjs" || ext == ".ts" || ext == ".mts":
			for _, m := range jsImport().FindAllStringSubmatch(text, -1) {
				if !f.add(m[1], here, false) {
					for _, e := range []string{".js", ".mjs", ".cjs", ".ts", "/index.js"} {
						if f.add(m[1]+e, here, false) {
							break
						}
					}
				}
			}
		default:
			text = strings.NewReplacer(`$(dirname "$0")`, here, `$(dirname $0)`, here, `${BASH_SOURCE%/*}`, here,
				`$(dirname "${BASH_SOURCE[0]}")`, here, "${CLAUDE_PROJECT_DIR}", f.root, "$CLAUDE_PROJECT_DIR", f.root).Replace(text)
			for _, m := range shSource().FindAllStringSubmatch(text, -1) {
				w := m[1]
				if !f.add(w, here, false) {
					f.add(w, f.dir, false)
				}
			}
		}
	}
}

// readHead reads up to 256 KB of a script: references sit near the top,
// and a huge file is not read whole.
func readHead(p string) ([]byte, error) {
	fh, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return io.ReadAll(io.LimitReader(fh, 256<<10))
}

// realish is path with the symlinks of its existing part resolved.
func realish(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(d, filepath.Base(p))
	}
	return p
}

func inside(p, root string) bool {
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}
