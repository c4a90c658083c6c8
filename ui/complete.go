package ui

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// completer completes on Tab: a command name after a leading slash, a
// path after @.
type completer struct{ workdir string }

// maxCompletions caps the candidates listed for a big folder.
const maxCompletions = 200

func (c completer) Do(line []rune, pos int) ([][]rune, int) {
	head := string(line[:pos])
	if strings.HasPrefix(head, "/") && !strings.ContainsAny(head, " \t") {
		var out [][]rune
		for _, name := range allCommandNames(c.workdir) {
			if strings.HasPrefix(name, head) {
				out = append(out, []rune(name[len(head):]+" "))
			}
		}
		return out, len([]rune(head))
	}
	i := strings.LastIndexAny(head, " \t")
	word := head[i+1:]
	if !strings.HasPrefix(word, "@") {
		return nil, 0
	}
	return c.paths(word[1:])
}

// paths completes a path typed so far, relative to the working folder;
// folders end with a slash so the next Tab goes inside.
func (c completer) paths(typed string) ([][]rune, int) {
	dir, base := filepath.Split(typed)
	abs := dir
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(c.workdir, dir)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil, 0
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if !strings.HasPrefix(n, base) || (strings.HasPrefix(n, ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		if e.IsDir() {
			n += "/"
		} else {
			n += " "
		}
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) > maxCompletions {
		names = names[:maxCompletions]
	}
	out := make([][]rune, len(names))
	for i, n := range names {
		out[i] = []rune(n[len(base):])
	}
	return out, len([]rune(base))
}
