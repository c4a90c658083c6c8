package commands

import (
	"fmt"
	"strconv"
	"strings"
)

// frontMatter splits a Markdown file into its YAML front matter (the
// scalar keys; lists and unknown keys are read past) and its body. Only the
// small part of YAML that command and skill files use is understood:
// `key: value` lines with plain, single- or double-quoted values, block
// scalars (`|`, `>`), and indented list items or continuation lines. A file
// without front matter is all body.
func frontMatter(text string) (map[string]string, string, error) {
	text = strings.TrimPrefix(text, "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") && text != "---" {
		return nil, text, nil
	}
	rest := strings.TrimPrefix(text, "---")
	rest = strings.TrimPrefix(rest, "\n")
	var head, body string
	if strings.HasPrefix(rest, "---\n") || rest == "---" {
		head, body = "", strings.TrimPrefix(strings.TrimPrefix(rest, "---"), "\n")
	} else {
		end := strings.Index(rest, "\n---\n")
		switch {
		case end >= 0:
			head, body = rest[:end], rest[end+len("\n---\n"):]
		case strings.HasSuffix(rest, "\n---"):
			head, body = strings.TrimSuffix(rest, "\n---"), ""
		default:
			return nil, "", fmt.Errorf("front matter: no closing --- line")
		}
	}
	keys, err := parseYAMLScalars(head)
	if err != nil {
		return nil, "", fmt.Errorf("front matter: %w", err)
	}
	return keys, body, nil
}

// parseYAMLScalars reads top-level `key: value` pairs.
func parseYAMLScalars(head string) (map[string]string, error) {
	keys := map[string]string{}
	lines := strings.Split(head, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' || strings.HasPrefix(trimmed, "- ") || trimmed == "-" {
			// A list item or a continuation of the key above: the keys
			// aci reads are scalars, so it is read past.
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("line %d: %q is not `key: value`", i+1, clip(line))
		}
		key = strings.TrimSpace(key)
		if key == "" || strings.ContainsAny(key, " \t\"'") {
			return nil, fmt.Errorf("line %d: %q is not a key", i+1, clip(key))
		}
		if _, dup := keys[key]; dup {
			return nil, fmt.Errorf("line %d: %s is given twice", i+1, key)
		}
		value = strings.TrimSpace(value)
		switch {
		case value == "|" || value == ">" || value == "|-" || value == ">-" || value == "|+" || value == ">+":
			var block []string
			for i+1 < len(lines) && (strings.TrimSpace(lines[i+1]) == "" || lines[i+1][0] == ' ' || lines[i+1][0] == '\t') {
				i++
				block = append(block, strings.TrimSpace(lines[i]))
			}
			sep := " "
			if value[0] == '|' {
				sep = "\n"
			}
			value = strings.TrimSpace(strings.Join(block, sep))
		case strings.HasPrefix(value, `"`):
			s, err := strconv.Unquote(value)
			if err != nil {
				return nil, fmt.Errorf("line %d: %s: unterminated or bad double-quoted string", i+1, key)
			}
			value = s
		case strings.HasPrefix(value, "'"):
			if len(value) < 2 || !strings.HasSuffix(value, "'") {
				return nil, fmt.Errorf("line %d: %s: unterminated single-quoted string", i+1, key)
			}
			value = strings.ReplaceAll(value[1:len(value)-1], "''", "'")
		default:
			if j := strings.Index(value, " #"); j >= 0 {
				value = strings.TrimSpace(value[:j])
			}
			// A plain scalar may go on over indented lines.
			for i+1 < len(lines) && len(lines[i+1]) > 0 && (lines[i+1][0] == ' ' || lines[i+1][0] == '\t') &&
				!strings.HasPrefix(strings.TrimSpace(lines[i+1]), "- ") && value != "" {
				i++
				value += " " + strings.TrimSpace(lines[i])
			}
		}
		keys[key] = value
	}
	return keys, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
