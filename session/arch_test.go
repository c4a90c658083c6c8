package session

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// agentTests are the front ends' test files that may still import agent:
// they write or lock a transcript below what session offers.
var agentTests = map[string]bool{
	"serve/hygiene_test.go":            true,
	"serve/web/access_browser_test.go": true,
}

// TestFrontEndsImportSessionNotAgent: the front ends (the REPL, the
// server and its page, ACP, package main) reach the loop through session
// only (docs/architecture.md): no file of theirs imports agent.
func TestFrontEndsImportSessionNotAgent(t *testing.T) {
	const agentPath = "github.com/aci-dev/aci/agent"
	root := ".."
	var files []string
	for _, dir := range []string{"ui", "serve", "acp"} {
		filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
				files = append(files, p)
			}
			return err
		})
	}
	main, _ := filepath.Glob(filepath.Join(root, "*.go"))
	files = append(files, main...)
	if len(files) < 50 {
		t.Fatalf("found only %d front-end files: is the test run from session/?", len(files))
	}
	fset := token.NewFileSet()
	for _, p := range files {
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if agentTests[rel] {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == agentPath {
				t.Errorf("%s imports agent: front ends import session (re-export what they need there: loop_names.go, ops.go)", rel)
			}
		}
	}
}
