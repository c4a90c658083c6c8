//go:build race

package agent

// raceOn: the race detector slows the long scripted sessions tenfold and
// learns nothing more from them than from the short ones.
const raceOn = true
