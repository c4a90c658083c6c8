package mcp

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/testfs"
	"github.com/aci-dev/aci/tools/settings"
	"github.com/aci-dev/aci/tools/wsenv"
)

func TestParse(t *testing.T) {
	t.Setenv("MCPTEST_TOKEN", "s3cret")
	t.Setenv("MCPTEST_EMPTY", "")
	tests := []struct {
		name         string
		json         string
		want         []ServerConfig
		wantProblem  string
		wantErr      string
		checkHeaders map[string]string
	}{
		{name: "stdio", json: `{"mcpServers":{"fs":{"command":"npx","args":["-y","pkg","${HOME_X:-/tmp}"],"env":{"T":"${MCPTEST_TOKEN}"},"trust":true}}}`,
			want: []ServerConfig{{Name: "fs", Type: Stdio, Command: "npx", Args: []string{"-y", "pkg", "/tmp"}, Env: map[string]string{"T": "s3cret"}, Headers: map[string]string{}, Trust: true, Source: "f"}}},
		{name: "http", json: `{"mcpServers":{"api":{"type":"http","url":"https://x.test/mcp","headers":{"Authorization":"Bearer ${MCPTEST_TOKEN}"}}}}`,
			want: []ServerConfig{{Name: "api", Type: HTTP, URL: "https://x.test/mcp", Env: map[string]string{}, Headers: map[string]string{"Authorization": "Bearer s3cret"}, Source: "f"}}},
		{name: "default used when empty", json: `{"mcpServers":{"a":{"command":"x","args":["${MCPTEST_EMPTY:-d}","$PLAIN","${UNSET_X}"]}}}`,
			want: []ServerConfig{{Name: "a", Type: Stdio, Command: "x", Args: []string{"d", "$PLAIN", ""}, Env: map[string]string{}, Headers: map[string]string{}, Source: "f"}}},
		{name: "no command", json: `{"mcpServers":{"a":{"args":["x"]},"b":{"command":"y"}}}`, wantProblem: `server "a": needs a "command"`,
			want: []ServerConfig{{Name: "b", Type: Stdio, Command: "y", Env: map[string]string{}, Headers: map[string]string{}, Source: "f"}}},
		{name: "url without type", json: `{"mcpServers":{"a":{"url":"https://x"}}}`, wantProblem: `has a "url" but no "type": "http"`},
		{name: "unknown type", json: `{"mcpServers":{"a":{"type":"sse","url":"https://x"}}}`, wantProblem: `type "sse" is not supported`},
		{name: "ftp url", json: `{"mcpServers":{"a":{"type":"http","url":"ftp://x"}}}`, wantProblem: `is not http(s)`},
		{name: "bad name", json: `{"mcpServers":{"a b":{"command":"x"}}}`, wantProblem: `one word`},
		{name: "bad entry", json: `{"mcpServers":{"a":{"command":5}}}`, wantProblem: `bad entry`},
		{name: "not json", json: `{"mcpServers":`, wantErr: `not valid JSON`},
		{name: "empty", json: `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems, err := Parse([]byte(tt.json), "f")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantProblem != "" && (len(problems) == 0 || !strings.Contains(problems[0], tt.wantProblem)) {
				t.Errorf("problems = %q, want %q", problems, tt.wantProblem)
			}
			if tt.wantProblem == "" && len(problems) > 0 {
				t.Errorf("unexpected problems %q", problems)
			}
			for i := range got {
				got[i].Declared = "" // TestDeclared
			}
			if len(got) != len(tt.want) || (len(got) > 0 && !reflect.DeepEqual(got, tt.want)) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestLoadConfigWorkspaceWins(t *testing.T) {
	xdg, repo := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	testfs.File(t, filepath.Join(xdg, "aci", "mcp.json"), `{"mcpServers":{"db":{"command":"user-db"},"notes":{"command":"notes","trust":true}}}`)
	testfs.File(t, filepath.Join(repo, ".git", "HEAD"), "ref: x")
	testfs.File(t, filepath.Join(repo, ".mcp.json"), `{"mcpServers":{"db":{"command":"repo-db"},"broken":{}}}`)
	sub := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := LoadConfig(sub, personEnv()) // found from a subfolder, up to the git root
	if got := strings.Join(cfg.Names(), ","); got != "db,notes" {
		t.Fatalf("names %s", got)
	}
	db := cfg.Servers["db"]
	if db.Command != "repo-db" || !db.FromWorkspace || db.Source != filepath.Join(repo, ".mcp.json") {
		t.Errorf("db = %+v, want the workspace's entry", db)
	}
	if n := cfg.Servers["notes"]; n.FromWorkspace || !n.Trust {
		t.Errorf("notes = %+v", n)
	}
	if len(cfg.Problems) != 1 || !strings.Contains(cfg.Problems[0], `"broken"`) {
		t.Errorf("problems %q", cfg.Problems)
	}

	// A broken user file is a problem, not an end.
	testfs.File(t, filepath.Join(xdg, "aci", "mcp.json"), `nope`)
	cfg = LoadConfig(sub, personEnv())
	if _, ok := cfg.Servers["db"]; !ok || len(cfg.Problems) != 2 {
		t.Errorf("servers %v problems %q", cfg.Names(), cfg.Problems)
	}
}

func TestUserConfigPath(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/cfg")
	if p := UserConfigPath(); p != "/cfg/aci/mcp.json" {
		t.Errorf("with XDG_CONFIG_HOME: %s", p)
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", "/home/u")
	if p := UserConfigPath(); p != "/home/u/.config/aci/mcp.json" {
		t.Errorf("default: %s", p)
	}
}

func TestServerEnv(t *testing.T) {
	got := serverEnv([]string{"PATH=/bin", "OPENAI_API_KEY=sk-x", "GITHUB_TOKEN=g", "DB_PASSWORD=p", "HOME=/h", "API_TOKEN=old"},
		map[string]string{"API_TOKEN": "given"})
	want := []string{"PATH=/bin", "HOME=/h", "API_TOKEN=given"}
	cfg := Config{Servers: map[string]ServerConfig{"a": {Env: map[string]string{"GH_TOKEN": "ghp_123456789", "MODE": "fast"},
		Headers: map[string]string{"Authorization": "Bearer tok-abcdefgh", "Accept": "text/plain"}}}}
	if got := strings.Join(cfg.Secrets(), ","); got != "Bearer tok-abcdefgh,ghp_123456789,tok-abcdefgh" {
		t.Errorf("secrets %s", got)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("env %q, want %q", got, want)
	}
}

// A server's Declared line is its whole entry as written: what a trust
// question shows and its record covers.
func TestDeclared(t *testing.T) {
	t.Setenv("MCPTEST_TOKEN", "s3cret")
	got, _, err := Parse([]byte(`{"mcpServers":{"h":{"type":"http","url":"https://x.test/mcp","headers":{"X-B":"2","Authorization":"Bearer ${MCPTEST_TOKEN}"}},`+
		`"s":{"command":"node","args":["srv.js"],"env":{"B":"1","A":"${MCPTEST_TOKEN}"},"trust":true}}}`), "f")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"http https://x.test/mcp, header Authorization: Bearer ${MCPTEST_TOKEN}, header X-B: 2",
		`node srv.js, env A=${MCPTEST_TOKEN}, env B=1, "trust": true (its tools run without asking)`}
	for i, s := range got {
		if s.Declared != want[i] {
			t.Errorf("%s: Declared = %q, want %q", s.Name, s.Declared, want[i])
		}
	}
}

// A workspace's .mcp.json gets only allow-listed variables filled in:
// never the person's key, unless their settings list it.
func TestWorkspaceExpansionAllowList(t *testing.T) {
	cfgHome := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	t.Setenv("OPENAI_API_KEY", "sk-person-secret")
	t.Setenv("MCPTEST_TOKEN", "tok-listed")
	ws := t.TempDir()
	os.Mkdir(filepath.Join(ws, ".git"), 0o755)
	testfs.File(t, filepath.Join(ws, ".mcp.json"), `{"mcpServers":{"h":{"type":"http","url":"https://x.test/mcp?h=${HOME}",`+
		`"headers":{"Authorization":"aci ${OPENAI_API_KEY}","X-T":"${MCPTEST_TOKEN}"}}}}`)
	cfg := LoadConfig(ws, personEnv())
	h := cfg.Servers["h"]
	if h.Headers["Authorization"] != "aci " || h.Headers["X-T"] != "" {
		t.Errorf("headers %q: the person's variables were filled in", h.Headers)
	}
	if !strings.Contains(h.URL, os.Getenv("HOME")) {
		t.Errorf("url %q: HOME is plain and should be filled", h.URL)
	}
	if p := strings.Join(cfg.Problems, "\n"); !strings.Contains(p, "${MCPTEST_TOKEN}, ${OPENAI_API_KEY} not filled in") || !strings.Contains(p, "workspace_env") {
		t.Errorf("problems %q: should name what was not filled in and how to list it", cfg.Problems)
	}
	testfs.File(t, filepath.Join(cfgHome, "aci", "settings.json"), `{"workspace_env": ["MCPTEST_TOKEN"]}`)
	h = LoadConfig(ws, personEnv()).Servers["h"]
	if h.Headers["X-T"] != "tok-listed" || h.Headers["Authorization"] != "aci " {
		t.Errorf("headers %q: a listed variable is filled, the key still not", h.Headers)
	}
	// The person's own file is theirs: filled from the whole environment.
	testfs.File(t, filepath.Join(cfgHome, "aci", "mcp.json"), `{"mcpServers":{"mine":{"type":"http","url":"https://y.test","headers":{"A":"${OPENAI_API_KEY}"}}}}`)
	if got := LoadConfig(ws, personEnv()).Servers["mine"].Headers["A"]; got != "sk-person-secret" {
		t.Errorf("the person's own server header = %q", got)
	}
}

// personEnv is the person's workspace_env list, as the session reads it.
func personEnv() wsenv.List {
	l, _ := wsenv.FromSettings(settings.ReadPerson())
	return l
}
