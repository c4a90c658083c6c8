package windows

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aci-dev/aci/tools/output"
	"github.com/aci-dev/aci/tools/shell"
)

// hint is a note for the model, apart from what a tool printed. The words
// are the windows': the tools underneath only report facts.
func hint(kind, text string) string {
	return `<system_hint type="` + kind + `">` + text + `</system_hint>`
}

// seeMoreOutput tells the model how to see the part of a command's output
// that was cut (docs/protocol.md §3: the note says how to see more).
const seeMoreOutput = "Narrow the command (grep, head, tail, sed -n) or write the output to a file and open it in a file window to see more."

// runHints are the notes that follow a command's output in a bash window.
func runHints(res shell.RunResult, timeout time.Duration) string {
	var hs []string
	if res.CwdGone != "" {
		hs = append(hs, hint("cwd_reset", res.CwdGone+" no longer exists; the command ran in the home folder."))
	}
	if output.Truncated(res.Output) {
		hs = append(hs, hint("output_truncated", seeMoreOutput))
	}
	if res.Containment != "" {
		hs = append(hs, containmentHint(res.Containment))
	} else if len(res.NetDenied) > 0 {
		hs = append(hs, hint("network", "The network proxy refused "+strings.Join(res.NetDenied, ", ")+
			": contained commands reach only the hosts on the allow list, and the others the person allows."))
	}
	if res.Limit != "" {
		hs = append(hs, limitHint(res.Limit))
	}
	if len(res.LinksOut) > 0 {
		hs = append(hs, linksOutHint(res.LinksOut))
	}
	if len(res.ProtectedMoved) > 0 {
		hs = append(hs, protectedHint(res.ProtectedMoved))
	}
	if res.BackgroundEnded {
		hs = append(hs, hint("background_ended", "Processes the command left running in the background were ended when it finished. Use the start action for servers and other long-running jobs."))
	}
	switch {
	case res.TimedOut:
		hs = append(hs, hint("timeout", fmt.Sprintf("The command was killed after %s s (timeout). Run long commands in the background, or give a longer timeout.",
			strconv.FormatFloat(timeout.Seconds(), 'f', -1, 64))))
	case res.Canceled:
		hs = append(hs, hint("canceled", "The command was cancelled and killed."))
	}
	return strings.Join(hs, "\n")
}

// containmentHint says a failure may be the sandbox's doing, and the way out.
func containmentHint(why string) string {
	return hint("sandbox", "This command ran "+why+". If it must, run it again with uncontained=true (the person is asked).")
}

// limitHint says a resource limit stopped the command.
func limitHint(why string) string {
	return hint("limit", "The command was stopped by "+why+". Make it use less (fewer parallel jobs, smaller inputs); the person can raise the limit in ~/.config/aci/settings.json.")
}

// linksOutHint names the links a command made that lead out of the
// workspace: file windows refuse to follow them without asking.
func linksOutHint(links []string) string {
	return hint("links_out", "The command made links that lead outside the workspace: "+strings.Join(links, ", ")+". File windows will not follow them without asking the person.")
}

// protectedHint names the protected files a command created, which were
// moved out of the workspace.
func protectedHint(moved []string) string {
	return hint("protected", "The command created or changed files that other programs obey or run (git folders, start-up files, editor and agent settings), which contained commands may not; they were moved out of the workspace or put back as they were: "+strings.Join(moved, "; ")+". If the person wants one, write it with a file window (the person is asked).")
}
