//go:build !linux

package sandbox

// WatchKept reports nothing where secret files are not kept back by
// bwrap (see secrets_linux.go).
func (s *Sandbox) WatchKept() (done func() []string) { return func() []string { return nil } }

// keptWatch is not made here.
type keptWatch struct{}

func (*keptWatch) close() {}
