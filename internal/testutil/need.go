package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Missing skips the test, saying what is not installed and how to install
// it; on CI (CI=true), where .ci/run installs everything, it fails.
func Missing(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// NeedOnPath makes program findable for a test: on PATH, or in one of
// dirs (then added to PATH). Without it the test is Missing it (msg).
func NeedOnPath(t testing.TB, program string, dirs []string, msg string) {
	t.Helper()
	if _, err := exec.LookPath(program); err == nil {
		return
	}
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, program)); err == nil {
			t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
			return
		}
	}
	Missing(t, msg)
}

// GoBins are the folders go install puts programs in ($(go env GOPATH)/bin).
func GoBins() []string {
	var bins []string
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		for _, gp := range filepath.SplitList(strings.TrimSpace(string(out))) {
			bins = append(bins, filepath.Join(gp, "bin"))
		}
	}
	return bins
}

// NeedGopls makes gopls findable for a test: on PATH, or where go install
// puts it (added to PATH).
func NeedGopls(t testing.TB) {
	t.Helper()
	NeedOnPath(t, "gopls", GoBins(), "gopls is not installed: go install golang.org/x/tools/gopls@v0.23.0")
}

// NPMBins is the node_modules/.bin folder of the npm prefix named by the
// environment variable env, where .ci/run installs a language server.
func NPMBins(env string) []string {
	if dir := os.Getenv(env); dir != "" {
		return []string{filepath.Join(dir, "node_modules", ".bin")}
	}
	return nil
}

// NPMPackage finds node and the npm prefix where .ci/run installs pkg:
// $env, else ~/.cache/aci-ci/sub; file is a path inside the prefix that
// shows the package is there. Without node or the package the test is
// Missing them.
func NPMPackage(t testing.TB, env, sub, pkg, file string) (node, dir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		Missing(t, "node is not installed: the test runs "+pkg+" under Node.js (.ci/run installs nodejs and npm)")
		return "", ""
	}
	var candidates []string
	if d := os.Getenv(env); d != "" {
		candidates = append(candidates, d)
	}
	if home, err := os.UserHomeDir(); err == nil {
		candidates = append(candidates, filepath.Join(home, ".cache", "aci-ci", sub))
	}
	for _, d := range candidates {
		if _, err := os.Stat(filepath.Join(d, file)); err == nil {
			return node, d
		}
	}
	Missing(t, pkg+" is not installed: run .ci/run, or npm install --prefix ~/.cache/aci-ci/"+sub+" "+pkg+" (looked in "+strings.Join(candidates, ", ")+"; "+env+" names another folder)")
	return "", ""
}

// MCPEverything is node and the script of the reference MCP server
// @modelcontextprotocol/server-everything, as .ci/run installs it.
func MCPEverything(t testing.TB) (node, script string) {
	t.Helper()
	const js = "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
	node, dir := NPMPackage(t, "ACI_MCP_EVERYTHING", "mcp", "@modelcontextprotocol/server-everything", js)
	return node, filepath.Join(dir, js)
}
