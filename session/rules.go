package session

import (
	"github.com/aci-dev/aci/tools/rules"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/settings"
	"github.com/aci-dev/aci/windows"
)

// loadPolicy reads the settings' permissions (and hooks) for the session's
// workspace (its git root, where .aci/ and .claude/ live) and gives the
// windows the rules; problems are said once.
func (s *Session) loadPolicy(env *windows.Env) {
	root := sandbox.WorkspaceRoot(s.workdir)
	pol, problems := settings.LoadPolicy(root)
	set, more := rules.Load(root, pol)
	for _, p := range append(problems, more...) {
		s.say(p)
	}
	s.policy, s.rules = pol, set
	env.Rules = set
}

// Rules are the session's permission rules (/permissions lists them).
func (s *Session) Rules() *rules.Set { return s.rules }
