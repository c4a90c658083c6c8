package hooks

import (
	"strings"

	"github.com/aci-dev/aci/tools/secrets"
)

// hookEnv is the environment a hook runs with, from env (aci's own). The
// person's own hooks get it whole, as in Claude Code. A project's hooks
// (the repository's, run in a trusted folder) get it without the
// credential variables (the one definition, secrets.IsCredentialVar):
// a line a repository wrote is never filled from the person's
// credentials (docs/protocol.md §2), so echo $OPENAI_API_KEY in one prints
// nothing.
func hookEnv(env []string, project bool, projectDir string) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if project && secrets.IsCredentialVar(name) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "CLAUDE_PROJECT_DIR="+projectDir, "ACI_PROJECT_DIR="+projectDir)
}
