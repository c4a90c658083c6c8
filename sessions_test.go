package main

import (
	"strings"
	"testing"

	"github.com/aci-dev/aci/session"
)

func TestSessionTree(t *testing.T) {
	list := []session.Listed{ // newest first
		{ID: "d", Parent: "a", FromTurn: 1, Turns: []session.TurnInfo{{Question: "q1"}, {}}},
		{ID: "c", Turns: []session.TurnInfo{{Question: "other"}}},
		{ID: "b", Parent: "a", FromTurn: 2, Turns: []session.TurnInfo{{Question: "q1"}, {}, {}}},
		{ID: "e", Parent: "b", FromTurn: 3, Turns: []session.TurnInfo{{Question: "q1"}, {}, {}}},
		{ID: "a", Turns: []session.TurnInfo{{Question: "q1"}, {}}},
		{ID: "empty"},
		{ID: "orphan", Parent: "gone", FromTurn: 1, Turns: []session.TurnInfo{{Question: "q"}}},
	}
	lines := sessionTree(list)
	wantOrder := []string{"c ", "a ", "└ d", "└ b", "  └ e", "orphan"}
	if len(lines) != len(wantOrder) {
		t.Fatalf("got %d lines:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for i, w := range wantOrder {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d %q, want it to start %q\n%s", i, lines[i], w, strings.Join(lines, "\n"))
		}
	}
	if !strings.Contains(lines[3], "(from turn 2)") {
		t.Errorf("branch line %q does not say where it forked", lines[3])
	}
}
