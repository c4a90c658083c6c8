package session

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"

	"github.com/aci-dev/aci/tools/mcp"
	"github.com/aci-dev/aci/tools/rules"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/settings"
)

// Trusted folders (PROTOCOL.md section 10): the project's hooks and its
// .mcp.json servers run code on the person's machine, so they run only
// once the person trusted the folder; the answer is kept, with a hash of
// what it covered, in the person's configuration, and asked again when
// that changes.

// ProjectCode is what the project's files would run: one line each, and
// the hash of it all; none when they define nothing.
type ProjectCode struct {
	Lines []string
	Hash  string
}

// FolderCode reads what the project of workdir would run.
func FolderCode(workdir string) ProjectCode {
	root := sandbox.WorkspaceRoot(workdir)
	pol, _ := settings.LoadPolicy(root)
	var lines []string
	for _, g := range pol.ProjectHooks() {
		for _, h := range g.Hooks {
			m := ""
			if g.Matcher != "" {
				m = " on " + g.Matcher
			}
			lines = append(lines, fmt.Sprintf("hook %s%s: %s (%s)", g.Event, m, h.Command, g.Source))
		}
	}
	var servers []string
	for name, sc := range mcp.LoadConfig(workdir).Servers {
		if sc.FromWorkspace {
			servers = append(servers, fmt.Sprintf("MCP server %s: %s (%s)", name, sc.Describe(), sc.Source))
		}
	}
	sort.Strings(servers)
	lines = append(lines, servers...)
	if len(lines) == 0 {
		return ProjectCode{}
	}
	sum := sha256.New()
	for _, l := range lines {
		sum.Write([]byte(l + "\n"))
	}
	return ProjectCode{Lines: lines, Hash: hex.EncodeToString(sum.Sum(nil))[:16]}
}

// Trusted reports whether the person trusted exactly this code.
func (c ProjectCode) Trusted(workdir string) bool {
	if c.Hash == "" {
		return true
	}
	pf, err := rules.ReadProject(sandbox.WorkspaceRoot(workdir))
	return err == nil && pf.Trusted == c.Hash
}

// TrustFolder keeps the person's trust in code for workdir.
func TrustFolder(workdir string, c ProjectCode) error {
	root := sandbox.WorkspaceRoot(workdir)
	pf, err := rules.ReadProject(root)
	if err != nil {
		return err
	}
	pf.Trusted = c.Hash
	return rules.WriteProject(pf)
}
