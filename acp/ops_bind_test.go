package acp

import (
	"strings"
	"testing"

	"github.com/aci-dev/aci/session"
)

// TestACPBindsEveryOperation: each operation the session's table gives
// an editor form is bound here: a method this server answers, a request
// or update it sends, or an available command it runs.
func TestACPBindsEveryOperation(t *testing.T) {
	sent := map[string]bool{"session/request_permission": true, "available_commands_update": true}
	for _, o := range session.OpsOf(func(o session.Op) bool { return o.ACP != "" }) {
		switch {
		case strings.HasPrefix(o.ACP, "/"):
			if got, _, ok := opOf(o.ACP + " x"); !ok || got.Name != o.Name {
				t.Errorf("%s: %s is not run as a command", o.Name, o.ACP)
			}
		case isKnown(o.ACP) || o.ACP == "session/cancel" || sent[o.ACP]:
		default:
			t.Errorf("%s: %s is neither a method nor an update of this server", o.Name, o.ACP)
		}
	}
	if _, _, ok := opOf("/reset"); ok {
		t.Error("/reset, which has no editor form, ran as a command")
	}
}
