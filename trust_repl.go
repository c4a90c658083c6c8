package main

import (
	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/ui"
)

// askTrust asks at the terminal, once, whether the folder's project hooks
// and MCP servers may run (and the person's key go to the endpoint its
// .env names), when it defines some the person has not trusted as they
// are now (docs/protocol.md §2, §10); a yes is kept. It reports whether they
// may run this session.
func askTrust(f *session.Factory, repl *ui.REPL, workdir string, say func(string)) bool {
	code := f.FolderCode(workdir)
	if code.Hash == "" || code.Trusted(workdir) {
		return false // nothing to ask; a trusted folder's code runs anyway
	}
	if !repl.AskTrust(code.Lines, code.Changes(workdir)) {
		return false
	}
	if err := session.TrustFolder(workdir, code); err != nil {
		say("the trust could not be kept: " + err.Error())
	}
	return true
}
