package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadLSP(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		want     map[string]LSPServer
		problems []string
	}{
		{"absent", "", nil, nil},
		{"none", `{"limits": {}}`, map[string]LSPServer{}, nil},
		{"one", `{"lsp": {"lua": {"command": ["lua-language-server"], "extensions": [".lua", "luau"]}}}`,
			map[string]LSPServer{"lua": {Command: []string{"lua-language-server"}, Extensions: []string{".lua", ".luau"}}}, nil},
		{"no command", `{"lsp": {"lua": {"extensions": [".lua"]}}}`, map[string]LSPServer{}, []string{"lsp.lua needs a command"}},
		{"no extensions", `{"lsp": {"lua": {"command": ["x"]}}}`, map[string]LSPServer{}, []string{"lsp.lua needs extensions"}},
		{"bad json", `{"lsp": [1]}`, nil, []string{"lsp:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.json")
			if tt.file != "" {
				if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			got, problems := readLSP(path)
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for k, w := range tt.want {
				g := got[k]
				if strings.Join(g.Command, " ") != strings.Join(w.Command, " ") || strings.Join(g.Extensions, " ") != strings.Join(w.Extensions, " ") {
					t.Errorf("%s: got %+v, want %+v", k, g, w)
				}
			}
			if len(problems) != len(tt.problems) {
				t.Fatalf("problems %q, want %q", problems, tt.problems)
			}
			for i, p := range tt.problems {
				if !strings.Contains(problems[i], p) {
					t.Errorf("problem %q lacks %q", problems[i], p)
				}
			}
		})
	}
}
