// Package wsenv decides which of the person's environment variables may
// reach what a workspace declares (docs/protocol.md §2 "Endpoints and keys"):
// the ${VAR} filled into a workspace .mcp.json server's command, args,
// env, URL and headers, and the environment a project hook or a
// workspace MCP server starts with. It is an allow-list: plain variables
// that locate things (HOME, PATH, LANG, tool homes), and the names the
// person lists under "workspace_env" in their own settings file. Nothing
// else passes: not the person's API key, not a provider's key, not
// DATABASE_URL, whatever it is called. A project's settings cannot add to
// the list.
package wsenv

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/aci-dev/aci/tools/settings"
)

// plain are the variables that may pass by default: where things are and
// how text looks, never who the person is to a server.
var plain = map[string]bool{
	"HOME": true, "USER": true, "LOGNAME": true, "PATH": true, "SHELL": true, "PWD": true,
	"TMPDIR": true, "TERM": true, "COLORTERM": true, "NO_COLOR": true, "LANG": true, "LANGUAGE": true,
	"TZ": true, "EDITOR": true, "VISUAL": true, "DISPLAY": true, "WAYLAND_DISPLAY": true,
	"XDG_CONFIG_HOME": true, "XDG_DATA_HOME": true, "XDG_CACHE_HOME": true, "XDG_STATE_HOME": true,
	"XDG_RUNTIME_DIR": true, "XDG_DATA_DIRS": true, "XDG_CONFIG_DIRS": true,
	"GOPATH": true, "GOROOT": true, "GOBIN": true, "GOCACHE": true, "GOMODCACHE": true,
	"CARGO_HOME": true, "RUSTUP_HOME": true, "NVM_DIR": true, "NODE_PATH": true, "PNPM_HOME": true,
	"VIRTUAL_ENV": true, "CONDA_PREFIX": true, "PYENV_ROOT": true, "JAVA_HOME": true,
	"DENO_DIR": true, "BUN_INSTALL": true, "SSL_CERT_FILE": true, "SSL_CERT_DIR": true,
	"CLAUDE_PROJECT_DIR": true, "ACI_PROJECT_DIR": true,
}

// plainPrefixes are families of plain variables (the locale's LC_*).
var plainPrefixes = []string{"LC_"}

// SettingKey is the key of the person's settings file that lists more
// variables a workspace's declarations may use.
const SettingKey = "workspace_env"

// List is the allow-list: the plain variables and the person's names.
type List struct {
	person map[string]bool
}

// FromSettings is the person's list, from their settings read at start
// (the project's files are never read for it); a malformed entry is a
// problem, the rest still applies.
func FromSettings(p *settings.Person) (List, []string) {
	if p == nil {
		return List{person: map[string]bool{}}, nil
	}
	return parse(p.Path, p.Raw(SettingKey))
}

func parse(path string, raw json.RawMessage) (List, []string) {
	l := List{person: map[string]bool{}}
	if raw == nil {
		return l, nil
	}
	var names []string
	if err := json.Unmarshal(raw, &names); err != nil {
		return l, []string{fmt.Sprintf("settings: %s: %s must be a list of variable names, e.g. [\"GITHUB_TOKEN\"]", path, SettingKey)}
	}
	for _, n := range names {
		l.person[strings.TrimSpace(n)] = true
	}
	return l, nil
}

// Allowed reports whether the person's variable name may be filled into,
// or handed to, what a workspace declares.
func (l List) Allowed(name string) bool {
	if l.person[name] || plain[name] {
		return true
	}
	for _, p := range plainPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// Lookup is os.LookupEnv for an allowed name; a name not allowed is unset.
func (l List) Lookup(name string) (string, bool) {
	if !l.Allowed(name) {
		return "", false
	}
	return os.LookupEnv(name)
}

// Environ is the environment a program a workspace declares starts with:
// the allowed variables of env ("NAME=value" entries), in order.
func (l List) Environ(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); l.Allowed(name) {
			out = append(out, kv)
		}
	}
	return out
}

// Refs are the names of the ${VAR} references in s, in order, once each.
func Refs(s string) []string {
	var out []string
	seen := map[string]bool{}
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			return out
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return out
		}
		name, _, _ := strings.Cut(s[i+2:i+j], ":-")
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
		s = s[i+j+1:]
	}
}

// Refused are the references of s that l does not allow, sorted.
func (l List) Refused(s string) []string {
	var out []string
	for _, n := range Refs(s) {
		if !l.Allowed(n) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Why is the sentence said when names were not filled in.
func Why(names []string) string {
	return fmt.Sprintf("%s not filled in from your environment: a workspace's declarations get only plain variables (HOME, PATH, …) and those your settings list under %q (e.g. {%q: [%q]})",
		"${"+strings.Join(names, "}, ${")+"}", SettingKey, SettingKey, names[0])
}
