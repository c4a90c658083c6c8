package windows

import (
	"context"
	"fmt"
	"strings"
)

// Skill is one skill the launcher lists (docs/protocol.md §9): a folder with a
// SKILL.md. Its instructions are read only when the model opens it, so a
// listed skill costs its one line until then.
type Skill struct {
	Name        string
	Description string
	Dir         string
	// Read gives SKILL.md's body and the folder's other files.
	Read func() (body string, files []string, err error)
}

// SkillApp lists skills in the launcher and opens one as a window showing
// its SKILL.md.
func SkillApp(skills []Skill) func(*Env) App {
	return func(*Env) App {
		byName := map[string]Skill{}
		var items, names []string
		for _, s := range skills {
			byName[s.Name] = s
			names = append(names, s.Name)
			items = append(items, s.Name+": "+s.Description)
		}
		return App{
			Name:   "skill",
			Desc:   "instructions for a kind of task; open the one that matches",
			Target: "name",
			Items:  items,
			Open: func(ctx context.Context, id, target string) (Window, string, error) {
				s, ok := byName[strings.TrimSpace(target)]
				if !ok {
					return nil, "", fmt.Errorf("no skill %q; skills: %s", target, strings.Join(names, ", "))
				}
				body, files, err := s.Read()
				if err != nil {
					return nil, "", fmt.Errorf("skill %s: %v", s.Name, err)
				}
				return &skillWindow{id: id, skill: s, body: body, files: files}, "", nil
			},
			Resumable: func(target string) bool { _, ok := byName[target]; return ok },
		}
	}
}

// skillWindow shows a skill's SKILL.md as it was when opened.
type skillWindow struct {
	id    string
	skill Skill
	body  string
	files []string
}

func (w *skillWindow) ID() string    { return w.id }
func (w *skillWindow) App() string   { return "skill" }
func (w *skillWindow) Title() string { return w.skill.Name }
func (w *skillWindow) Close()        {}

func (w *skillWindow) Actions() []Action {
	return []Action{closeAction("close the skill")}
}

func (w *skillWindow) View() View {
	var b strings.Builder
	fmt.Fprintf(&b, "skill %s, folder %s\n\n%s", w.skill.Name, w.skill.Dir, w.body)
	if len(w.files) > 0 {
		b.WriteString("\n\nits files (open them as file windows, run its scripts with bash): " + strings.Join(w.files, ", "))
	}
	return View{Content: b.String()}
}
