package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/aci-dev/aci/internal/dirs"
)

// Each scope's settings are read once at start into one value (Person,
// Project) and handed down to whoever needs a key of them: main, the
// session factory, the windows, hooks, rules and language servers. No
// other package opens a settings file.

// reads counts the times each settings file was read (Reads).
var reads struct {
	sync.Mutex
	n map[string]int
}

// Reads is how many times this process has read the settings file at
// path: tests show each is read once per start with it.
func Reads(path string) int {
	reads.Lock()
	defer reads.Unlock()
	return reads.n[path]
}

// readTop reads one file's top-level keys; a missing file is none. An
// unreadable or malformed file is one error naming it.
func readTop(path string) (map[string]json.RawMessage, error) {
	if path == "" {
		return nil, nil
	}
	reads.Lock()
	if reads.n == nil {
		reads.n = map[string]int{}
	}
	reads.n[path]++
	reads.Unlock()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, fmt.Errorf("settings: %s: %w", path, err)
	}
	return top, nil
}

// UserPath is the person's settings file, "" when there is no home.
func UserPath() string { return dirs.ConfigFile("settings.json") }

// Person is the person's settings file, read once. Every key is the
// person's to set; Err is what makes the file unusable (unreadable,
// malformed, a bad provider, price or budget), which stops aci at start;
// Problems are bad entries left out, said at each session's start.
type Person struct {
	Path        string
	Err         error
	Problems    []string
	Limits      Limits
	Network     Network
	Budgets     Budgets
	Permissions Permissions
	Hooks       []HookGroup
	Providers   map[string]Provider
	Prices      map[string]Price
	LSP         map[string]LSPServer
	Search      Search
	// DiffTool and StatusLine are programs aci starts for the person
	// (the REPL's /diff tool, its status line): the person's file only.
	DiffTool   string
	StatusLine *StatusLine
	top        map[string]json.RawMessage
}

// Raw is the person's value of key, for the packages that own its shape
// (workspace_env, statusLine); nil when unset.
func (p *Person) Raw(key string) json.RawMessage {
	if p == nil {
		return nil
	}
	return p.top[key]
}

// ReadPerson reads the person's file.
func ReadPerson() *Person {
	p := &Person{Path: UserPath()}
	top, err := readTop(p.Path)
	if err != nil {
		p.Err = err
		return p
	}
	p.top = top
	fail := func(err error) {
		if p.Err == nil {
			p.Err = err
		}
	}
	var s Settings
	if err := decodeLimits(p.Path, top, &s); err != nil {
		fail(err)
	} else {
		p.Limits, p.Network = s.Limits, s.Network
	}
	m, err := parseModels(p.Path, top)
	fail(err)
	p.Providers, p.Prices = m.Providers, m.Prices
	p.Budgets, err = parseBudgets(p.Path, top["limits"])
	fail(err)
	var probs []string
	p.Permissions, p.Hooks, probs = parsePolicy(p.Path, top, false)
	p.Problems = append(p.Problems, probs...)
	p.LSP, probs = parseLSP(p.Path, top["lsp"])
	p.Problems = append(p.Problems, probs...)
	if raw := top["diff_tool"]; raw != nil {
		if err := json.Unmarshal(raw, &p.DiffTool); err != nil {
			p.Problems = append(p.Problems, p.Path+": diff_tool is not a string; left out")
		}
	}
	if raw := top["statusLine"]; raw != nil {
		var sl StatusLine
		if err := json.Unmarshal(raw, &sl); err != nil || sl.Command == "" {
			p.Problems = append(p.Problems, p.Path+`: statusLine wants {"type": "command", "command": "..."}; left out`)
		} else {
			p.StatusLine = &sl
		}
	}
	p.Search, probs = parseSearch(p.Path, top["search"])
	p.Problems = append(p.Problems, probs...)
	return p
}

// Project is a workspace's settings, read once: .aci/settings.json at its
// root, and .claude/settings.json and settings.local.json for permissions
// and hooks (docs/protocol.md §2, §10). It may only narrow what the person's
// file allows: its limits only lower, its network only denies, its
// permissions and hooks are kept apart (hooks run only in a trusted
// folder), and the keys that pick a program, an endpoint or a search
// engine are the person's alone (ignored here, and said in Notes).
type Project struct {
	Root        string
	Err         error // the .aci file unreadable, malformed or with a bad price: stops aci at start
	Problems    []string
	Notes       []string
	Limits      Limits
	Network     Network // Allow is never used: said in Notes
	Permissions Permissions
	Hooks       []HookGroup
	Prices      map[string]Price
}

// ReadProject reads the project files of the workspace at root ("" is no
// workspace: an empty value).
func ReadProject(root string) *Project {
	pr := &Project{Root: root}
	if root == "" {
		return pr
	}
	for i, path := range ProjectPaths(root) {
		top, err := readTop(path)
		if err != nil {
			if i == 0 {
				pr.Err = err
			} else {
				pr.Problems = append(pr.Problems, err.Error())
			}
			continue
		}
		perms, hooks, probs := parsePolicy(path, top, true)
		pr.Permissions.Allow = append(pr.Permissions.Allow, perms.Allow...)
		pr.Permissions.Deny = append(pr.Permissions.Deny, perms.Deny...)
		pr.Hooks = append(pr.Hooks, hooks...)
		pr.Problems = append(pr.Problems, probs...)
		if i != 0 {
			continue // Claude Code's files: permissions and hooks only
		}
		var s Settings
		if err := decodeLimits(path, top, &s); err != nil {
			if pr.Err == nil {
				pr.Err = err
			}
		} else {
			pr.Limits, pr.Network = s.Limits, s.Network
		}
		m, err := parseModels(path, top)
		if err != nil && pr.Err == nil {
			pr.Err = err
		}
		pr.Prices = m.Prices
		if len(m.Providers) > 0 {
			pr.Notes = append(pr.Notes, fmt.Sprintf("%s: providers are read from your own settings only (%s), not the workspace's: ignored %s",
				path, UserPath(), joinKeys(m.Providers)))
		}
		if top["search"] != nil {
			pr.Problems = append(pr.Problems, fmt.Sprintf("settings: %s: search is ignored there: only the person's settings (%s) choose the search engine",
				path, UserPath()))
		}
	}
	return pr
}

// Problems are both scopes' problems, to be said at a session's start.
func Problems(p *Person, pr *Project) []string {
	var out []string
	if p != nil {
		out = append(out, p.Problems...)
	}
	if pr != nil {
		out = append(out, pr.Problems...)
	}
	return out
}

// decodeLimits reads `limits` and `network` into s.
func decodeLimits(path string, top map[string]json.RawMessage, s *Settings) error {
	for key, into := range map[string]any{"limits": &s.Limits, "network": &s.Network} {
		if raw := top[key]; raw != nil {
			if err := json.Unmarshal(raw, into); err != nil {
				return fmt.Errorf("settings: %s: %s: %w", path, key, err)
			}
		}
	}
	for name, v := range map[string]int64{"memory_mb": s.Limits.MemoryMB, "processes": s.Limits.Processes, "file_size_mb": s.Limits.FileSizeMB} {
		if v < 0 {
			return fmt.Errorf("settings: %s: limits.%s must be positive, got %d", path, name, v)
		}
	}
	return nil
}
