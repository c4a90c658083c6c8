package sandbox

import (
	"strings"

	"github.com/aci-dev/aci/tools/secrets"
)

// IsCredentialVar reports whether an environment variable of this name
// holds a credential: the one definition, secrets.IsCredentialVar.
func IsCredentialVar(name string) bool { return secrets.IsCredentialVar(name) }

// Environ returns env ("NAME=value" entries) without the credential
// variables: every command gets this, contained or not.
func Environ(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if secrets.IsCredentialVar(name) || strings.HasPrefix(name, helperEnvPrefix) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// helperEnvPrefix marks variables aci uses to talk to its own helper.
const helperEnvPrefix = "ACI_SANDBOX_HELPER"
