package transcript

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The transcript file sits below the session and the agent, which both
// append to it (docs/architecture.md): it imports nothing of aci but the
// folder finder, so an event's way from the session to the file passes
// through no other package of aci.
func TestImportsNothingOfAci(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	if len(files) < 4 {
		t.Fatalf("found only %d files: is the test run from transcript/?", len(files))
	}
	fset := token.NewFileSet()
	for _, p := range files {
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "github.com/aci-dev/aci/") && path != "github.com/aci-dev/aci/internal/dirs" {
				t.Errorf("%s imports %s", p, path)
			}
		}
	}
}
