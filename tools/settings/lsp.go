package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// LSPServer is one entry of `lsp`: the language server a language's files
// get their diagnostics from.
type LSPServer struct {
	Command    []string `json:"command"`
	Extensions []string `json:"extensions"`
}

// LoadLSP reads `lsp` from the person's settings file only: a server is a
// program aci runs, which a cloned repository must not pick. A file that
// cannot be read or parsed, or a bad entry, is named in problems and left
// out.
func LoadLSP() (map[string]LSPServer, []string) {
	return readLSP(UserPath())
}

func readLSP(path string) (map[string]LSPServer, []string) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []string{fmt.Sprintf("settings: %v", err)}
	}
	var f struct {
		LSP map[string]LSPServer `json:"lsp"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, []string{fmt.Sprintf("settings: %s: lsp: %v", path, err)}
	}
	var problems []string
	out := map[string]LSPServer{}
	for lang, s := range f.LSP {
		switch {
		case len(s.Command) == 0 || strings.TrimSpace(s.Command[0]) == "":
			problems = append(problems, fmt.Sprintf("settings: %s: lsp.%s needs a command, e.g. [\"lua-language-server\"]", path, lang))
			continue
		case len(s.Extensions) == 0:
			problems = append(problems, fmt.Sprintf("settings: %s: lsp.%s needs extensions, e.g. [\".lua\"]", path, lang))
			continue
		}
		for i, e := range s.Extensions {
			if !strings.HasPrefix(e, ".") {
				s.Extensions[i] = "." + e
			}
		}
		out[lang] = s
	}
	return out, problems
}
