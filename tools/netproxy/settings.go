package netproxy

import (
	"fmt"

	"github.com/aci-dev/aci/tools/settings"
)

// FromSettings builds the policy for a session from the settings read
// at start: the built-in allow list, plus the person's allow list, minus
// the person's and the workspace's deny lists (pr nil: no workspace). A
// workspace file may only narrow (a file anyone can commit to a
// repository must not open the network): its allow list is ignored, and
// said so. Problems (bad rules) are returned to be said at start; what
// could be read still applies.
func FromSettings(p *settings.Person, pr *settings.Project) (Policy, []error) {
	pol := Policy{Allow: Builtin()}
	var problems []error
	if p != nil {
		allow, errs := ParseRules(p.Network.Allow)
		problems = append(problems, wrapAll(p.Path, errs)...)
		deny, errs := ParseRules(p.Network.Deny)
		problems = append(problems, wrapAll(p.Path, errs)...)
		pol.Allow = append(pol.Allow, allow...)
		pol.Deny = append(pol.Deny, deny...)
	}
	if pr != nil && pr.Root != "" {
		path := settings.WorkspacePath(pr.Root)
		if len(pr.Network.Allow) > 0 {
			problems = append(problems, fmt.Errorf("%s: network.allow ignored: a workspace file can only narrow the network (deny); allow hosts in %s", path, settings.UserPath()))
		}
		deny, errs := ParseRules(pr.Network.Deny)
		problems = append(problems, wrapAll(path, errs)...)
		pol.Deny = append(pol.Deny, deny...)
	}
	return pol, problems
}

func wrapAll(path string, errs []error) []error {
	out := make([]error, 0, len(errs))
	for _, e := range errs {
		out = append(out, fmt.Errorf("%s: %w", path, e))
	}
	return out
}
