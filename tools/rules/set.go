package rules

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/aci-dev/aci/internal/dirs"
	"github.com/aci-dev/aci/tools/settings"
)

// Scope is how long a rule saved from a question lasts.
type Scope string

// The scopes.
const (
	ScopeSession Scope = "session"
	ScopeProject Scope = "project"
)

// Listed is a rule as /permissions shows it.
type Listed struct {
	Rule      Rule
	Deny      bool
	Where     string // "this session", "this project (FILE)", or the settings file
	Removable bool   // session and project rules; settings are edited by hand
}

// Set is a session's rules: the person's settings (allow and deny), the
// project's settings (deny only: a project cannot widen), the project
// rules kept in the person's configuration, and this session's.
type Set struct {
	workspace string
	file      string // the project rules file; "" when there is no config folder

	mu      sync.Mutex
	person  []Listed
	project []Listed // from the project's settings: denies
	saved   ProjectFile
	session []Rule
}

// ProjectFile is what aci keeps about one workspace in the person's
// configuration, out of any contained command's reach.
type ProjectFile struct {
	Workspace string `json:"workspace"`
	Allow     []Rule `json:"allow,omitempty"`
	Deny      []Rule `json:"deny,omitempty"`
	// Trusted is the hash of the project's hooks and MCP servers the
	// person trusted (trust.go); "" when not trusted.
	Trusted string `json:"trusted,omitempty"`
	// TrustedLines are the lines the person was shown when trusting, so
	// that a question asked again can say what changed.
	TrustedLines []string `json:"trusted_lines,omitempty"`
}

// ProjectPath is where the project file of workspace lives:
// $XDG_CONFIG_HOME/aci/projects/HASH.json; "" without a config folder.
func ProjectPath(workspace string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(workspace)))
	return dirs.ConfigFile(filepath.Join("projects", hex.EncodeToString(sum[:8])+".json"))
}

// ReadProject reads the project file of workspace (empty when missing).
func ReadProject(workspace string) (ProjectFile, error) {
	pf := ProjectFile{Workspace: workspace}
	path := ProjectPath(workspace)
	if path == "" {
		return pf, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return pf, nil
	}
	if err != nil {
		return pf, fmt.Errorf("project rules: %w", err)
	}
	if err := json.Unmarshal(b, &pf); err != nil {
		return ProjectFile{Workspace: workspace}, fmt.Errorf("project rules: %s: %w", path, err)
	}
	return pf, nil
}

// WriteProject writes the project file atomically.
func WriteProject(pf ProjectFile) error {
	path := ProjectPath(pf.Workspace)
	if path == "" {
		return errors.New("no configuration folder to keep project rules in (set HOME or XDG_CONFIG_HOME)")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("project rules: %w", err)
	}
	b, err := json.MarshalIndent(pf, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".project-*.json")
	if err != nil {
		return fmt.Errorf("project rules: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("project rules: write %s: %v", path, errors.Join(werr, cerr))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("project rules: %w", err)
	}
	return nil
}

// Load builds the rules of a session in workspace from the settings'
// policy and the project file. Bad patterns are skipped and named.
func Load(workspace string, pol settings.Policy) (*Set, []string) {
	s := &Set{workspace: workspace, file: ProjectPath(workspace)}
	var problems []string
	add := func(list *[]Listed, entries []settings.Entry, deny bool) {
		for _, e := range entries {
			r, err := Parse(e.Pattern)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: permissions: %v; skipped", e.Source, err))
				continue
			}
			*list = append(*list, Listed{Rule: r, Deny: deny, Where: e.Source})
		}
	}
	add(&s.person, pol.Person.Allow, false)
	add(&s.person, pol.Person.Deny, true)
	add(&s.project, pol.Project.Deny, true)
	if len(pol.Project.Allow) > 0 {
		problems = append(problems, fmt.Sprintf("%s: permissions.allow is not used: a project's settings can only narrow (allow it in your own settings, or answer \"always for this project\")", pol.Project.Allow[0].Source))
	}
	pf, err := ReadProject(workspace)
	if err != nil {
		problems = append(problems, err.Error())
	}
	s.saved = pf
	return s, problems
}

// Denied returns the deny rule that refuses the request, if any.
func (s *Set) Denied(kind, subject string) (Rule, bool) {
	if s == nil {
		return Rule{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.anyDeny() {
		return Rule{}, false
	}
	parts := commandParts(kind, subject)
	for _, list := range [][]Listed{s.person, s.project} {
		for _, l := range list {
			if l.Deny && l.Rule.refuses(kind, subject, parts) {
				return l.Rule, true
			}
		}
	}
	for _, r := range s.saved.Deny {
		if r.refuses(kind, subject, parts) {
			return r, true
		}
	}
	return Rule{}, false
}

// anyDeny reports whether there is a deny rule at all (s.mu held).
func (s *Set) anyDeny() bool {
	if len(s.project) > 0 || len(s.saved.Deny) > 0 {
		return true
	}
	for _, l := range s.person {
		if l.Deny {
			return true
		}
	}
	return false
}

// Allowed returns the allow rule that covers the request, if any.
func (s *Set) Allowed(kind, subject, reason string) (Rule, bool) {
	if s == nil {
		return Rule{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.person {
		if !l.Deny && l.Rule.Covers(kind, subject, reason) {
			return l.Rule, true
		}
	}
	for _, r := range append(append([]Rule{}, s.saved.Allow...), s.session...) {
		if r.Covers(kind, subject, reason) {
			return r, true
		}
	}
	return Rule{}, false
}

// Add saves an allow rule for the session, or for the project (written
// to the project file at once).
func (s *Set) Add(r Rule, scope Scope) error {
	if err := r.check(); err != nil {
		return fmt.Errorf("rule %s: %w", r, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if scope != ScopeProject {
		s.session = append(s.session, r)
		return nil
	}
	// Read again: another aci in this workspace may have saved one.
	pf, err := ReadProject(s.workspace)
	if err != nil {
		return err
	}
	pf.Allow = append(pf.Allow, r)
	if err := WriteProject(pf); err != nil {
		return err
	}
	s.saved = pf
	return nil
}

// List is every rule, numbered from 1 in this order by /permissions.
func (s *Set) List() []Listed {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append(append([]Listed{}, s.person...), s.project...)
	where := "this project (" + s.file + ")"
	for _, r := range s.saved.Allow {
		out = append(out, Listed{Rule: r, Where: where, Removable: true})
	}
	for _, r := range s.saved.Deny {
		out = append(out, Listed{Rule: r, Deny: true, Where: where, Removable: true})
	}
	for _, r := range s.session {
		out = append(out, Listed{Rule: r, Where: "this session", Removable: true})
	}
	return out
}

// Remove takes away rule n of List (from 1).
func (s *Set) Remove(n int) (Listed, error) {
	list := s.List()
	if n < 1 || n > len(list) {
		return Listed{}, fmt.Errorf("no rule %d (there are %d)", n, len(list))
	}
	l := list[n-1]
	if !l.Removable {
		return l, fmt.Errorf("rule %d (%s) is in %s: edit that file to remove it", n, l.Rule, l.Where)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.Where == "this session" {
		s.session = without(s.session, l.Rule)
		return l, nil
	}
	pf, err := ReadProject(s.workspace)
	if err != nil {
		return l, err
	}
	if l.Deny {
		pf.Deny = without(pf.Deny, l.Rule)
	} else {
		pf.Allow = without(pf.Allow, l.Rule)
	}
	if err := WriteProject(pf); err != nil {
		return l, err
	}
	s.saved = pf
	return l, nil
}

func without(list []Rule, r Rule) []Rule {
	for i, x := range list {
		if x == r {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	return list
}
