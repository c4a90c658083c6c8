package sandbox

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// denialWords are how programs report a write or read the sandbox refused:
// EROFS from bwrap's read-only mounts, EACCES/EPERM from Landlock, and
// ENOENT inside a hidden (emptied) secret store.
// EBUSY from removing or renaming a file bound over itself (protected
// files).
var denialWords = []string{"Read-only file system", "Permission denied", "Operation not permitted", "EROFS", "EACCES", "EPERM", "Device or resource busy"}

// pathInLine finds absolute and quoted paths in an error line.
var pathInLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`'([^']+)'|"([^"]+)"|‘([^’]+)’|(/[^\s:'"]+)|([^\s:'"]+): (?:Read-only|Permission denied|Operation not permitted|No such file)`)
})

// Explain returns why, in a few words, when a command's failure looks like
// the sandbox's doing: a non-zero exit, and an error line that names a path
// outside the writable set (or inside a hidden store) with a denial, or a
// read-only file system. It returns "" otherwise, and always for a nil or
// uncontained Sandbox. dir resolves relative paths in the messages.
func (s *Sandbox) Explain(output string, exitCode int, dir string) string {
	if !s.Contained() || exitCode == 0 {
		return ""
	}
	p := s.policy
	for _, line := range strings.Split(output, "\n") {
		denial := ""
		for _, w := range denialWords {
			if strings.Contains(line, w) {
				denial = w
				break
			}
		}
		missing := strings.Contains(line, "No such file or directory")
		// mkdir of a protected folder that does not exist meets its stand-in.
		exists := strings.Contains(line, "File exists")
		if denial == "" && !missing && !exists {
			continue
		}
		for _, m := range pathInLine().FindAllStringSubmatch(line, -1) {
			path := firstNonEmpty(m[1:])
			if path == "" || strings.ContainsAny(path, "\x00") {
				continue
			}
			if !filepath.IsAbs(path) {
				if dir == "" || strings.Contains(path, " ") {
					continue
				}
				path = filepath.Join(dir, path)
			}
			path = filepath.Clean(path)
			switch {
			case p.hidden(path):
				return note(s.kind, path+" is in a secret store, which contained commands cannot see")
			case denial == "Device or resource busy" && sealedPath(path):
				return note(s.kind, path+" cannot be renamed, replaced or removed in the sandbox: git on the machine would run the hooks and obey the config of what stood in its place")
			case (denial != "" || exists) && p.protected(path) != "":
				return note(s.kind, path+" is protected ("+p.protected(path)+"); change it with a file window, which asks the person")
			case denial != "" && underAny(path, p.ReadOnly):
				return note(s.kind, path+" stays read-only in the sandbox (it could make code run outside it later)")
			case denial != "" && !p.canWrite(path):
				return note(s.kind, path+" is outside what contained commands may write (the workspace, temp dirs, build caches)")
			}
		}
		if denial == "Device or resource busy" {
			return note(s.kind, "what git and editors on the machine run (a .git, its config and hooks, protected files) cannot be renamed, replaced or removed in the sandbox")
		}
		if denial == "Read-only file system" {
			return note(s.kind, "the file system is read-only outside the workspace, temp dirs and build caches")
		}
	}
	return ""
}

// note says why the sandbox (of kind k) likely made a command fail.
func note(k Kind, why string) string { return "contained (" + string(k) + "): " + why }

func firstNonEmpty(ss []string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
