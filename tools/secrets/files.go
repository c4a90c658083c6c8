package secrets

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The one definition of a secret file (docs/protocol.md §2, Containment; §3):
// the guard asks before a command names one, the file window asks before
// opening one, and the sandbox keeps each one in the workspace back from
// contained commands. Every consumer calls SecretFile or IsSecretFile;
// none keeps a list of its own (TestConsumersAgree, package windows).

// envTemplates are the last part of a .env file's name that marks it as a
// template holding placeholders, committed on purpose: .env.example,
// .env.local.sample, example.env. Any other .env file is a secret (an
// allow-list: .env.dist and .env.defaults are secrets too).
var envTemplates = map[string]bool{"example": true, "sample": true, "template": true}

// privateKeyNames are the default names of SSH private keys.
var privateKeyNames = map[string]bool{"id_rsa": true, "id_dsa": true, "id_ecdsa": true, "id_ed25519": true,
	"id_ecdsa_sk": true, "id_ed25519_sk": true, "identity": true}

// keyExtensions end the names of private keys and key stores.
var keyExtensions = []string{".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".ppk"}

// credentialFiles are file names that hold credentials wherever they are.
var credentialFiles = map[string]bool{".netrc": true, "_netrc": true, ".pgpass": true, ".git-credentials": true,
	"credentials.json": true, "client_secret.json": true, "service-account.json": true, "service_account.json": true,
	".vault-token": true, "secrets.yml": true, "secrets.yaml": true, "secrets.json": true, ".htpasswd": true,
	"master.key": true, "credentials.yml.enc": true, "terraform.tfvars": true, ".s3cfg": true, ".boto": true}

// registryFiles are package registries' settings files: a secret only
// when they hold a token (TokenWords).
var registryFiles = map[string]bool{".npmrc": true, ".pypirc": true, ".yarnrc": true, ".yarnrc.yml": true}

// TokenWords are the words that, in a registry's settings file, give a
// credential: npm's _authToken, _auth and _password, Yarn's npmAuthToken
// and npmAuthIdent, PyPI's password and token. Matched in lower case
// anywhere in the file's first 64 KiB.
var TokenWords = []string{"token", "_auth", "authident", "password"}

// Kind says what a secret file is, for the reason a question gives.
type Kind int

const (
	NotSecret   Kind = iota
	EnvFile          // .env, .env.local, prod.env
	PrivateKey       // id_rsa, *.pem, *.key, *.p12
	Credentials      // .netrc, credentials.json
	Registry         // .npmrc, .pypirc: a secret when it holds a token
)

// SecretFile says what a file named base is by its name alone.
// Registry means it is a secret only if it holds a token (HasToken).
func SecretFile(base string) Kind {
	lower := strings.ToLower(base)
	switch {
	case lower == ".env":
		return EnvFile
	case strings.HasPrefix(lower, ".env."):
		if envTemplates[lastPart(lower[len(".env."):])] {
			return NotSecret
		}
		return EnvFile
	case strings.HasSuffix(lower, ".env"):
		if envTemplates[lastPart(strings.TrimSuffix(lower, ".env"))] {
			return NotSecret
		}
		return EnvFile
	case privateKeyNames[lower]:
		return PrivateKey
	case hasKeyExtension(lower), strings.HasSuffix(lower, ".asc") && strings.Contains(lower, "private"):
		return PrivateKey
	case credentialFiles[lower]:
		return Credentials
	case registryFiles[lower]:
		return Registry
	}
	return NotSecret
}

func lastPart(s string) string { return s[strings.LastIndexByte(s, '.')+1:] }

func hasKeyExtension(lower string) bool {
	for _, e := range keyExtensions {
		if strings.HasSuffix(lower, e) {
			return true
		}
	}
	return false
}

// IsSecretFile reports whether the file at path is a secret file: by its
// name, and for a registry's settings by whether it holds a token now.
func IsSecretFile(path string) bool {
	switch SecretFile(filepath.Base(path)) {
	case NotSecret:
		return false
	case Registry:
		return HasToken(path)
	}
	return true
}

// Why is the reason a question gives for reading the secret file base.
func (k Kind) Why(base string) string {
	switch k {
	case EnvFile:
		return "reads a secrets file (" + base + ")"
	case PrivateKey:
		return "reads a private key"
	case Credentials:
		return "reads credentials (" + base + ")"
	case Registry:
		return "reads credentials (" + base + " with tokens)"
	}
	return ""
}

// HasToken reports whether a registry's settings file holds a credential
// (TokenWords). A file that cannot be read holds none a reader could see.
func HasToken(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, buf)
	b := bytes.ToLower(buf[:n])
	for _, w := range TokenWords {
		if bytes.Contains(b, []byte(w)) {
			return true
		}
	}
	return false
}
