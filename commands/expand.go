package commands

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/mattn/go-shellwords"
)

// placeholder finds what may be a placeholder: $NAME, ${NAME}, $DIGITS, and
// gemini-cli's {{args}}.
var placeholder = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*|[0-9]+)|\{\{\s*args\s*\}\}`)
})

// kind sorts a placeholder match: "args" ($ARGUMENTS), "1".."9" (a word),
// "" (not a placeholder: $HOME in a shell example, awk's $0), or an error
// for a placeholder aci does not know.
func kind(match []string) (string, error) {
	if strings.HasPrefix(match[0], "{{") {
		return "", fmt.Errorf("unknown placeholder %s (gemini-cli's; aci's is $ARGUMENTS)", match[0])
	}
	name := match[1] + match[2]
	switch {
	case name == "ARGUMENTS":
		return "args", nil
	case len(name) == 1 && name >= "1" && name <= "9":
		return name, nil
	case name == "0":
		return "", nil
	case name[0] >= '0' && name[0] <= '9':
		return "", fmt.Errorf("unknown placeholder %s (the words are $1…$9; $ARGUMENTS is all of them)", match[0])
	case strings.HasPrefix(name, "ARG"):
		return "", fmt.Errorf("unknown placeholder %s (did you mean $ARGUMENTS?)", match[0])
	}
	return "", nil
}

// checkPlaceholders says what is wrong with a body's placeholders.
func checkPlaceholders(body string) error {
	for _, m := range placeholder().FindAllStringSubmatch(body, -1) {
		if _, err := kind(m); err != nil {
			return err
		}
	}
	return nil
}

// Expand makes the prompt of the command run with args (everything after
// its name): $ARGUMENTS is args, $1…$9 its words (quotes group words).
// Arguments given to a body that has no placeholder are appended, as
// Claude Code does, so that they are not lost.
func (c Command) Expand(args string) (string, error) {
	if c.Problem != "" {
		return "", fmt.Errorf("/%s cannot run: %s (%s)", c.Name, c.Problem, c.Path)
	}
	if c.expand != nil {
		return c.expand(args), nil
	}
	words, err := shellwords.Parse(args)
	if err != nil {
		words = strings.Fields(args)
	}
	used := false
	out := placeholder().ReplaceAllStringFunc(c.body, func(s string) string {
		k, _ := kind(placeholder().FindStringSubmatch(s))
		switch k {
		case "":
			return s
		case "args":
			used = true
			return args
		}
		used = true
		n, _ := strconv.Atoi(k)
		if n <= len(words) {
			return words[n-1]
		}
		return ""
	})
	out = strings.TrimSpace(out)
	if !used && strings.TrimSpace(args) != "" {
		out += "\n\nARGUMENTS: " + args
	}
	return out, nil
}

// Usage is the command as /help shows it: "/name hint".
func (c Command) Usage() string {
	if c.ArgumentHint != "" {
		return "/" + c.Name + " " + c.ArgumentHint
	}
	return "/" + c.Name
}
