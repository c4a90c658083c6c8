package secrets

import "strings"

// The one definition of a credential variable (docs/protocol.md §2,
// Containment): the sandbox strips these from every command's
// environment, aci redacts their values from what it shows and sends,
// the guard asks before a command prints one or sends it where it does
// not belong, language servers, MCP servers and project hooks start
// without them, and a .env value under such a name is a secret to keep
// out of commits. The same words judge a URL's query parameters and a
// script's variables.

// credentialNames are credential variables whose names do not say so,
// and agent sockets and files that let a program use the person's keys.
var credentialNames = map[string]bool{
	"OPENAI_API_KEY": true, "SSH_AUTH_SOCK": true, "GPG_AGENT_INFO": true,
	"GOOGLE_APPLICATION_CREDENTIALS": true, "KUBECONFIG": true, "DOCKER_AUTH_CONFIG": true,
	"MYSQL_PWD": true, "DATABASE_URL": true,
	// A collector's token travels in its headers (docs/telemetry.md).
	"OTEL_EXPORTER_OTLP_HEADERS": true, "OTEL_EXPORTER_OTLP_TRACES_HEADERS": true,
	"OTEL_EXPORTER_OTLP_METRICS_HEADERS": true,
	// Whole names that are a credential word alone.
	"KEY": true, "TOKEN": true, "SECRET": true, "PASSWORD": true, "PASSWD": true, "APIKEY": true,
	"PASSPHRASE": true, "CREDENTIALS": true, "AUTH": true, "DSN": true, "PASS": true,
}

// credentialSuffixes end the names of variables that hold credentials:
// the contract's *_KEY, *_TOKEN, *_SECRET, *_PASSWORD, and their kin.
var credentialSuffixes = []string{"_KEY", "_TOKEN", "_SECRET", "_PASSWORD", "_PASSWD", "_PASS", "_PWD",
	"_APIKEY", "_CREDENTIALS", "_CREDENTIAL", "_PAT", "_PASSPHRASE", "_DSN", "_AUTH", "_COOKIE", "_SALT"}

// credentialWords anywhere in a name make it a credential's
// (AWS_SECRET_ACCESS_KEY, AWS_ACCESS_KEY_ID, PGPASSWORD, SLACK_WEBHOOK_URL).
var credentialWords = []string{"SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "API_KEY", "APIKEY", "PRIVATE_KEY",
	"ACCESS_KEY", "AUTH_TOKEN", "CREDENTIAL", "WEBHOOK", "BEARER", "CONNECTION_STRING", "DATABASE_URL"}

// IsCredentialVar reports whether a variable, setting or parameter of
// this name holds a credential. Case and spelling are folded first:
// accessToken, access-token and ACCESS_TOKEN are one name.
func IsCredentialVar(name string) bool {
	n := foldName(name)
	if n == "" {
		return false
	}
	if credentialNames[n] {
		return true
	}
	for _, s := range credentialSuffixes {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	for _, w := range credentialWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return strings.HasPrefix(n, "PAT_")
}

// foldName upper-cases name, with an underscore where camelCase starts a
// word and for - and . separators.
func foldName(name string) string {
	var b strings.Builder
	b.Grow(len(name) + 4)
	var prev byte
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '-' || c == '.':
			c = '_'
		case c >= 'A' && c <= 'Z' && prev >= 'a' && prev <= 'z':
			b.WriteByte('_')
		case c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
		}
		b.WriteByte(c)
		prev = name[i]
	}
	return b.String()
}

// minValueLen is the shortest value LooksSecret takes for a secret.
const minValueLen = 8

// LooksSecret reports whether a setting's value (a .env line, say) is a
// credential worth keeping out of commits and output: at least 8
// characters, and either its name says credential (IsCredentialVar) and
// the value is no placeholder, or the value looks random (16+ characters
// mixing letters and digits, no spaces, not a path), or it is a URL with
// a password. Ordinary settings (NODE_ENV=development, PORT=3000) are
// not: treating them as secrets would flag every commit that mentions
// them.
func LooksSecret(name, value string) bool {
	if len(value) < minValueLen {
		return false
	}
	if IsCredentialVar(name) {
		return !placeholder(value) && (!strings.Contains(value, "://") || urlCarriesSecret(value, 8))
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

// urlCarriesSecret reports a URL with a password in it, or a path of at
// least pathLen characters (a webhook's token): postgres://localhost/app
// is an address, not a secret.
func urlCarriesSecret(v string, pathLen int) bool {
	_, rest, _ := strings.Cut(v, "://")
	host, path, _ := strings.Cut(rest, "/")
	if at := strings.LastIndexByte(host, '@'); at > 0 && strings.Contains(host[:at], ":") {
		return true
	}
	return len(path) >= pathLen
}
