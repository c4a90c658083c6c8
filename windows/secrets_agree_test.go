package windows

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aci-dev/aci/guard"
	"github.com/aci-dev/aci/tools/dotenv"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/secrets"
)

// secretCorpus is a workspace of files named like secrets and like
// ordinary files; want says whether each is a secret file (docs/protocol.md
// §2, Containment).
var secretCorpus = []struct {
	name, body string
	want       bool
}{
	{".env", "A_TOKEN=value-0001\n", true},
	{".env.local", "A=1\n", true},
	{".env.production", "A=1\n", true},
	{".env.dist", "A=1\n", true},
	{".env.defaults", "A=1\n", true},
	{"app/.env", "A=1\n", true},
	{"prod.env", "A=1\n", true},
	{"credentials.json", `{"token":"x"}`, true},
	{".netrc", "machine h login u password p\n", true},
	{"x.p12", "bin", true},
	{"certs/server.pem", "pem", true},
	{"tls.key", "key", true},
	{"keys/id_rsa", "key", true},
	{"keys/id_ed25519", "key", true},
	{"store.jks", "jks", true},
	{"putty.ppk", "ppk", true},
	{"my-private.asc", "asc", true},
	{"client_secret.json", "{}", true},
	{"secrets.yml", "a: b\n", true},
	{"terraform.tfvars", "a = 1\n", true},
	{".git-credentials", "https://u:p@h\n", true},
	{".npmrc", "//registry.npmjs.org/:_authToken=npm_abc\n", true},
	{"a/.pypirc", "[pypi]\nusername = __token__\npassword = pypi-abc\n", true},
	{".yarnrc.yml", "npmAuthToken: abc\n", true},
	{".env.example", "A=\n", false},
	{".env.sample", "A=\n", false},
	{".env.template", "A=\n", false},
	{".env.local.example", "A=\n", false},
	{"example.env", "A=\n", false},
	{"keys/id_rsa.pub", "ssh-ed25519 AAAA\n", false},
	{"b/.npmrc", "registry=https://registry.npmjs.org/\n", false},
	{"b/.pypirc", "[distutils]\nindex-servers = pypi\n", false},
	{"public.asc", "asc", false},
	{"main.go", "package main\n", false},
	{"environment.go", "package env\n", false},
	{"docs/env.md", "# env\n", false},
	{"keys.go", "package keys\n", false},
}

// Every consumer of the one table of secret files agrees, name by name:
// the table itself, the guard judging a command that reads the file, the
// file window asking before it opens it, the sandbox keeping it back from
// contained commands (under bubblewrap), and the .env files whose values
// aci keeps out of commits and output.
func TestConsumersAgree(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	asked := map[string]bool{}
	m, dir := newAppsManager(t, ApproverFunc(func(_ context.Context, req ApprovalRequest) Decision {
		asked[strings.TrimPrefix(req.Subject, "open ")] = true
		return Decision{Message: "no"}
	}))
	for _, f := range secretCorpus {
		p := filepath.Join(dir, f.name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(f.body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	g := guard.New(guard.Env{Home: home, TempDirs: []string{"/var/empty-tmp"}, Cwd: dir})
	sb := sandbox.For(dir)
	var kept []string
	bwrap := sb.Kind() == sandbox.Bwrap
	if bwrap {
		kept = sb.KeptBack()
	}
	envFiles := dotenv.Files(dir)
	for _, f := range secretCorpus {
		p := filepath.Join(dir, f.name)
		if got := secrets.IsSecretFile(p); got != f.want {
			t.Errorf("%s: the table says secret=%v, want %v", f.name, got, f.want)
		}
		if v := g.Check("cat "+f.name, dir); v.Dangerous != f.want {
			t.Errorf("%s: the guard says %+v for cat, want dangerous=%v", f.name, v, f.want)
		}
		r := do(t, m, "launcher", "open", mustJSON(map[string]string{"app": "file", "target": f.name}))
		if asked[f.name] != f.want {
			t.Errorf("%s: the file window asked=%v, want %v (%s)", f.name, asked[f.name], f.want, r.Text)
		}
		if id, ok := strings.CutPrefix(r.Text, "opened "); ok {
			do(t, m, id, "close", "")
		}
		if bwrap && slices.Contains(kept, p) != f.want {
			t.Errorf("%s: the sandbox keeps it back=%v, want %v (kept %v)", f.name, !f.want, f.want, kept)
		}
		isEnv := secrets.SecretFile(filepath.Base(f.name)) == secrets.EnvFile
		if slices.Contains(envFiles, p) != isEnv {
			t.Errorf("%s: dotenv reads it=%v, want %v", f.name, !isEnv, isEnv)
		}
	}
	if !bwrap {
		t.Log("bubblewrap cannot run here: the sandbox's kept-back files were not compared")
	}
}

// The credential variables are one set for the guard (a command printing
// one is asked), the environment commands get (sandbox.Environ strips
// them, contained or not) and redaction (config adds their values).
func TestCredentialVarsAgree(t *testing.T) {
	g := guard.New(guard.Env{Home: t.TempDir(), Cwd: t.TempDir()})
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"OPENAI_API_KEY", true}, {"GITHUB_TOKEN", true}, {"AWS_SECRET_ACCESS_KEY", true},
		{"AWS_ACCESS_KEY_ID", true}, {"AWS_SESSION_TOKEN", true}, {"DB_PASSWORD", true},
		{"DB_PASS", true}, {"PGPASSWORD", true}, {"MYSQL_PWD", true}, {"STRIPE_SECRET", true},
		{"SENTRY_DSN", true}, {"DATABASE_URL", true}, {"SLACK_WEBHOOK_URL", true},
		{"NPM_CONFIG__AUTH", true}, {"OTEL_EXPORTER_OTLP_HEADERS", true}, {"GITHUB_PAT", true}, {"ACI_SERVE_TOKEN", true}, {"GPG_PASSPHRASE", true},
		{"HOME", false}, {"PATH", false}, {"PWD", false}, {"OLDPWD", false}, {"ACI_COMPRESS_TOKENS", false},
		{"OPENAI_MODEL", false}, {"GOPATH", false}, {"LANG", false}, {"MONKEY", false}, {"SHELL", false},
	} {
		if got := secrets.IsCredentialVar(tc.name); got != tc.want {
			t.Errorf("%s: the table says %v, want %v", tc.name, got, tc.want)
		}
		if v := g.Check(`echo "$`+tc.name+`"`, ""); v.Dangerous != tc.want {
			t.Errorf("%s: the guard says %+v for echo, want dangerous=%v", tc.name, v, tc.want)
		}
		stripped := len(sandbox.Environ([]string{tc.name + "=value-123456789"})) == 0
		if stripped != tc.want {
			t.Errorf("%s: commands' environment strips it=%v, want %v", tc.name, stripped, tc.want)
		}
	}
}

// The person's secret stores are one set for the guard (the file window
// asks before opening anything in one) and the sandbox (hidden from
// contained commands).
func TestHomeStoresAgree(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, s := range secrets.HomeStores {
		p := filepath.Join(home, s)
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte("secret\n"), 0o600)
	}
	g := guard.New(guard.Env{Home: home, Cwd: t.TempDir()})
	hidden := sandbox.SecretStores()
	for _, s := range secrets.HomeStores {
		p := filepath.Join(home, s)
		if v := g.CheckPath(p, "", false); !v.Dangerous {
			t.Errorf("~/%s: the file window would open it unasked", s)
		}
		if rp, _ := filepath.EvalSymlinks(p); !slices.Contains(hidden, rp) {
			t.Errorf("~/%s: not hidden from contained commands", s)
		}
	}
	// And the start-up files: a write is asked as one.
	for _, s := range secrets.StartupFiles {
		v := g.CheckPath(filepath.Join(home, s), "", true)
		if !v.Dangerous {
			t.Errorf("~/%s: a write is not asked", s)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
