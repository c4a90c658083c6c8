package settings

import (
	"encoding/json"
	"os"
)

// The tests read through the values, as aci does; these put a scope's
// pieces together the way the old single-key readers did.

func read(ws string) (*Person, *Project) {
	var pr *Project
	if ws != "" {
		pr = ReadProject(ws)
	}
	return ReadPerson(), pr
}

func errsOf(p *Person, pr *Project) []string {
	var out []string
	if p.Err != nil {
		out = append(out, p.Err.Error())
	}
	if pr != nil && pr.Err != nil {
		out = append(out, pr.Err.Error())
	}
	return out
}

func load(ws string) (Settings, []string) {
	p, pr := read(ws)
	return Of(p, pr), errsOf(p, pr)
}

func loadModels(ws string) (Models, error) {
	p, pr := read(ws)
	if p.Err != nil {
		return ModelsOf(nil, nil), p.Err
	}
	if pr != nil && pr.Err != nil {
		return ModelsOf(nil, nil), pr.Err
	}
	return ModelsOf(p, pr), nil
}

func loadPolicy(ws string) (Policy, []string) {
	p, pr := read(ws)
	return PolicyOf(p, pr), append(errsOf(p, pr), Problems(p, pr)...)
}

func loadSearch(ws string) (Search, []string) {
	p, pr := read(ws)
	return p.Search, append(errsOf(p, pr), Problems(p, pr)...)
}

func readLSP(path string) (map[string]LSPServer, []string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, []string{err.Error()}
	}
	return parseLSP(path, top["lsp"])
}
