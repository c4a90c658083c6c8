package commands

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Skill is a folder holding SKILL.md (the open Agent Skills format): its
// name and description are listed for the model; its body and other files
// are read only when the model opens it.
type Skill struct {
	Name        string
	Description string
	Dir         string // the folder
	Path        string // its SKILL.md
	Scope       string // ScopeProject or ScopeUser
}

// Note is a skill left out: the file it is about, and the line that says
// why.
type Note struct{ Path, Text string }

// maxSkillDescription caps a description: each one is in every request.
const maxSkillDescription = 1024

// LoadSkills reads the skills of workdir: .aci/skills/NAME/SKILL.md, the
// person's userDir/skills/NAME/SKILL.md and .claude/skills/NAME/SKILL.md,
// by name; a name found twice is the project's. A skill without a name or
// a description is left out with a note.
func LoadSkills(workdir, userDir string) ([]Skill, []Note) {
	folders := []folder{
		{dir: filepath.Join(workdir, ".aci", "skills"), scope: ScopeProject},
		{dir: filepath.Join(workdir, ".claude", "skills"), scope: ScopeProject},
	}
	if userDir != "" {
		folders = append(folders, folder{dir: filepath.Join(userDir, "skills"), scope: ScopeUser})
	}
	var skills []Skill
	var notes []Note
	seen := map[string]string{}
	for _, f := range folders {
		entries, err := os.ReadDir(f.dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !e.IsDir() && e.Type()&os.ModeSymlink == 0 || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			dir := filepath.Join(f.dir, e.Name())
			path := filepath.Join(dir, "SKILL.md")
			if _, err := os.Stat(path); err != nil {
				continue
			}
			s, err := readSkill(dir, path, f.scope)
			if err != nil {
				notes = append(notes, Note{Path: path, Text: fmt.Sprintf("skill %s skipped: %v", Shown(path, workdir), err)})
				continue
			}
			if other, dup := seen[s.Name]; dup {
				notes = append(notes, Note{Path: path, Text: fmt.Sprintf("skill %s skipped: %s has the name %s", Shown(path, workdir), Shown(other, workdir), s.Name)})
				continue
			}
			seen[s.Name] = path
			skills = append(skills, s)
		}
	}
	sort.SliceStable(skills, func(i, j int) bool { return skills[i].Name < skills[j].Name })
	return skills, notes
}

func readSkill(dir, path, scope string) (Skill, error) {
	text, err := readFile(path)
	if err != nil {
		return Skill{}, err
	}
	keys, _, err := frontMatter(text)
	if err != nil {
		return Skill{}, err
	}
	s := Skill{Name: strings.ToLower(strings.TrimSpace(keys["name"])), Description: oneLine(keys["description"]), Dir: dir, Path: path, Scope: scope}
	switch {
	case s.Name == "":
		return Skill{}, fmt.Errorf("its front matter has no name")
	case s.Description == "":
		return Skill{}, fmt.Errorf("its front matter has no description")
	case !validName(s.Name) || strings.Contains(s.Name, ":"):
		return Skill{}, fmt.Errorf("name %q may hold only letters, digits, - _ .", s.Name)
	}
	if r := []rune(s.Description); len(r) > maxSkillDescription {
		s.Description = string(r[:maxSkillDescription-1]) + "…"
	}
	return s, nil
}

// Text is the skill's SKILL.md as it is now, and the other files of its
// folder (relative paths, at most 50).
func (s Skill) Text() (body string, files []string, err error) {
	text, err := readFile(s.Path)
	if err != nil {
		return "", nil, err
	}
	_, body, err = frontMatter(text)
	if err != nil {
		return "", nil, err
	}
	filepath.WalkDir(s.Dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || len(files) >= 50 {
			return filepath.SkipDir
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != s.Dir {
			return filepath.SkipDir
		}
		if !d.IsDir() && p != s.Path {
			rel, _ := filepath.Rel(s.Dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	return strings.TrimSpace(body), files, nil
}

// command is the skill run as /NAME: its instructions are the prompt.
func (s Skill) command() Command {
	return Command{Name: s.Name, Description: s.Description, Scope: ScopeSkill, Path: s.Path,
		expand: func(args string) string {
			body, files, err := s.Text()
			if err != nil {
				return fmt.Sprintf("Use the skill %s (%s): its SKILL.md could not be read (%v); open it with launcher.open (app \"skill\").", s.Name, s.Path, err) + argsLine(args)
			}
			p := fmt.Sprintf("Use the skill %s. Its folder is %s", s.Name, s.Dir)
			if len(files) > 0 {
				p += "; its other files (open them as file windows, run its scripts as commands): " + strings.Join(files, ", ")
			}
			return p + ".\n\n" + body + argsLine(args)
		}}
}

func argsLine(args string) string {
	if args = strings.TrimSpace(args); args != "" {
		return "\n\nARGUMENTS: " + args
	}
	return ""
}
