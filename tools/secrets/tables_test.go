package secrets

import (
	"os"
	"path/filepath"
	"testing"
)

// The secret file names of docs/protocol.md §2 and the guard's extras; the
// templates are not secrets; a registry's file is one with a token only.
func TestSecretFile(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, body string
		want       bool
	}{
		{".env", "", true}, {".ENV.Local", "", true}, {".env.dist", "", true}, {".env.defaults", "", true},
		{"prod.env", "", true}, {"app.example.env", "", false}, {"example.env", "", false},
		{".env.example", "", false}, {".env.sample", "", false}, {".env.template", "", false},
		{".env.local.example", "", false}, {".env.example.local", "", true},
		{"server.pem", "", true}, {"tls.key", "", true}, {"x.p12", "", true}, {"a.pfx", "", true},
		{"id_rsa", "", true}, {"id_ed25519_sk", "", true}, {"id_rsa.pub", "", false},
		{"credentials.json", "", true}, {".netrc", "", true}, {"terraform.tfvars", "", true},
		{"key-private.asc", "", true}, {"key.asc", "", false},
		{".npmrc", "//r/:_authToken=x", true}, {".npmrc", "registry=https://r/", false},
		{".pypirc", "password = p", true}, {".yarnrc.yml", "npmAuthIdent: x", true},
		{".envrc", "", false}, {"environment.go", "", false}, {"keys.go", "", false},
	} {
		p := filepath.Join(dir, tc.name)
		os.WriteFile(p, []byte(tc.body), 0o600)
		if got := IsSecretFile(p); got != tc.want {
			t.Errorf("%s (%q): %v, want %v", tc.name, tc.body, got, tc.want)
		}
		os.Remove(p)
	}
}

// The contract's suffixes and their kin, case and spelling folded.
func TestIsCredentialVar(t *testing.T) {
	for name, want := range map[string]bool{
		"OPENAI_API_KEY": true, "github_token": true, "accessToken": true, "client-secret": true,
		"apiKey": true, "DB_PASS": true, "PGPASSWORD": true, "SSH_AUTH_SOCK": true, "token": true,
		"AWS_ACCESS_KEY_ID": true, "SENTRY_DSN": true, "PAT_GITHUB": true,
		"PWD": false, "OLDPWD": false, "max_tokens": false, "PATH": false, "KEYBOARD": false,
		"pageSize": false, "": false,
	} {
		if got := IsCredentialVar(name); got != want {
			t.Errorf("%q: %v, want %v", name, got, want)
		}
	}
}

// Stores and start-up files cover themselves and what lies below them.
func TestProtectedPlaces(t *testing.T) {
	if HomeStore(".ssh/id_rsa") != ".ssh" || HomeStore(".sshd") != "" || HomeStore(".config/aci/settings.json") != ".config/aci" {
		t.Error("HomeStore")
	}
	if !HoldsHomeStore(".config") || HoldsHomeStore(".ssh") || HoldsHomeStore("src") {
		t.Error("HoldsHomeStore")
	}
	if StartupFile(".config/fish/config.fish") != ".config/fish" || StartupFile(".local/bin/git") != ".local/bin" || StartupFile(".local/share/x") != "" {
		t.Error("StartupFile")
	}
	for p, want := range map[string]bool{"/etc/shadow": true, "/etc/shadow-": true, "/etc/sudoers.d/x": true,
		"/etc/ssh/ssh_host_ed25519_key": true, "/etc/ssh/ssh_host_ed25519_key.pub": false, "/etc/passwd": false} {
		if IsSystemSecret(p) != want {
			t.Errorf("IsSystemSecret(%s) != %v", p, want)
		}
	}
}

// A value under a credential's name, random-looking, or a URL with a
// password is a secret; placeholders and ordinary settings are not.
func TestLooksSecret(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        bool
	}{
		{"API_KEY", "sk-abc123def456", true}, {"DB_PASS", "hunter2-horse", true},
		{"DATABASE_URL", "postgres://app:s3cret@db/app", true}, {"DATABASE_URL", "postgres://localhost/app", false},
		{"API_KEY", "your-api-key-here", false}, {"NODE_ENV", "development", false},
		{"STRIPE", "rk_live_51Habc123XYZ987", true}, {"PORT", "3000", false},
	} {
		if got := LooksSecret(tc.name, tc.value); got != tc.want {
			t.Errorf("LooksSecret(%s, %q) = %v, want %v", tc.name, tc.value, got, tc.want)
		}
	}
}
