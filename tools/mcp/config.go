// Package mcp connects aci to Model Context Protocol servers: it reads their
// configuration (.mcp.json in the workspace, mcp.json in the user's config
// folder) and keeps a pool of running servers, each started on first use and
// stopped when the last window using it closes or aci exits.
package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/aci-dev/aci/internal/dirs"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/wsenv"
)

// Server kinds.
const (
	Stdio = "stdio"
	HTTP  = "http"
)

// ServerConfig is one entry of "mcpServers".
type ServerConfig struct {
	Name    string
	Type    string // Stdio or HTTP
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
	// Trust lets every tool of the server run without asking.
	Trust bool
	// Source is the file that declared the server; FromWorkspace says it
	// is the workspace's .mcp.json, which a cloned repository controls.
	Source        string
	FromWorkspace bool
	// Declared is the entry as its file wrote it, ${VAR} unexpanded, one
	// line: what a trust question shows and its record covers.
	Declared string
}

// Describe is a short line saying what the server is.
func (s ServerConfig) Describe() string {
	if s.Type == HTTP {
		return "http " + s.URL
	}
	return strings.TrimSpace(s.Command + " " + strings.Join(s.Args, " "))
}

// Config is the servers declared for a workspace, by name.
type Config struct {
	Servers map[string]ServerConfig
	// Problems lists entries or files that could not be used, for the
	// person; the rest of the configuration still works.
	Problems []string
	// Allow is what a workspace's server may be given of the person's
	// environment (LoadConfig).
	Allow wsenv.List
}

// Names lists the configured servers, sorted.
func (c Config) Names() []string {
	names := make([]string, 0, len(c.Servers))
	for n := range c.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Secrets lists the credential values the configuration hands to servers
// (credential-named env entries, authorization headers), to be kept out of
// what the model and the screen see.
func (c Config) Secrets() []string {
	var out []string
	for _, s := range c.Servers {
		for k, v := range s.Env {
			if sandbox.IsCredentialVar(k) {
				out = append(out, v)
			}
		}
		for k, v := range s.Headers {
			k = strings.ToLower(k)
			if strings.Contains(k, "auth") || strings.Contains(k, "token") || strings.Contains(k, "key") || strings.Contains(k, "secret") || k == "cookie" {
				out = append(out, v)
				if _, cred, ok := strings.Cut(v, " "); ok {
					out = append(out, cred) // "Bearer TOKEN": the token alone too
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// UserConfigPath is $XDG_CONFIG_HOME/aci/mcp.json, or ~/.config/aci/mcp.json.
func UserConfigPath() string {
	return dirs.ConfigFile("mcp.json")
}

// WorkspaceConfigPath is the closest .mcp.json from workdir up to its git
// root, or "" when there is none.
func WorkspaceConfigPath(workdir string) string {
	dir := workdir
	for {
		p := filepath.Join(dir, ".mcp.json")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// LoadConfig reads the user's and the workspace's server configuration; the
// workspace's entry wins for a name both declare. Missing files are fine; a
// bad file or entry is reported in Problems and skipped. allow is the
// person's workspace_env list (wsenv.FromSettings): all a workspace's
// server may be given of the person's environment.
func LoadConfig(workdir string, allow wsenv.List) Config {
	cfg := Config{Servers: map[string]ServerConfig{}, Allow: allow}
	if p := UserConfigPath(); p != "" {
		cfg.merge(p, false)
	}
	if p := WorkspaceConfigPath(workdir); p != "" {
		cfg.merge(p, true, allow.Lookup)
	}
	return cfg
}

func (c *Config) merge(path string, workspace bool, lookup ...func(string) (string, bool)) {
	servers, problems, err := parseFileWith(path, lookup...)
	c.Problems = append(c.Problems, problems...)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.Problems = append(c.Problems, err.Error())
		}
		return
	}
	for _, s := range servers {
		s.FromWorkspace = workspace
		c.Servers[s.Name] = s
	}
}

type rawServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Trust   bool              `json:"trust"`
}

// ParseFile reads one configuration file: its usable servers, and a line
// for each entry that is not.
func ParseFile(path string) ([]ServerConfig, []string, error) {
	return parseFileWith(path)
}

// parseFileWith is ParseFile filling ${VAR} with lookup (the whole
// environment when none is given).
func parseFileWith(path string, lookup ...func(string) (string, bool)) ([]ServerConfig, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	look := os.LookupEnv
	if len(lookup) > 0 && lookup[0] != nil {
		look = lookup[0]
	}
	servers, problems, err := parse(data, path, look)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return servers, problems, nil
}

// Parse reads configuration text; source names it in messages.
func Parse(data []byte, source string) ([]ServerConfig, []string, error) {
	return parse(data, source, os.LookupEnv)
}

// parse is Parse filling ${VAR} with lookup; a reference lookup does not
// fill is named in the problems (the entry still works, with the
// reference's default or nothing in its place).
func parse(data []byte, source string, lookup func(string) (string, bool)) ([]ServerConfig, []string, error) {
	var file struct {
		Servers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, nil, fmt.Errorf("not valid JSON of the shape {\"mcpServers\": {...}}: %w", err)
	}
	var out []ServerConfig
	var problems []string
	for name, raw := range file.Servers {
		ex := &expander{lookup: lookup}
		s, err := parseServer(name, raw, ex)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: server %q: %v", source, name, err))
			continue
		}
		if len(ex.refused) > 0 {
			problems = append(problems, fmt.Sprintf("%s: server %q: %s", source, name, wsenv.Why(ex.refusedNames())))
		}
		s.Source = source
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	sort.Strings(problems)
	return out, problems, nil
}

func parseServer(name string, raw json.RawMessage, ex *expander) (ServerConfig, error) {
	expand := ex.expand
	if name == "" || strings.ContainsAny(name, " \t\n/\\") {
		return ServerConfig{}, errors.New("a name must be one word without slashes")
	}
	var r rawServer
	if err := json.Unmarshal(raw, &r); err != nil {
		return ServerConfig{}, fmt.Errorf("bad entry: %w", err)
	}
	s := ServerConfig{Name: name, Trust: r.Trust, Env: map[string]string{}, Headers: map[string]string{}}
	switch strings.ToLower(r.Type) {
	case "", Stdio:
		if r.Command == "" {
			if r.URL != "" {
				return ServerConfig{}, errors.New(`has a "url" but no "type": "http"`)
			}
			return ServerConfig{}, errors.New(`needs a "command" (or "type": "http" and a "url")`)
		}
		s.Type = Stdio
		s.Command = expand(r.Command)
		for _, a := range r.Args {
			s.Args = append(s.Args, expand(a))
		}
		for k, v := range r.Env {
			s.Env[k] = expand(v)
		}
	case HTTP, "streamable-http", "streamablehttp":
		if r.URL == "" {
			return ServerConfig{}, errors.New(`"type": "http" needs a "url"`)
		}
		s.Type = HTTP
		s.URL = expand(r.URL)
		if !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://") {
			return ServerConfig{}, fmt.Errorf("url %q is not http(s)", s.URL)
		}
		for k, v := range r.Headers {
			s.Headers[k] = expand(v)
		}
	default:
		return ServerConfig{}, fmt.Errorf("type %q is not supported (use \"stdio\" or \"http\")", r.Type)
	}
	s.Declared = declared(s.Type, r)
	return s, nil
}

// declared is one line saying all of a raw entry: what would run or be
// reached, with what, ${VAR} as written.
func declared(kind string, r rawServer) string {
	var b strings.Builder
	if kind == HTTP {
		fmt.Fprintf(&b, "http %s", r.URL)
		for _, k := range sortedKeys(r.Headers) {
			fmt.Fprintf(&b, ", header %s: %s", k, r.Headers[k])
		}
	} else {
		b.WriteString(strings.TrimSpace(r.Command + " " + strings.Join(r.Args, " ")))
		for _, k := range sortedKeys(r.Env) {
			fmt.Fprintf(&b, ", env %s=%s", k, r.Env[k])
		}
	}
	if r.Trust {
		b.WriteString(`, "trust": true (its tools run without asking)`)
	}
	return b.String()
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// expander fills ${VAR} from lookup and keeps the names it would not.
type expander struct {
	lookup  func(string) (string, bool)
	refused map[string]bool
}

func (e *expander) refusedNames() []string {
	out := make([]string, 0, len(e.refused))
	for n := range e.refused {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// expand replaces ${VAR} and ${VAR:-default} with the environment (as
// far as lookup gives it), as other agents' configurations do, so tokens
// need not be written into the file. A bare $ is kept: arguments may hold
// one. A name that is set but lookup refuses is kept in refused, to be
// said.
func (e *expander) expand(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		ref := s[i+2 : i+j]
		name, def, hasDef := strings.Cut(ref, ":-")
		v, ok := e.lookup(name)
		if _, set := os.LookupEnv(name); set && !ok {
			if e.refused == nil {
				e.refused = map[string]bool{}
			}
			e.refused[name] = true
		}
		if ok && (v != "" || !hasDef) {
			b.WriteString(v)
		} else {
			b.WriteString(def)
		}
		s = s[i+j+1:]
	}
}
