package guard

import (
	"testing"

	"github.com/aci-dev/aci/tools/secrets"
)

// A path to any secret store of the one table, built at run time, is
// asked; a workspace's own registry file or a look-alike name is not.
func TestSecretFragmentFollowsTheTable(t *testing.T) {
	g := New(Env{Home: "/home/u", Cwd: t.TempDir()})
	for _, s := range secrets.HomeStores {
		for _, cmd := range []string{
			`cat "$(printf %s ~/` + s + `)"`,
			`python3 -c "import os; print(open(os.path.expanduser('~/` + s + `')).read())"`,
		} {
			if v := g.Check(cmd, ""); !v.Dangerous {
				t.Errorf("%s: not asked", cmd)
			}
		}
	}
	for _, cmd := range []string{
		`cat "$(printf %s .npmrc)"`,
		`cat "$(printf %s notes.sshd)"`,
		`python3 -c "open('.npmrc','w').write('registry=https://r.example/')"`,
	} {
		if v := g.Check(cmd, ""); v.Dangerous {
			t.Errorf("%s: asked (%s)", cmd, v.Reason)
		}
	}
}
