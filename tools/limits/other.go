//go:build !linux

package limits

// Elsewhere than Linux commands run without limits (the shell's own
// process-group handling still ends what they leave behind).

type cgroups struct{}

func newLimiter(v Values, _ bool) *Limiter { return &Limiter{values: v, mech: Off} }

// Run is one command's limits.
type Run struct{ argv []string }

// Start returns argv unchanged.
func (l *Limiter) Start(argv []string, _ bool, _ string) (*Run, error) { return &Run{argv: argv}, nil }

// Argv is the command line to run.
func (r *Run) Argv() []string { return r.argv }

// Stopped is always "" here.
func (r *Run) Stopped(int, string) string { return "" }

// Close does nothing here.
func (r *Run) Close() {}

// Cleanup does nothing here.
func Cleanup() {}

func cgroupMemMB() int64 { return 0 }

// StartStopped returns a Run with nothing to apply.
func (l *Limiter) StartStopped() (*Run, error) { return &Run{}, nil }

// Applies is always false here.
func (r *Run) Applies() bool { return false }

// Apply does nothing here.
func (r *Run) Apply(int) error { return nil }
