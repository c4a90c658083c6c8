package netproxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// settingsFile is the part of settings.json this package reads.
type settingsFile struct {
	Network struct {
		Allow []string `json:"allow"`
		Deny  []string `json:"deny"`
	} `json:"network"`
}

// UserSettingsPath is the person's settings file:
// $XDG_CONFIG_HOME/aci/settings.json, by default ~/.config/aci/settings.json.
func UserSettingsPath() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "aci", "settings.json")
}

// WorkspaceSettingsPath is the workspace's settings file.
func WorkspaceSettingsPath(workspace string) string {
	return filepath.Join(workspace, ".aci", "settings.json")
}

// Load builds the policy for a session in workdir: the built-in allow
// list, plus the person's allow list, minus the person's and the
// workspace's deny lists. A workspace file may only narrow (a file anyone
// can commit to a repository must not open the network): its allow list
// is ignored, and said so. Problems (unreadable files, bad rules) are
// returned to be said at start; what could be read still applies.
func Load(workdir string) (Policy, []error) {
	workspace := workdir
	p := Policy{Allow: Builtin()}
	var problems []error
	if path := UserSettingsPath(); path != "" {
		s, err := readSettings(path)
		if err != nil {
			problems = append(problems, err)
		}
		allow, errs := ParseRules(s.Network.Allow)
		problems = append(problems, wrapAll(path, errs)...)
		deny, errs := ParseRules(s.Network.Deny)
		problems = append(problems, wrapAll(path, errs)...)
		p.Allow = append(p.Allow, allow...)
		p.Deny = append(p.Deny, deny...)
	}
	for _, ws := range workspaceDirs(workspace) {
		path := WorkspaceSettingsPath(ws)
		s, err := readSettings(path)
		if err != nil {
			problems = append(problems, err)
		}
		if len(s.Network.Allow) > 0 {
			problems = append(problems, fmt.Errorf("%s: network.allow ignored: a workspace file can only narrow the network (deny); allow hosts in %s", path, UserSettingsPath()))
		}
		deny, errs := ParseRules(s.Network.Deny)
		problems = append(problems, wrapAll(path, errs)...)
		p.Deny = append(p.Deny, deny...)
	}
	return p, problems
}

// workspaceDirs are dir and, when it lies in a git repository, the
// repository's root: the workspace's settings may sit in either.
func workspaceDirs(dir string) []string {
	if dir == "" {
		return nil
	}
	out := []string{dir}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			if d != dir {
				out = append(out, d)
			}
			return out
		}
		if filepath.Dir(d) == d {
			return out
		}
	}
}

// readSettings reads one settings file; a missing file is empty.
func readSettings(path string) (settingsFile, error) {
	var s settingsFile
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return settingsFile{}, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

func wrapAll(path string, errs []error) []error {
	out := make([]error, 0, len(errs))
	for _, e := range errs {
		out = append(out, fmt.Errorf("%s: %w", path, e))
	}
	return out
}
