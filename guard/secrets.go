package guard

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/aci-dev/aci/tools/secrets"
)

// Secrets that live anywhere (in the project too), recognised by name:
// .env files, private keys and credential files. Opening one through a file
// window, or printing or sending one with a command, hands its content to
// the model or the network.

// nameSecretWhy names the secret a file of this base name is; "" for none
// (the one definition: secrets.SecretFile). path is read only for a
// registry's settings, a secret only when it holds a token.
func nameSecretWhy(path, base string) string {
	k := secrets.SecretFile(base)
	if k == secrets.Registry && !secrets.HasToken(path) {
		return ""
	}
	return k.Why(base)
}

// credentialPattern reports a search pattern (grep's) that picks out
// credential variables: one of its words is a credential's name.
func credentialPattern(pat string) bool {
	for _, w := range strings.FieldsFunc(pat, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if secrets.IsCredentialVar(w) {
			return true
		}
	}
	return false
}

// fileSecretWhy judges opening p (absolute, clean) in a file window: the
// system and home secrets, anything in a secret store, and secrets by name.
func (e *guardPaths) fileSecretWhy(p string) string {
	if why := e.secretWhy(p, false); why != "" {
		return why
	}
	for _, h := range e.homesOf(p) {
		if h == "" || h == "/" || !pathWithin(p, h) || p == h {
			continue
		}
		if s := secrets.HomeStore(strings.TrimPrefix(p, h+"/")); s != "" {
			return "opens a secret store (~/" + s + ")"
		}
	}
	return nameSecretWhy(p, filepath.Base(p))
}

// hardLinkWhy catches a hard link to a secret: the name is harmless and
// there is no symlink to resolve, but the file is the key itself. Only
// files with more than one link are checked (pnpm's store links are
// readable by everyone; keys are private to their owner).
func (e *guardPaths) hardLinkWhy(p string) string {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || linkCount(fi) < 2 {
		return ""
	}
	for _, s := range e.secretFiles() {
		if si, err := os.Stat(s); err == nil && os.SameFile(fi, si) {
			return "opens a hard link to a secret (" + s + ")"
		}
	}
	if fi.Mode().Perm()&0o077 == 0 {
		return "opens a hard link to a file private to its owner"
	}
	return ""
}

// secretFiles lists the home's secret files that exist, to compare a
// hard-linked file against.
func (e *guardPaths) secretFiles() []string {
	var out []string
	if e.homeLex == "/" {
		return nil
	}
	if keys, err := filepath.Glob(filepath.Join(e.homeLex, ".ssh", "id_*")); err == nil {
		out = append(out, keys...)
	}
	for _, rel := range secrets.HomeStores {
		out = append(out, filepath.Join(e.homeLex, rel))
	}
	return out
}

// reSafetySwitch and reDotEnv find a command that puts ACI_YES or
// ACI_SANDBOX into a .env file, by whatever program writes it.
var (
	reSafetySwitch = lazyRegexp(`ACI_(YES|SANDBOX)`)
	reDotEnv       = lazyRegexp(`\.env`)
)
