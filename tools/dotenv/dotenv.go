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

	"github.com/aci-dev/aci/tools/secrets"
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
)

// Files lists the .env files of the workspace dir: .env, .env.* and *.env at its
// top and up to two folders down (monorepos keep one per app), without
// the templates meant to be committed (.env.example and the like) and
// without node_modules and .git.
func Files(dir string) []string {
	var out []string
	seen := map[string]bool{}
	for _, pat := range []string{".env*", "*.env", "*/.env*", "*/*.env", "*/*/.env*", "*/*/*.env"} {
		m, _ := filepath.Glob(filepath.Join(dir, pat))
		for _, p := range m {
			rel, _ := filepath.Rel(dir, p)
			if seen[p] || skipped(rel) {
				continue
			}
			seen[p] = true
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
	// .envrc, .environment and the templates (.env.example) are not.
	return secrets.SecretFile(filepath.Base(rel)) != secrets.EnvFile
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

// LooksSecret reports whether a .env value is worth keeping in: the one
// definition of a credential's name and value (secrets.LooksSecret).
func LooksSecret(name, value string) bool { return secrets.LooksSecret(name, value) }
