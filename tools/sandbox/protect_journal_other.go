//go:build !linux

package sandbox

// Grants' mount points exist only under bwrap (Linux); elsewhere nothing
// is written down.

func dropStandIn(string) {}

func inode(string) uint64 { return 0 }

// NoteTemp does nothing on this system.
func NoteTemp(string) (done func()) { return func() {} }

// SweepLeftovers does nothing on this system.
func SweepLeftovers() {}

type leftJournal struct{}

func (*leftJournal) touch() {}

func (*leftJournal) close() {}

func (s *Sandbox) watchTrusted() (done func()) { return func() {} }
