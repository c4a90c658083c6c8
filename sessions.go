package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/ui"
)

// listSessions prints this directory's sessions, newest first: id, date,
// turns and the first question; a branch is listed under its parent.
func listSessions(f *session.Factory, workdir string, stdout, stderr io.Writer) int {
	list, err := f.List(workdir)
	if err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return ui.ExitFailed
	}
	n := 0
	for _, line := range sessionTree(list) {
		fmt.Fprintln(stdout, line)
		n++
	}
	if n == 0 {
		fmt.Fprintln(stderr, "aci: no sessions for", workdir)
	} else {
		fmt.Fprintln(stderr, "aci: resume one with aci --resume ID")
	}
	return ui.ExitOK
}

// sessionTree lays out sessions (newest first) with each branch indented
// under its parent; branches of a session no longer listed stand alone.
// Sessions without a question are left out, but not if a branch of them
// has one.
func sessionTree(list []session.Listed) []string {
	byID := map[string]bool{}
	children := map[string][]session.Listed{}
	for _, s := range list {
		byID[s.ID] = true
	}
	var roots []session.Listed
	for _, s := range list {
		if s.Parent != "" && byID[s.Parent] {
			children[s.Parent] = append(children[s.Parent], s)
		} else {
			roots = append(roots, s)
		}
	}
	var out []string
	var walk func(s session.Listed, depth int) bool
	walk = func(s session.Listed, depth int) bool {
		var below []string
		kept := out
		out = nil
		any := false
		for _, c := range children[s.ID] {
			if walk(c, depth+1) {
				any = true
			}
		}
		below, out = out, kept
		if len(s.Turns) == 0 && !any {
			return false
		}
		out = append(out, sessionLine(s, depth))
		out = append(out, below...)
		return true
	}
	for _, s := range roots {
		walk(s, 0)
	}
	return out
}

func sessionLine(s session.Listed, depth int) string {
	first := strings.Join(strings.Fields(s.Title()), " ")
	if r := []rune(first); len(r) > 60 {
		first = string(r[:59]) + "…"
	}
	id := s.ID
	if depth > 0 {
		id = strings.Repeat("  ", depth-1) + "└ " + id
	}
	branch := ""
	if s.Parent != "" {
		branch = fmt.Sprintf("  (from turn %d)", s.FromTurn)
	}
	return fmt.Sprintf("%-26s  %s  %-12s  %s%s", id, s.Started.Local().Format("2006-01-02 15:04"), plural(len(s.Turns), "turn"), first, branch)
}
