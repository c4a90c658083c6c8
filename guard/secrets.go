package guard

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// Secrets that live anywhere (in the project too), recognised by name:
// .env files, private keys and credential files. Opening one through a file
// window, or printing or sending one with a command, hands its content to
// the model or the network.

// secretStores are home-relative directories that a file window may not
// open anything in without asking (known_hosts and public keys included:
// the directory is the user's, not the project's).
var secretStores = []string{".ssh", ".gnupg", ".aws", ".kube", ".docker", ".config/gcloud",
	".azure", ".password-store", ".local/share/keyrings", ".config/gh"}

// envExampleSuffixes mark .env files that hold placeholders, not secrets.
var envExampleSuffixes = nameSet("example", "sample", "template", "dist", "defaults", "default",
	"tpl", "schema", "skel", "example.local")

// privateKeyNames are the default names of SSH private keys.
var privateKeyNames = nameSet("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk",
	"id_ed25519_sk", "identity")

// credentialNames are file names that hold credentials wherever they are.
var credentialNames = nameSet(".netrc", "_netrc", ".pypirc", ".pgpass", ".git-credentials",
	"credentials.json", "client_secret.json", "service-account.json", "service_account.json",
	".vault-token", "secrets.yml", "secrets.yaml", "secrets.json", ".htpasswd", "master.key",
	"credentials.yml.enc", "terraform.tfvars", ".s3cfg", ".boto")

// nameSecretWhy names the secret a file of this base name is; "" for none.
// path is read only for .npmrc, which is a secret only when it holds tokens.
func nameSecretWhy(path, base string) string {
	lower := strings.ToLower(base)
	switch {
	case lower == ".env" || strings.HasSuffix(lower, ".env") && lower != ".env" && !strings.Contains(lower, "example"):
		return "reads a secrets file (" + base + ")"
	case strings.HasPrefix(lower, ".env."):
		if envExampleSuffixes[lower[len(".env."):]] {
			return ""
		}
		return "reads a secrets file (" + base + ")"
	case privateKeyNames[lower]:
		return "reads a private key"
	case strings.HasSuffix(lower, ".pem") || strings.HasSuffix(lower, ".key") ||
		strings.HasSuffix(lower, ".p12") || strings.HasSuffix(lower, ".pfx") ||
		strings.HasSuffix(lower, ".jks") || strings.HasSuffix(lower, ".keystore") ||
		strings.HasSuffix(lower, ".ppk") || strings.HasSuffix(lower, ".asc") && strings.Contains(lower, "private"):
		return "reads a private key"
	case credentialNames[lower]:
		return "reads credentials (" + base + ")"
	case lower == ".npmrc" || lower == ".yarnrc.yml":
		if fileHasToken(path) {
			return "reads credentials (" + base + " with tokens)"
		}
	}
	return ""
}

// fileHasToken reports a registry config that holds an auth token. A file
// that cannot be read holds none the model could see.
func fileHasToken(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	n, _ := f.Read(buf)
	b := bytes.ToLower(buf[:n])
	for _, k := range []string{"_authtoken", "_auth", "_password", "npmauthtoken", "token="} {
		if bytes.Contains(b, []byte(k)) {
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
		rel := strings.TrimPrefix(p, h+"/")
		for _, s := range secretStores {
			if pathWithin(rel, s) {
				return "opens a secret store (~/" + s + ")"
			}
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
	for rel := range credentialFiles {
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
