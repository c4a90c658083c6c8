package ui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aci-dev/aci/windows"
)

// cmdPermissions is /permissions: lists the rules that allow or deny
// without asking, numbered; /permissions remove N takes one away.
func (r *REPL) cmdPermissions(arg string) bool {
	set := r.sess.Rules()
	if set == nil {
		r.permissionsBesideRules()
		r.out.note("no rules in this session")
		return false
	}
	if rest, ok := cutWord(arg, "remove", "rm", "delete"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(rest))
		if err != nil {
			r.out.fail("/permissions remove N: N is a rule's number as /permissions lists them")
			return false
		}
		l, err := set.Remove(n)
		if err != nil {
			r.out.fail(err.Error())
			return false
		}
		r.out.note(fmt.Sprintf("removed %s %s (%s)", verb(l.Deny), l.Rule, l.Where))
		return false
	}
	if arg != "" {
		r.out.fail("/permissions lists the rules; /permissions remove N removes one")
		return false
	}
	list := set.List()
	r.permissionsBesideRules()
	if len(list) == 0 {
		r.out.note("no rules: answer a question with a (this session) or p (this project), or add \"permissions\": {\"allow\": [...], \"deny\": [...]} to ~/.config/aci/settings.json")
		return false
	}
	for i, l := range list {
		// Each part is cleaned before it is coloured: cleaning a coloured
		// line would strip the escape's ESC and leave "[2m" on screen.
		line := sanitize(fmt.Sprintf("%2d. %-5s %s", i+1, verb(l.Deny), l.Rule))
		if l.Rule.Reason != "" {
			line += r.out.dim.Sprint("  (when asked for: " + sanitize(l.Rule.Reason) + ")")
		}
		r.out.println(line + r.out.dim.Sprint("  — "+sanitize(l.Where)))
	}
	r.out.note("/permissions remove N removes a session or project rule")
	return false
}

// permissionsBesideRules says what allows without asking besides the
// rules: the mode when it lets file changes pass (as "e" at an edit sets
// it), and the "always" answers no rule can say (an edit's).
func (r *REPL) permissionsBesideRules() {
	switch m := r.sess.Mode(); m {
	case windows.ModeDefault, windows.ModeYes:
		r.out.println(sanitize(fmt.Sprintf("mode %s: file changes in the workspace are not asked (/mode ask asks them)", m.Shown())))
	}
	for _, a := range r.sess.Remembered() {
		r.out.println(sanitize("allow "+a) + r.out.dim.Sprint("  — this session (an answer \"always\")"))
	}
}

func verb(deny bool) string {
	if deny {
		return "deny"
	}
	return "allow"
}

// cutWord returns what follows arg's first word when it is one of words.
func cutWord(arg string, words ...string) (string, bool) {
	first, rest, _ := strings.Cut(strings.TrimSpace(arg), " ")
	for _, w := range words {
		if strings.EqualFold(first, w) {
			return rest, true
		}
	}
	return "", false
}
