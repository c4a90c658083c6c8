package guard

import "slices"

// Effect is one change a dangerous command makes outside the workspace:
// a path it deletes or moves away (Gone), or one it writes.
type Effect struct {
	Path string
	Gone bool
}

// effect records that the command deletes (gone) or writes real, and
// returns grant, the access that needs.
func (c *cmdChecker) effect(real string, gone bool, grant string) string {
	s := c.shared
	e := Effect{Path: real, Gone: gone}
	if grant != "/" && len(s.effects) < maxGrantPaths && !slices.Contains(s.effects, e) {
		s.effects = append(s.effects, e)
	}
	return grant
}
