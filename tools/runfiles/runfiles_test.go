package runfiles

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/testfs"
)

func TestShell(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"scripts/post.sh":   "source ./lib.sh\n. \"$(dirname \"$0\")/more.sh\"\n",
		"lib.sh":            "true\n",
		"scripts/more.sh":   "true\n",
		"tools/check.py":    "import helper\nfrom pkg import mod\n",
		"tools/helper.py":   "x = 1\n",
		"tools/pkg/mod.py":  "y = 2\n",
		"app/run.js":        "const u = require('./util')\nimport x from \"../shared/x.mjs\"\n",
		"app/util.js":       "module.exports = 1\n",
		"shared/x.mjs":      "export default 1\n",
		"mymod/__main__.py": "print(1)\n",
		"notes.txt":         "data\n",
		"hook-log":          "log\n",
		"package.json":      "{}\n",
	}
	testfs.Write(t, root, 0o644, files)
	os.WriteFile(filepath.Join(root, "bin-tool"), []byte("\x7fELF"), 0o755)
	tests := []struct {
		line string
		want []string // relative; "name=absent" for an absent one
	}{
		{`sh scripts/post.sh`, []string{"lib.sh", "scripts/more.sh", "scripts/post.sh"}},
		{`"$CLAUDE_PROJECT_DIR"/scripts/post.sh --fast`, []string{"lib.sh", "scripts/more.sh", "scripts/post.sh"}},
		{`python3 tools/check.py notes.txt`, []string{"tools/check.py", "tools/helper.py", "tools/pkg/mod.py"}},
		{`cd app && node run.js`, []string{"run.js=absent"}}, // judged from the hook's folder: a run.js appearing there is asked about
		{`node app/run.js`, []string{"app/run.js", "app/util.js", "shared/x.mjs"}},
		{`python -m mymod`, []string{"mymod/__main__.py"}},
		{`bash -c 'python3 tools/helper.py'`, []string{"tools/helper.py"}},
		{`uv run python tools/helper.py`, []string{"tools/helper.py"}},
		{`timeout 10 ./bin-tool`, []string{"bin-tool"}},
		{`touch hook-log; echo done >> hook-log`, nil},
		{`sh scripts/later.sh`, []string{"scripts/later.sh=absent"}},
		{`npm run lint`, []string{"package.json"}},
		{`jq . notes.txt | cat /etc/passwd`, nil},
	}
	for _, tt := range tests {
		set := Shell(tt.line, root, root)
		var got []string
		for p, h := range set {
			rel, _ := filepath.Rel(root, p)
			if h == Absent {
				rel += "=absent"
			}
			got = append(got, rel)
		}
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("%s: got %v, want %v", tt.line, got, tt.want)
		}
	}
}

func TestChanged(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "x.sh")
	os.WriteFile(p, []byte("a"), 0o644)
	set := Shell("sh x.sh", root, root)
	if len(set.Changed()) != 0 {
		t.Fatal("nothing changed yet")
	}
	os.WriteFile(p, []byte("b"), 0o644)
	if got := set.Changed(); len(got) != 1 || got[0] != p {
		t.Errorf("changed %v", got)
	}
}
