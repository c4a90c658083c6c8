package settings

import (
	"encoding/json"
	"fmt"
	"strings"
)

// LSPServer is one entry of `lsp`: the language server a language's files
// get their diagnostics from.
type LSPServer struct {
	Command    []string `json:"command"`
	Extensions []string `json:"extensions"`
}

// parseLSP reads `lsp`, from the person's file only: a server is a
// program aci runs, which a cloned repository must not pick. A bad entry
// is named in problems and left out.
func parseLSP(path string, raw json.RawMessage) (map[string]LSPServer, []string) {
	if raw == nil {
		return nil, nil
	}
	var f struct {
		LSP map[string]LSPServer
	}
	if err := json.Unmarshal(raw, &f.LSP); err != nil {
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
