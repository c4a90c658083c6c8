// Package runfiles finds the workspace files a declared command line
// runs, so that trusting a folder covers their content and not only the
// line (PROTOCOL.md §10 "Trusted folders"): a hook `sh scripts/check.sh`
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
	f.words(shellWords(line, dir, root), true)
	f.follow()
	return f.set
}

// Argv is the workspace files a program started with argv (and env's
// values, which may name files too) runs, in dir.
func Argv(argv []string, env map[string]string, dir, root string) Set {
	f := finder{dir: dir, root: root, set: Set{}}
	words := append([]string(nil), argv...)
	for _, v := range env {
		words = append(words, strings.Fields(v)...)
	}
	f.words(words, true)
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

// shellWords are the words of a shell line, expanded as far as can be
// without running anything: the project variables are root, the rest
// empty. A line the parser refuses is split at blanks.
func shellWords(line, dir, root string) []string {
	file, err := syntax.NewParser().Parse(strings.NewReader(line), "")
	if err != nil {
		return strings.Fields(line)
	}
	cfg := &expand.Config{Env: expand.ListEnviron("CLAUDE_PROJECT_DIR="+root, "ACI_PROJECT_DIR="+root, "PWD="+dir, "HOME="+os.Getenv("HOME"))}
	var out []string
	syntax.Walk(file, func(n syntax.Node) bool {
		w, ok := n.(*syntax.Word)
		if !ok {
			return true
		}
		if v, err := expand.Literal(cfg, w); err == nil {
			out = append(out, v)
		} else if lit := w.Lit(); lit != "" {
			out = append(out, lit)
		}
		return true
	})
	return out
}

type finder struct {
	dir, root string
	set       Set
	queue     []string // found files whose own references are still to read
}

// words adds the files the words name; top says they are a command
// line's (every word counts), not a script's references.
func (f *finder) words(words []string, top bool) {
	for i, w := range words {
		if w == "-m" && i+1 < len(words) {
			f.module(words[i+1], f.dir)
		}
		if _, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(w, "-") {
			w = v
		}
		f.add(w, f.dir, top)
	}
}

// add records the file word names, relative to base, when it lies in the
// workspace: a file with its hash, a path-shaped word naming nothing as
// Absent.
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

var scriptExt = map[string]bool{".sh": true, ".bash": true, ".zsh": true, ".py": true, ".js": true, ".mjs": true,
	".cjs": true, ".ts": true, ".mts": true, ".rb": true, ".pl": true, ".php": true, ".lua": true, ".jar": true}

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
// file imports, a JavaScript file requires or imports.
var (
	shSource = regexp.MustCompile(`(?m)^\s*(?:source|\.|sh|bash|zsh|python3?|node|ruby|perl)\s+["']?([^\s"';|&]+)`)
	pyImport = regexp.MustCompile(`(?m)^\s*(?:from\s+(\.*[\w.]*)\s+import|import\s+([\w.]+))`)
	jsImport = regexp.MustCompile(`(?:require\(\s*|import\s*\(\s*|from\s+|import\s+)["'](\.{1,2}/[^"']+)["']`)
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
			for _, m := range pyImport.FindAllStringSubmatch(text, -1) {
				mod := m[1] + m[2]
				if strings.HasPrefix(mod, ".") {
					mod = strings.TrimLeft(mod, ".")
				}
				if mod != "" {
					f.module(mod, here)
				}
			}
		case ext == ".js" || ext == ".mjs" || ext == ".cjs" || ext == ".ts" || ext == ".mts":
			for _, m := range jsImport.FindAllStringSubmatch(text, -1) {
				if !f.add(m[1], here, false) {
					for _, e := range []string{".js", ".mjs", ".cjs", ".ts", "/index.js"} {
						if f.add(m[1]+e, here, false) {
							break
						}
					}
				}
			}
		default:
			for _, m := range shSource.FindAllStringSubmatch(text, -1) {
				w := strings.NewReplacer(`$(dirname "$0")`, here, `$(dirname $0)`, here, `${BASH_SOURCE%/*}`, here,
					"$CLAUDE_PROJECT_DIR", f.root, "${CLAUDE_PROJECT_DIR}", f.root).Replace(m[1])
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
