package shell

import "github.com/aci-dev/aci/tools/sandbox"

// Granted gives one contained command access beyond the sandbox's policy:
// the paths the person allowed it to write, and the machine's /tmp paths
// it names (sandbox.Grant). The caller must have asked the person for
// g.Write; an uncontained command needs none.
func Granted(g sandbox.Grant) RunOption {
	return func(o *runOpts) {
		o.grant.Write = append(o.grant.Write, g.Write...)
		o.grant.Machine = append(o.grant.Machine, g.Machine...)
		o.grant.Read = append(o.grant.Read, g.Read...)
		o.grant.ReadOnlyWorkspace = o.grant.ReadOnlyWorkspace || g.ReadOnlyWorkspace
	}
}
