// Package dotenv reads the .env files of a workspace for the secret values
// they hold, so that aci can keep those values out of the environment of
// the commands it runs and out of the commits they make.
package dotenv

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/joho/godotenv"
)

// Secret is one value a .env file holds, with where it came from. Label
// names the file and variable, never the value.
type Secret struct {
	Label string // ".env.local: STRIPE_KEY"
	Value string
}

const (
	maxFiles    = 64
	maxFileSize = 256 << 10
	minLen      = 8
)

// Files lists the .env files of the workspace dir: .env and .env.* at its
// top and up to two folders down (monorepos keep one per app), without
// the templates meant to be committed (.env.example and the like) and
// without node_modules and .git.
func Files(dir string) []string {
	var out []string
	for _, pat := range []string{".env*", "*/.env*", "*/*/.env*"} {
		m, _ := filepath.Glob(filepath.Join(dir, pat))
		for _, p := range m {
			rel, _ := filepath.Rel(dir, p)
			if skipped(rel) {
				continue
			}
			if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxFileSize {
				continue
			}
			out = append(out, p)
			if len(out) == maxFiles {
				return out
			}
		}
	}
	return out
}

// skipped reports template files and folders that are not the project's.
func skipped(rel string) bool {
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if part == "node_modules" || part == ".git" || part == "vendor" {
			return true
		}
	}
	base := strings.ToLower(filepath.Base(rel))
	if base != ".env" && !strings.HasPrefix(base, ".env.") {
		return true // .envrc, .environment
	}
	for _, t := range []string{"example", "sample", "template", "dist", "defaults", "schema", "tpl"} {
		if strings.Contains(base, t) {
			return true
		}
	}
	return false
}

// Secrets reads the workspace's .env files and returns the values that
// look secret (see LooksSecret), sorted by label. Unreadable files are
// skipped: this feeds a safety net, not the configuration.
func Secrets(dir string) []Secret {
	var out []Secret
	seen := map[string]bool{}
	for _, f := range Files(dir) {
		vars, err := godotenv.Read(f)
		if err != nil {
			continue
		}
		rel, _ := filepath.Rel(dir, f)
		for k, v := range vars {
			v = strings.TrimSpace(v)
			if !LooksSecret(k, v) || seen[v] {
				continue
			}
			seen[v] = true
			out = append(out, Secret{Label: rel + ": " + k, Value: v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	return out
}

// Values returns the values of Secrets(dir).
func Values(dir string) []string {
	s := Secrets(dir)
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = x.Value
	}
	return out
}

// credentialWords in a variable's name say its value is a credential.
var credentialWords = []string{"KEY", "TOKEN", "SECRET", "PASS", "PWD", "AUTH", "CREDENTIAL", "PRIVATE",
	"DSN", "DATABASE_URL", "CONNECTION", "COOKIE", "SESSION", "SIGNING", "WEBHOOK", "SALT"}

// LooksSecret reports whether a .env value is worth keeping in: at least
// 8 characters, and either its name says credential (API_KEY, DB_PASS,
// SENTRY_DSN) or the value looks random (16+ characters mixing letters
// and digits, no spaces, not a path or a plain URL). Ordinary settings
// (NODE_ENV=development, PORT=3000, HOST=localhost) are not: treating them
// as secrets would flag every commit that mentions them.
func LooksSecret(name, value string) bool {
	if len(value) < minLen {
		return false
	}
	n := strings.ToUpper(name)
	for _, w := range credentialWords {
		if strings.Contains(n, w) {
			return !placeholder(value) && (!strings.Contains(value, "://") || urlCarriesSecret(value, 8))
		}
	}
	if len(value) < 16 || strings.ContainsAny(value, " \t") || strings.HasPrefix(value, "/") || strings.HasPrefix(value, ".") {
		return false
	}
	if strings.Contains(value, "://") {
		return urlCarriesSecret(value, 1<<30)
	}
	letters, digits := false, false
	for _, r := range value {
		switch {
		case r >= '0' && r <= '9':
			digits = true
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			letters = true
		}
	}
	return letters && digits
}

// placeholder reports values that stand for a credential without being
// one ("changeme", "your-api-key-here").
func placeholder(v string) bool {
	l := strings.ToLower(v)
	for _, w := range []string{"changeme", "change-me", "your", "xxxxxxxx", "placeholder", "example", "<", "${"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// urlCarriesSecret reports a URL with a password in it, or, under a
// credential name, a path of at least pathLen characters (a webhook's
// token): postgres://localhost/app is an address, not a secret.
func urlCarriesSecret(v string, pathLen int) bool {
	_, rest, _ := strings.Cut(v, "://")
	host, path, _ := strings.Cut(rest, "/")
	if at := strings.LastIndexByte(host, '@'); at > 0 && strings.Contains(host[:at], ":") {
		return true
	}
	return len(path) >= pathLen
}
