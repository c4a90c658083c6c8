package lsp

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/aci-dev/aci/tools/settings"
)

// Language is the server a language's files get diagnostics from.
type Language struct {
	Name string
	// Commands are the server's command lines, the first installed one
	// used (pyright's fork before pyright).
	Commands   [][]string
	Extensions []string
	// IDs maps an extension to its LSP languageId where it is not Name.
	IDs map[string]string
}

// builtin are the servers aci knows without settings.
var builtin = []Language{
	{Name: "go", Commands: [][]string{{"gopls"}}, Extensions: []string{".go"}},
	{Name: "python", Commands: [][]string{{"basedpyright-langserver", "--stdio"}, {"pyright-langserver", "--stdio"}},
		Extensions: []string{".py", ".pyi"}},
	{Name: "typescript", Commands: [][]string{{"typescript-language-server", "--stdio"}},
		Extensions: []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"},
		IDs: map[string]string{".tsx": "typescriptreact", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
			".jsx": "javascriptreact"}},
	{Name: "rust", Commands: [][]string{{"rust-analyzer"}}, Extensions: []string{".rs"}},
	{Name: "c", Commands: [][]string{{"clangd"}}, Extensions: []string{".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"},
		IDs: map[string]string{".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp"}},
}

// languages is the built-in table with the settings' entries over it: an
// entry named like a built-in language replaces it, another adds one, and
// its extensions are taken from the others.
func languages(cfg map[string]settings.LSPServer) []Language {
	names := make([]string, 0, len(cfg))
	for name := range cfg {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []Language
	taken := map[string]bool{}
	for _, name := range names {
		s := cfg[name]
		out = append(out, Language{Name: name, Commands: [][]string{s.Command}, Extensions: s.Extensions})
		for _, e := range s.Extensions {
			taken[strings.ToLower(e)] = true
		}
	}
	for _, l := range builtin {
		if _, ok := cfg[l.Name]; ok {
			continue
		}
		var exts []string
		for _, e := range l.Extensions {
			if !taken[e] {
				exts = append(exts, e)
			}
		}
		l.Extensions = exts
		out = append(out, l)
	}
	return out
}

// languageOf is the language of path's extension, if any.
func languageOf(langs []Language, path string) (Language, bool) {
	ext := strings.ToLower(filepath.Ext(path))
	if ext == "" {
		return Language{}, false
	}
	for _, l := range langs {
		for _, e := range l.Extensions {
			if strings.ToLower(e) == ext {
				return l, true
			}
		}
	}
	return Language{}, false
}

// languageID is the languageId didOpen sends for path.
func (l Language) languageID(path string) string {
	if id, ok := l.IDs[strings.ToLower(filepath.Ext(path))]; ok {
		return id
	}
	return l.Name
}
