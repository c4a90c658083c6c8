package windows

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/aci-dev/aci/guard"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/shell"
)

// grantFor is what a contained command gets on top of the sandbox's
// policy, and what the question must add to say so. A command asked about
// because it writes or deletes outside the workspace runs, once allowed,
// with those paths writable (Verdict.Writes): the person is asked once,
// and what they allowed happens on the machine. When no narrower grant
// would do (Writes holds "/"), outside is set and says that allowing runs
// the command outside the sandbox. The machine's /tmp paths the command names are
// shown to it read-only whatever the verdict (Verdict.Machine), so that
// it never works on the session's private copy of a path it named.
func (w *bashWindow) grantFor(v guard.Verdict, uncontained bool) (opt shell.RunOption, says string, outside bool) {
	if !w.shell.Contained() || uncontained {
		return nil, "", false
	}
	g := sandbox.Grant{Machine: v.Machine}
	if v.Dangerous {
		for _, p := range v.Writes {
			if p == "/" {
				return nil, " — allowing runs it outside the sandbox, since no narrower access would do" + openNetwork(w.shell), true
			}
		}
		g.Write = v.Writes
	}
	if g.Empty() {
		return nil, "", false
	}
	if len(g.Write) > 0 {
		says = " — allowing makes " + grantList(g.Write) + " writable for this command"
	}
	return shell.Granted(g), says, false
}

// grantList names the granted paths for the question: "/a", "/a and /b",
// "/a, /b and /c"; the machine's /tmp is told apart from the session's.
func grantList(paths []string) string {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = p
		if p == "/tmp" || p == "/var/tmp" {
			names[i] = "the machine's " + p + " (not the session's own)"
		}
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// tmpPathInError finds a /tmp or /var/tmp path in an error line.
var tmpPathInError = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(/(?:var/)?tmp/[^\s:'"` + "`" + `]+)`) })

// privateTmpHint says plainly when a command missed a path of the
// machine's /tmp because it saw the session's own: its output says a
// /tmp path does not exist whose first folder exists on the machine, and
// the command did not name it (named paths are shown to it).
func (w *bashWindow) privateTmpHint(output string, named []string) string {
	if w.shell.Sandbox().Kind() != sandbox.Bwrap {
		return ""
	}
	for _, line := range strings.Split(output, "\n") {
		if !strings.Contains(line, "No such file or directory") {
			continue
		}
		for _, m := range tmpPathInError().FindAllString(line, 4) {
			root, rest := "/tmp", strings.TrimPrefix(m, "/tmp/")
			if strings.HasPrefix(m, "/var/tmp/") {
				root, rest = "/var/tmp", strings.TrimPrefix(m, "/var/tmp/")
			}
			top, _, _ := strings.Cut(rest, "/")
			machine := filepath.Join(root, top)
			if _, err := os.Lstat(machine); err != nil || slices.ContainsFunc(named, func(n string) bool {
				return n == m || strings.HasPrefix(m, n+"/") || strings.HasPrefix(n, m+"/")
			}) {
				continue
			}
			return hint("private_tmp", "This command saw the session's own "+root+", not the machine's: "+machine+
				" exists on the machine, but the command did not name it literally, so it was not shown. Name the path in the command (the machine's is then shown, read-only) or open it in a file window.")
		}
	}
	return ""
}

// joinHints joins non-empty hints a line apart.
func joinHints(hs ...string) string {
	var out []string
	for _, h := range hs {
		if h != "" {
			out = append(out, h)
		}
	}
	return strings.Join(out, "\n")
}
