package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// Which names are secret files, as docs/protocol.md §2 lists them.
func TestIsSecretFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o600)
		return p
	}
	for _, tc := range []struct {
		name, body string
		want       bool
	}{
		{".env", "A=1", true},
		{".env.local", "A=1", true},
		{".env.production", "A=1", true},
		{".env.example", "A=", false},
		{".env.sample", "A=", false},
		{".env.template", "A=", false},
		{"server.pem", "x", true},
		{"tls.key", "x", true},
		{"keys/id_rsa", "x", true},
		{"keys/id_ed25519", "x", true},
		{"keys/id_ed25519.pub", "x", false},
		{"a/.npmrc", "//registry.npmjs.org/:_authToken=abc", true},
		{"b/.npmrc", "registry=https://registry.npmjs.org/", false},
		{"a/.pypirc", "[pypi]\nusername = __token__\npassword = pypi-abc", true},
		{"b/.pypirc", "[distutils]\nindex-servers = pypi", false},
		{"environment.txt", "x", false},
		{"main.go", "x", false},
	} {
		if got := IsSecretFile(write(tc.name, tc.body)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
