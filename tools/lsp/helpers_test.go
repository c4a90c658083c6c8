package lsp

import (
	"testing"

	"github.com/aci-dev/aci/internal/testutil"
)

// needNPM makes program findable: on PATH, or installed from npm (the
// packages) under the folder $env names, as .ci/run does. Without it the
// test skips, except on CI.
func needNPM(t *testing.T, program, env, packages string) {
	t.Helper()
	testutil.NeedOnPath(t, program, testutil.NPMBins(env), program+" is not installed: npm install --prefix DIR "+packages+", then "+env+"=DIR")
}

// bashServer is a language server in bash: it runs setup, answers
// initialize, and for each text opened or changed runs then (a pause)
// and publishes one error, message, for the text's version.
func bashServer(setup, then, message string) string {
	return "#!/bin/bash\n" + setup + `
while IFS= read -r line; do
  n=${line#Content-Length: }; n=${n%$'\r'}
  read -r blank
  body=$(head -c "$n")
  case "$body" in
  *'"method":"initialize"'*)
    out='{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"textDocumentSync":1}}}' ;;
  *'"method":"textDocument/didOpen"'*|*'"method":"textDocument/didChange"'*)
    uri=$(grep -o '"uri":"[^"]*"' <<<"$body" | head -1)
    ver=$(grep -o '"version":[0-9]*' <<<"$body" | head -1)
    ` + then + `
    out='{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{'$uri','$ver',"diagnostics":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"severity":1,"message":"` + message + `"}]}}' ;;
  *) continue ;;
  esac
  printf 'Content-Length: %d\r\n\r\n%s' ${#out} "$out"
done
`
}
