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
// bad file or entry is reported in Problems and skipped.
func LoadConfig(workdir string) Config {
	cfg := Config{Servers: map[string]ServerConfig{}}
	if p := UserConfigPath(); p != "" {
		cfg.merge(p, false)
	}
	if p := WorkspaceConfigPath(workdir); p != "" {
		cfg.merge(p, true)
	}
	return cfg
}

func (c *Config) merge(path string, workspace bool) {
	servers, problems, err := ParseFile(path)
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
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	servers, problems, err := Parse(data, path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return servers, problems, nil
}

// Parse reads configuration text; source names it in messages.
func Parse(data []byte, source string) ([]ServerConfig, []string, error) {
	var file struct {
		Servers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, nil, fmt.Errorf("not valid JSON of the shape {\"mcpServers\": {...}}: %w", err)
	}
	var out []ServerConfig
	var problems []string
	for name, raw := range file.Servers {
		s, err := parseServer(name, raw)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: server %q: %v", source, name, err))
			continue
		}
		s.Source = source
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	sort.Strings(problems)
	return out, problems, nil
}

func parseServer(name string, raw json.RawMessage) (ServerConfig, error) {
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
	return s, nil
}

// expand replaces ${VAR} and ${VAR:-default} with the environment, as other
// agents' configurations do, so tokens need not be written into the file.
// A bare $ is kept: arguments may hold one.
func expand(s string) string {
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
		if v, ok := os.LookupEnv(name); ok && (v != "" || !hasDef) {
			b.WriteString(v)
		} else {
			b.WriteString(def)
		}
		s = s[i+j+1:]
	}
}
