package session

import (
	"github.com/aci-dev/aci/tools/rules"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/settings"
	"github.com/aci-dev/aci/windows"
)

// loadPolicy takes the settings' permissions (and hooks) of the person
// and the session's workspace (its git root, where .aci/ and .claude/
// live), read once at start, and gives the windows the rules; the
// settings' problems are said here, once per session.
func (s *Session) loadPolicy(env *windows.Env) {
	root := sandbox.WorkspaceRoot(s.workdir)
	pol := settings.PolicyOf(s.f.cfg.Person, s.project)
	set, more := rules.Load(root, pol)
	problems := append(settings.Problems(s.f.cfg.Person, s.project), s.f.envProblems...)
	for _, p := range append(problems, more...) {
		s.say(p)
	}
	s.policy, s.rules = pol, set
	env.Rules = set
}

// Rules are the session's permission rules (/permissions lists them).
func (s *Session) Rules() *rules.Set { return s.rules }

// Remembered are the "always" answers this session keeps that no rule
// says, an edit's among them (/permissions lists them with the rules).
func (s *Session) Remembered() []string { return s.wm.Remembered() }
