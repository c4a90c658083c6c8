package session

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/joho/godotenv"

	"github.com/aci-dev/aci/tools/mcp"
	"github.com/aci-dev/aci/tools/rules"
	"github.com/aci-dev/aci/tools/runfiles"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/settings"
	"github.com/aci-dev/aci/tools/wsenv"
)

// Trusted folders (docs/protocol.md section 10): the project's hooks and its
// .mcp.json servers run code on the person's machine, so they run only
// once the person trusted the folder; the answer is kept, with a hash of
// what it covered, in the person's configuration, and asked again when
// that changes. What it covers: each hook's command line, each server's
// whole entry (command, args, env, URL, headers), the content of every
// workspace file those run (tools/runfiles), and the endpoint a
// workspace .env names for the person's key (docs/protocol.md §2).

// ProjectCode is what the project's files would run: one line each for
// the person, and the hash of it all; none when they define nothing.
type ProjectCode struct {
	Lines []string
	Hash  string
	// Files are the workspace files the hooks and servers run, with their
	// content's hash: kept read-only for contained commands, and checked
	// again before each runs (Verify*).
	Files runfiles.Set
	// Endpoint is the base URL the workspace's .env names for the
	// person's key, "" when none (EndpointLine).
	Endpoint string
	hooks    map[string]runfiles.Set // by hook command line
	servers  map[string]runfiles.Set // by server name
}

// EndpointLine is the line of a trust question that names the endpoint
// a workspace's .env sends the person's key to.
func EndpointLine(url, file string) string {
	return fmt.Sprintf("endpoint %s (OPENAI_BASE_URL in %s, with no key of its own): your API key is sent there", url, file)
}

// FolderCode is what the project of workdir would run, by the project
// settings the factory's sessions take (Factory.Project).
func (f *Factory) FolderCode(workdir string) ProjectCode {
	return folderCode(workdir, f.Project(workdir), f.envAllow)
}

func folderCode(workdir string, project *settings.Project, allow wsenv.List) ProjectCode {
	root := sandbox.WorkspaceRoot(workdir)
	pol := settings.PolicyOf(nil, project)
	code := ProjectCode{Files: runfiles.Set{}, hooks: map[string]runfiles.Set{}, servers: map[string]runfiles.Set{}}
	var lines []string
	if url, file := workspaceEndpoint(workdir); url != "" {
		code.Endpoint = url
		lines = append(lines, EndpointLine(url, file))
	}
	for _, g := range pol.ProjectHooks() {
		for _, h := range g.Hooks {
			m := ""
			if g.Matcher != "" {
				m = " on " + g.Matcher
			}
			lines = append(lines, fmt.Sprintf("hook %s%s: %s (%s)", g.Event, m, h.Command, g.Source))
			files := runfiles.Shell(h.Command, workdir, root)
			code.hooks[h.Command] = files
			code.Files.Add(files)
		}
	}
	var servers []string
	for name, sc := range mcp.LoadConfig(workdir, allow).Servers {
		if !sc.FromWorkspace {
			continue
		}
		servers = append(servers, fmt.Sprintf("MCP server %s: %s (%s)", name, sc.Declared, sc.Source))
		if sc.Type == mcp.Stdio {
			files := serverFiles(sc, workdir, root)
			code.servers[name] = files
			code.Files.Add(files)
		}
	}
	sort.Strings(servers)
	lines = append(lines, servers...)
	for _, p := range code.Files.Paths() {
		rel, _ := filepath.Rel(root, p)
		if h := code.Files[p]; h == runfiles.Absent {
			lines = append(lines, fmt.Sprintf("file %s: not there yet (one that appears is asked about)", rel))
		} else {
			lines = append(lines, fmt.Sprintf("file %s: run by the lines above, content sha256 %s", rel, h[:16]))
		}
	}
	if len(lines) == 0 {
		return ProjectCode{}
	}
	sum := sha256.New()
	for _, l := range lines {
		sum.Write([]byte(l + "\n"))
	}
	for _, p := range code.Files.Paths() {
		sum.Write([]byte(p + " " + code.Files[p] + "\n")) // the whole hash, not the shown part
	}
	code.Lines, code.Hash = lines, hex.EncodeToString(sum.Sum(nil))[:16]
	return code
}

// serverFiles are the workspace files a stdio server's entry runs.
func serverFiles(sc mcp.ServerConfig, workdir, root string) runfiles.Set {
	argv := append([]string{sc.Command}, sc.Args...)
	return runfiles.Argv(argv, sc.Env, workdir, root)
}

// workspaceEndpoint is the base URL the .env of workdir names while the
// key aci holds is not from that file, and the file: the person's key
// would go where the workspace chose. "" when the file names none, names
// its key too, or is not what aci uses (the environment or the person's
// file named another URL).
func workspaceEndpoint(workdir string) (url, file string) {
	file = filepath.Join(workdir, ".env")
	vars, err := godotenv.Read(file)
	if err != nil {
		return "", ""
	}
	url = strings.TrimSpace(vars["OPENAI_BASE_URL"])
	if url == "" || vars["OPENAI_API_KEY"] != "" || os.Getenv("OPENAI_API_KEY") == "" {
		return "", ""
	}
	if strings.TrimSpace(os.Getenv("OPENAI_BASE_URL")) != url {
		return "", ""
	}
	return url, file
}

// Trusted reports whether the person trusted exactly this code.
func (c ProjectCode) Trusted(workdir string) bool {
	if c.Hash == "" {
		return true
	}
	pf, err := rules.ReadProject(sandbox.WorkspaceRoot(workdir))
	return err == nil && pf.Trusted == c.Hash
}

// Changes says what differs from what the person trusted before, a line
// each ("new: …", "gone: …"); nil when the folder was never trusted.
func (c ProjectCode) Changes(workdir string) []string {
	pf, err := rules.ReadProject(sandbox.WorkspaceRoot(workdir))
	if err != nil || pf.Trusted == "" || pf.Trusted == c.Hash {
		return nil
	}
	if len(pf.TrustedLines) == 0 {
		return []string{"what the folder's hooks and MCP servers would run changed since you trusted it"}
	}
	old := map[string]bool{}
	for _, l := range pf.TrustedLines {
		old[l] = true
	}
	var out []string
	for _, l := range c.Lines {
		if !old[l] {
			out = append(out, "new: "+l)
		}
		delete(old, l)
	}
	for _, l := range pf.TrustedLines {
		if old[l] {
			out = append(out, "gone: "+l)
		}
	}
	if len(out) == 0 {
		out = []string{"a file run by the hooks or MCP servers changed since you trusted the folder"}
	}
	return out
}

// TrustFolder keeps the person's trust in code for workdir.
func TrustFolder(workdir string, c ProjectCode) error {
	root := sandbox.WorkspaceRoot(workdir)
	pf, err := rules.ReadProject(root)
	if err != nil {
		return err
	}
	pf.Trusted, pf.TrustedLines = c.Hash, c.Lines
	return rules.WriteProject(pf)
}

// VerifyHook says why the hook command line must not run now: a
// workspace file it runs is not what was trusted (changed, gone, or new
// where nothing was). nil when it may run, or when it is not the
// project's.
func (c ProjectCode) VerifyHook(command, workdir string) error {
	want, ok := c.hooks[command]
	if !ok {
		return nil
	}
	return differs(want, runfiles.Shell(command, workdir, sandbox.WorkspaceRoot(workdir)))
}

// VerifyServer is VerifyHook for a workspace MCP server.
func (c ProjectCode) VerifyServer(sc mcp.ServerConfig, workdir string) error {
	want, ok := c.servers[sc.Name]
	if !ok || !sc.FromWorkspace {
		return nil
	}
	return differs(want, serverFiles(sc, workdir, sandbox.WorkspaceRoot(workdir)))
}

// differs names the files of now that are not as in want.
func differs(want, now runfiles.Set) error {
	var changed []string
	for p, h := range now {
		if want[p] != h {
			changed = append(changed, p)
		}
	}
	for p := range want {
		if _, ok := now[p]; !ok {
			changed = append(changed, p)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	sort.Strings(changed)
	return fmt.Errorf("%s changed since the folder was trusted; aci asks again when it next starts here", strings.Join(changed, ", "))
}
