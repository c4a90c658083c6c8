package commands

import (
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/testfs"
)

func TestFrontMatter(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		keys       map[string]string
		body       string
		err        string
	}{
		{"none", "just a prompt\n", nil, "just a prompt\n", ""},
		{"claude code's", "---\nallowed-tools: Bash(git add:*), Bash(git status:*)\nargument-hint: [message]\ndescription: Create a git commit\nmodel: claude-3-5-haiku-20241022\n---\nbody $ARGUMENTS\n",
			map[string]string{"description": "Create a git commit", "argument-hint": "[message]", "model": "claude-3-5-haiku-20241022"}, "body $ARGUMENTS\n", ""},
		{"quoted and lists", "---\ndescription: \"say \\\"hi\\\"\"\nallowed-tools:\n  - Read\n  - Bash\nname: 'it''s'\n---\nb",
			map[string]string{"description": `say "hi"`, "name": "it's"}, "b", ""},
		{"block scalar", "---\ndescription: >\n  one\n  two\n---\nb", map[string]string{"description": "one two"}, "b", ""},
		{"no end", "---\ndescription: x\nbody", nil, "", "no closing ---"},
		{"not key value", "---\njust words\n---\nb", nil, "", "is not `key: value`"},
		{"bad quote", "---\ndescription: \"open\n---\nb", nil, "", "double-quoted"},
		{"twice", "---\na: 1\na: 2\n---\n", nil, "", "given twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keys, body, err := frontMatter(tc.text)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.keys {
				if keys[k] != v {
					t.Errorf("%s = %q, want %q", k, keys[k], v)
				}
			}
			if body != tc.body {
				t.Errorf("body = %q, want %q", body, tc.body)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	for _, tc := range []struct {
		body, args, want, problem string
	}{
		{"Fix issue #$ARGUMENTS now", "123", "Fix issue #123 now", ""},
		{"From $1 to ${2}; all: $ARGUMENTS", `a "b c"`, `From a to b c; all: a "b c"`, ""},
		{"missing $3.", "a", "missing .", ""},
		{"no placeholder", "x y", "no placeholder\n\nARGUMENTS: x y", ""},
		{"shell: echo $HOME | awk '{print $0}'", "", "shell: echo $HOME | awk '{print $0}'", ""},
		{"bad $10", "", "", "unknown placeholder $10"},
		{"bad $ARGS", "", "", "did you mean $ARGUMENTS"},
		{"gemini {{args}}", "", "", "gemini-cli"},
	} {
		t.Run(tc.body, func(t *testing.T) {
			c := Command{Name: "x", body: tc.body}
			if err := checkPlaceholders(tc.body); err != nil {
				c.Problem = err.Error()
			}
			got, err := c.Expand(tc.args)
			if tc.problem != "" {
				if err == nil || !strings.Contains(err.Error(), tc.problem) {
					t.Fatalf("err = %v, want %q", err, tc.problem)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Expand = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestLoadPrecedenceNamespacesAndProblems(t *testing.T) {
	work, user := t.TempDir(), t.TempDir()
	testfs.Write(t, work, 0o644, map[string]string{
		".aci/commands/fix.md":           "---\ndescription: project fix\n---\nproject $1",
		".claude/commands/git/commit.md": "---\nargument-hint: [msg]\n---\ncommit with $ARGUMENTS",
		".claude/commands/help.md":       "shadow",
		".aci/commands/broken.md":        "---\ndescription: x\n",
		".aci/commands/typo.md":          "use $ARGS",
		".aci/commands/notes.txt":        "not a command",
	})
	testfs.Write(t, user, 0o644, map[string]string{
		"commands/fix.md":  "---\ndescription: person's fix\n---\nperson $1",
		"commands/mine.md": "only mine",
	})
	set := Load(work, user)

	byName := map[string]Command{}
	for _, c := range set.Commands {
		if _, dup := byName[c.Name]; dup {
			t.Errorf("/%s listed twice", c.Name)
		}
		byName[c.Name] = c
	}
	for name, want := range map[string]string{"init": "", "review": "", "fix": "", "mine": "", "git:commit": "", "help": "built-in", "broken": "no closing", "typo": "ARGS"} {
		c, ok := byName[name]
		if !ok {
			t.Errorf("/%s not listed; got %v", name, set.Commands)
			continue
		}
		if want == "" && c.Problem != "" || want != "" && !strings.Contains(c.Problem, want) {
			t.Errorf("/%s problem = %q, want %q", name, c.Problem, want)
		}
	}
	if byName["fix"].Description != "project fix" || byName["fix"].Scope != ScopeProject || byName["mine"].Scope != ScopeUser {
		t.Errorf("precedence: fix = %+v, mine = %+v", byName["fix"], byName["mine"])
	}
	if len(set.Notes) != 1 || !strings.Contains(set.Notes[0], "commands/fix.md") {
		t.Errorf("notes = %q", set.Notes)
	}
	c, args, ok := set.Parse("/git:commit  add the parser\nsecond line")
	if !ok || c.Name != "git:commit" {
		t.Fatalf("Parse = %v %q %v", c.Name, args, ok)
	}
	if got, _ := c.Expand(args); got != "commit with add the parser\nsecond line" {
		t.Errorf("expanded %q", got)
	}
	for _, line := range []string{"/etc/hosts is wrong", "/nothing here", "plain", "/"} {
		if _, _, ok := set.Parse(line); ok {
			t.Errorf("Parse(%q) found a command", line)
		}
	}
	if _, err := byName["help"].Expand(""); err == nil {
		t.Error("a file shadowing a built-in ran")
	}
}

func TestBuiltins(t *testing.T) {
	set := Load(t.TempDir(), "")
	r, _ := set.Lookup("review")
	if !r.ReadOnly {
		t.Error("/review is not read-only")
	}
	for args, want := range map[string]string{"": "uncommitted", "main": "git diff HEAD...main", "a..b": "git diff a..b"} {
		if got, _ := r.Expand(args); !strings.Contains(got, want) {
			t.Errorf("/review %s: %q lacks %q", args, got, want)
		}
	}
	i, _ := set.Lookup("init")
	if got, _ := i.Expand(""); !strings.Contains(got, "AGENTS.md") || i.ReadOnly {
		t.Errorf("/init = %q", got)
	}
}

func TestSkills(t *testing.T) {
	work, user := t.TempDir(), t.TempDir()
	testfs.Write(t, work, 0o644, map[string]string{
		".aci/skills/pdf/SKILL.md":         "---\nname: pdf\ndescription: Fill and read PDF forms\n---\n# PDF\nRun scripts/fill.py.",
		".aci/skills/pdf/scripts/fill.py":  "print(1)",
		".claude/skills/nameless/SKILL.md": "---\ndescription: no name\n---\nx",
	})
	testfs.Write(t, user, 0o644, map[string]string{
		"skills/pdf/SKILL.md":   "---\nname: pdf\ndescription: the person's\n---\nx",
		"skills/plain/SKILL.md": "---\nname: plain\n---\nx",
	})
	skills, skipped := LoadSkills(work, user)
	var notes []string
	for _, n := range skipped {
		notes = append(notes, n.Text)
	}
	if len(skills) != 1 || skills[0].Name != "pdf" || skills[0].Description != "Fill and read PDF forms" {
		t.Fatalf("skills = %+v", skills)
	}
	if len(notes) != 3 || !strings.Contains(strings.Join(notes, "\n"), "no name") || !strings.Contains(strings.Join(notes, "\n"), "no description") {
		t.Errorf("notes = %q", notes)
	}
	body, files, err := skills[0].Text()
	if err != nil || !strings.HasPrefix(body, "# PDF") || len(files) != 1 || files[0] != "scripts/fill.py" {
		t.Errorf("Text = %q %q %v", body, files, err)
	}
	c, ok := Load(work, user).Lookup("pdf")
	if !ok || c.Scope != ScopeSkill {
		t.Fatalf("/pdf = %+v", c)
	}
	if got, _ := c.Expand("form.pdf"); !strings.Contains(got, "Run scripts/fill.py.") || !strings.HasSuffix(got, "ARGUMENTS: form.pdf") {
		t.Errorf("/pdf expanded %q", got)
	}
}
