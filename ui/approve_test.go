package ui

import (
	"strings"
	"testing"

	"github.com/aci-dev/aci/windows"
)

func TestApprovalShowsTheDangerousPart(t *testing.T) {
	req := windows.ApprovalRequest{Kind: "command", Subject: "cd build && rm -rf ~/src", Reason: "deletes files recursively", Part: "rm -rf ~/src"}

	var plain strings.Builder
	(&termApprover{out: newRenderer(&plain, false, false)}).show(req)
	want := "⚠ approval needed: cd build && rm -rf ~/src\n" +
		"                               ^^^^^^^^^^^^\n" +
		"  why: deletes files recursively\n"
	if plain.String() != want {
		t.Errorf("without colour:\n%s\nwant\n%s", plain.String(), want)
	}

	var colored strings.Builder
	r := newRenderer(&colored, true, false)
	(&termApprover{out: r}).show(req)
	if !strings.Contains(colored.String(), r.alert.Sprint("rm -rf ~/src")) {
		t.Errorf("the part is not highlighted: %q", colored.String())
	}
	if strings.Contains(colored.String(), "^^^") {
		t.Errorf("carets with colour: %q", colored.String())
	}
}
