package guard

import "strings"

// ruleSed judges GNU sed: in-place edits outside the workspace, and the
// script itself, which can run shell commands (the e command and the s///e
// flag) and write files (w, s///w).
func ruleSed(c *cmdChecker, in *guardCall) string {
	inplace := false
	var ops, scripts []shArg
	fromFile := false
	for i := 0; i < len(in.args); i++ {
		a := in.args[i]
		v := a.val
		switch {
		case !a.ok || !strings.HasPrefix(v, "-") || v == "-":
			ops = append(ops, a)
		case v == "-e" || v == "--expression":
			if i+1 < len(in.args) {
				scripts = append(scripts, in.args[i+1])
			}
			i++
		case v == "-f" || v == "--file":
			fromFile = true
			i++
		case strings.HasPrefix(v, "--expression="):
			scripts = append(scripts, shArg{val: strings.TrimPrefix(v, "--expression="), ok: a.ok})
		case strings.HasPrefix(v, "--file="):
			fromFile = true
		case strings.HasPrefix(v, "--in-place"):
			inplace = true
		case v == "-l" || v == "--line-length":
			i++
		case strings.HasPrefix(v, "--"):
		default:
			inplace = inplace || strings.ContainsRune(v, 'i')
			if strings.HasSuffix(v, "e") || strings.HasSuffix(v, "f") {
				if i+1 < len(in.args) {
					if strings.HasSuffix(v, "e") {
						scripts = append(scripts, in.args[i+1])
					} else {
						fromFile = true
					}
				}
				i++
			}
		}
	}
	if len(scripts) == 0 && !fromFile && len(ops) > 0 {
		scripts, ops = ops[:1], ops[1:]
	}
	for _, sc := range scripts {
		if !sc.ok {
			continue // an unknown script can still only edit the named files
		}
		if why := c.sedScriptWhy(sc.val); why != "" {
			return why
		}
	}
	if !inplace {
		return ""
	}
	for _, a := range ops {
		if why := c.writeWhy(a); why != "" {
			return c.editsInPlace(why)
		}
	}
	return ""
}

// sedScriptWhy reads a sed script command by command.
func (c *cmdChecker) sedScriptWhy(s string) string {
	i := 0
	restOfLine := func() string {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			j = len(s) - i
		}
		v := strings.TrimSpace(s[i : i+j])
		i += j
		return v
	}
	fileWhy := func(name string, write bool) string {
		switch name {
		case "", "/dev/stdout", "/dev/stderr":
			return ""
		}
		if write {
			return c.writeWhy(litArg(name))
		}
		return c.secretArg(litArg(name), false)
	}
	for i < len(s) {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == ';' || ch == '{' || ch == '}' || ch == '!' || ch == ',':
			i++
			continue
		case ch >= '0' && ch <= '9' || ch == '$' || ch == '~' || ch == '+':
			i++
			continue
		case ch == '/' || ch == '\\':
			d := byte('/')
			if ch == '\\' && i+1 < len(s) {
				i++
				d = s[i]
			}
			i = sedSkipDelim(s, i+1, d)
			for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
			continue
		}
		i++
		switch ch {
		case 's', 'y':
			if i >= len(s) {
				return ""
			}
			d := s[i]
			i = sedSkipDelim(s, i+1, d)
			i = sedSkipDelim(s, i, d)
			if ch == 'y' {
				continue
			}
			for i < len(s) && strings.IndexByte("gpiIeEmM0123456789w", s[i]) >= 0 {
				switch s[i] {
				case 'e':
					return "runs shell commands from a sed script (s///e)"
				case 'w':
					i++
					if why := fileWhy(restOfLine(), true); why != "" {
						return why
					}
					continue
				}
				i++
			}
		case 'e':
			return "runs shell commands from a sed script (e)"
		case 'w', 'W':
			if why := fileWhy(restOfLine(), true); why != "" {
				return why
			}
		case 'r', 'R':
			if why := fileWhy(restOfLine(), false); why != "" {
				return why
			}
		case 'a', 'i', 'c', ':', 'b', 't', 'T', '#':
			if ch == 'b' || ch == 't' || ch == 'T' {
				for i < len(s) && s[i] != ';' && s[i] != '\n' {
					i++
				}
				continue
			}
			restOfLine()
		}
	}
	return ""
}

// sedSkipDelim returns the index after the next unescaped d from i.
func sedSkipDelim(s string, i int, d byte) int {
	for i < len(s) {
		switch s[i] {
		case '\\':
			i += 2
			continue
		case d:
			return i + 1
		}
		i++
	}
	return len(s)
}

// sedInPlace reports sed -i: it edits the files instead of printing them.
func sedInPlace(args []shArg) bool {
	for _, a := range args {
		v := a.val
		if strings.HasPrefix(v, "--in-place") || strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.ContainsRune(v, 'i') {
			return true
		}
	}
	return false
}

// perlInPlace reports perl -pi -e / ruby -i, which edit files in place.
func perlInPlace(args []shArg) bool {
	for _, a := range args {
		if v := a.val; strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.ContainsRune(v, 'i') && !strings.ContainsRune(v, 'e') {
			return true
		}
	}
	return false
}
