package gitconf

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Entry is one key = value of a config file, as git config --list --null
// gives it: section and key lower case, the subsection as written.
type Entry struct {
	Key, Value string
	NoValue    bool // "[core] bare" with no "=": true to git
}

// Place is where a config file lies: its git folder (core.worktree is
// resolved from it) and the workspace roots a path may lie in.
type Place struct {
	GitDir    string
	Workspace []string
}

// Taken is an entry taken out, and why.
type Taken struct {
	Entry
	Why string
}

// String is "key=value (why)", the value shortened.
func (t Taken) String() string {
	v := t.Value
	if len(v) > 60 {
		v = v[:57] + "..."
	}
	if t.NoValue {
		return t.Key + " (" + t.Why + ")"
	}
	return t.Key + "=" + strconv.Quote(v) + " (" + t.Why + ")"
}

// split cuts a key into section, subsection and name (lower case but the
// subsection); ok is false for a key of no section.
func split(key string) (sec, sub, name string, ok bool) {
	i, j := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
	if i <= 0 || j == len(key)-1 {
		return "", "", "", false
	}
	sec, name = strings.ToLower(key[:i]), strings.ToLower(key[j+1:])
	if i != j {
		sub = key[i+1 : j]
	}
	return sec, sub, name, true
}

// rules indexes the table by section, "has a subsection", and name.
var rules = sync.OnceValue(func() map[string]*rule {
	m := map[string]*rule{}
	for i := range table {
		r := &table[i]
		sec, sub, name, ok := split(r.key)
		if !ok || (sub != "" && sub != "*") {
			panic("gitconf: bad table key " + r.key)
		}
		k := sec + "|" + strconv.FormatBool(sub == "*") + "|" + name
		if m[k] != nil {
			panic("gitconf: key listed twice: " + r.key)
		}
		m[k] = r
	}
	return m
})

// Why says why e may not stay in a config file at place at; "" when it may.
func Why(e Entry, at Place) string {
	sec, sub, name, ok := split(e.Key)
	if !ok {
		return "not a key git reads"
	}
	r := rules()[sec+"|"+strconv.FormatBool(sub != "")+"|"+name]
	if r == nil {
		return notListed(sec)
	}
	if strings.ContainsFunc(e.Value, func(c rune) bool { return c < 0x20 || c == 0x7f }) {
		return "control characters in the value"
	}
	switch r.kind {
	case boolean:
		if !e.NoValue && !isBool(e.Value) {
			return "not a boolean"
		}
	case number:
		if _, err := strconv.Atoi(e.Value); err != nil {
			return "not a number"
		}
	case oneOf:
		for _, w := range r.words {
			if strings.EqualFold(e.Value, w) {
				return ""
			}
		}
		if !r.bools || (!e.NoValue && !isBool(e.Value)) {
			return "a value other than " + strings.Join(r.words, ", ")
		}
	case remoteURL, remoteRef:
		// A branch's remote that is no configured remote's name is
		// fetched from as a URL: the same rule.
		return URLWhy(e.Value)
	case insideTree:
		return insideWhy(e.Value, at)
	}
	return ""
}

// notListed is why a key off the table is taken out, with what its
// section is known to do where that is worth saying.
func notListed(sec string) string {
	hint := map[string]string{
		"alias":      "an alias may run a shell command (!)",
		"include":    "makes git read another file's settings",
		"includeif":  "makes git read another file's settings",
		"protocol":   "allows transports (ext:: runs a command)",
		"url":        "rewrites remote URLs (to ext:: for one)",
		"core":       "may name a program, a file or a folder git uses",
		"credential": "names a credential helper or where credentials go",
		"filter":     "a filter driver git runs",
		"diff":       "a diff driver or program git runs",
		"merge":      "a merge driver git runs",
		"http":       "a key, certificate, proxy or header git uses",
		"gpg":        "a signing program",
		"init":       "a template folder copied into new repositories",
	}[sec]
	if hint == "" {
		hint = "git may run, read or reach what it names"
	}
	return "not on the list of inert git settings: " + hint
}

func isBool(v string) bool {
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off", "1", "0", "":
		return true
	}
	return false
}

// ordinary are the URL schemes git handles itself, with no remote helper.
var ordinary = map[string]bool{"https": true, "http": true, "ssh": true, "git": true, "file": true, "git+ssh": true, "ssh+git": true}

// URLWhy says why a remote URL is not an ordinary one; "" when it is: an
// http(s), ssh, git or file URL, an scp-like user@host:path, or a local
// path. "<transport>::<address>" makes git run git-remote-<transport>
// (ext:: runs the address as a command), an unknown scheme:// a remote
// helper of that name, and a host or path beginning with "-" is read as
// an option by ssh.
func URLWhy(v string) string {
	if v == "" {
		return ""
	}
	if strings.HasPrefix(v, "-") {
		return "begins with -: read as an option"
	}
	i := 0
	for i < len(v) && schemeChar(v[i], i == 0) {
		i++
	}
	if strings.HasPrefix(v[i:], "::") {
		return fmt.Sprintf("uses the %q transport helper (<transport>::), which runs a program", v[:i])
	}
	if i > 0 && strings.HasPrefix(v[i:], "://") {
		if s := strings.ToLower(v[:i]); !ordinary[s] {
			return fmt.Sprintf("scheme %q is no ordinary transport: git runs a remote helper for it", s)
		}
		host := v[i+3:]
		if at := strings.LastIndexByte(strings.SplitN(host, "/", 2)[0], '@'); at >= 0 {
			host = host[at+1:]
		}
		if strings.HasPrefix(host, "-") {
			return "host begins with -: read as an option by ssh"
		}
		return ""
	}
	// scp-like: a colon before any slash.
	colon, slash := strings.IndexByte(v, ':'), strings.IndexByte(v, '/')
	if colon >= 0 && (slash < 0 || colon < slash) {
		host := strings.TrimPrefix(v[:colon], "[")
		if at := strings.LastIndexByte(host, '@'); at >= 0 {
			host = host[at+1:]
		}
		if host == "" || strings.HasPrefix(host, "-") {
			return "host is empty or begins with -: read as an option by ssh"
		}
	}
	return ""
}

// schemeChar is git's is_urlschemechar.
func schemeChar(c byte, first bool) bool {
	alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	return alnum || (!first && (c == '+' || c == '-' || c == '.'))
}

// insideWhy says why a work tree path is not inside the workspace.
func insideWhy(v string, at Place) string {
	if at.GitDir == "" || v == "" {
		return "a work tree git cannot place"
	}
	p := v
	if !filepath.IsAbs(p) {
		p = filepath.Join(at.GitDir, p)
	}
	p = resolve(filepath.Clean(p))
	for _, ws := range at.Workspace {
		ws = resolve(ws)
		if p == ws || strings.HasPrefix(p, ws+string(filepath.Separator)) {
			return ""
		}
	}
	return "names a work tree outside the workspace: git checks files out and reads attributes there"
}

// resolve follows the links of the longest part of p that exists.
func resolve(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	d := filepath.Dir(p)
	if d == p {
		return p
	}
	return filepath.Join(resolve(d), filepath.Base(p))
}

// Judge splits entries into those that stay and those taken out.
func Judge(entries []Entry, at Place) (kept []Entry, taken []Taken) {
	for _, e := range entries {
		if why := Why(e, at); why != "" {
			taken = append(taken, Taken{e, why})
		} else {
			kept = append(kept, e)
		}
	}
	return kept, taken
}
