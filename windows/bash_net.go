package windows

import (
	"context"
	"net"
	"strconv"
	"strings"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/netproxy"
	"github.com/aci-dev/aci/tools/shell"
)

// netOption gives a contained command its way to the network: the
// session's proxy, asking the person about hosts off the allow list in
// the name of this window and command.
func (w *bashWindow) netOption(command string, background bool) shell.RunOption {
	return shell.Network(w.env.Network, w.netAsker(command, background))
}

// netAsker asks about one host for one command, like a dangerous command:
// "always" remembers the host for the session. A background task runs
// while no one may be watching (the REPL reads the next question): it
// gets only the hosts already allowed for the session.
func (w *bashWindow) netAsker(command string, background bool) netproxy.Asker {
	return func(ctx context.Context, host string, port int) (bool, string) {
		req := ApprovalRequest{Kind: protocol.AskNetwork, WindowID: w.id, Subject: "connect to " + hostLabel(host, port),
			Reason: "`" + oneLine(command) + "` wants a host that is not on the network allow list"}
		if background {
			if w.env.remembered(req) {
				return true, ""
			}
			return false, "background tasks cannot ask the person; run the command in the foreground, or ask the person to allow the host"
		}
		d := w.env.Approver.Approve(ctx, req)
		if d.Allow {
			return true, ""
		}
		return false, DenialText(req, d)
	}
}

// hostLabel names host:port as a person reads it: the port only when it
// is not the web's.
func hostLabel(host string, port int) string {
	if port == 80 || port == 443 {
		if strings.Contains(host, ":") {
			return "[" + host + "]"
		}
		return host
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}
