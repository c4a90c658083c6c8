//go:build !linux

package sandbox

// Stand-ins exist only under bwrap (Linux); elsewhere nothing is written
// down.

func makeStandIn(string, bool) bool { return false }

func dropStandIn(string, uint64) {}

func inode(string) uint64 { return 0 }

// NoteTemp does nothing on this system.
func NoteTemp(string) (done func()) { return func() {} }

// SweepLeftovers does nothing on this system.
func SweepLeftovers() {}

type leftJournal struct{}

var journal leftJournal

func (leftJournal) touch() {}

func (s *Sandbox) watchTrusted() (done func()) { return func() {} }
