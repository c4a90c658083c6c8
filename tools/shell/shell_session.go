package shell

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/aci-dev/aci/tools/netproxy"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/secrets"
)

// Shell runs commands one after another in a working directory that
// follows `cd`, as a terminal would. If that directory disappears, the next
// command runs in the directory the Shell was made with, and says so.
type Shell struct {
	mu    sync.Mutex
	home  string
	dir   string
	links *linkScanner     // finds links out of the workspace after each command
	sb    *sandbox.Sandbox // nil: commands run uncontained
}

// NewShell returns a Shell starting in dir ("" = the current directory)
// whose commands run uncontained (their environment still scrubbed of
// credentials).
func NewShell(dir string) (*Shell, error) { return NewContainedShell(dir, nil) }

// NewContainedShell is NewShell with every command contained by sb (nil:
// not contained).
func NewContainedShell(dir string, sb *sandbox.Sandbox) (*Shell, error) {
	d, err := resolveWorkDir(dir)
	if err != nil {
		return nil, fmt.Errorf("new shell: %w", err)
	}
	if !sb.Contained() {
		sb = nil
	}
	sb.Warm() // the session's sandbox, set up while the first command is being thought of
	return &Shell{home: d, dir: d, links: newLinkScanner(sandbox.WorkspaceRoot(d)), sb: sb}, nil
}

// Close lets go of what the Shell keeps between commands (its watch of
// the workspace's folders for links). Its background tasks are not ended.
func (s *Shell) Close() { s.links.close() }

// Contained reports whether the Shell's commands run contained, so that
// asking to run one uncontained means something.
func (s *Shell) Contained() bool { return s.sb.Contained() }

// Sandbox is what contains the Shell's commands; nil when nothing does.
func (s *Shell) Sandbox() *sandbox.Sandbox { return s.sb }

// RunOption changes how one command runs.
type RunOption func(*runOpts)

type runOpts struct {
	uncontained bool
	net         netOpts
	grant       sandbox.Grant
	live        func(taskID string) io.Writer
	secrets     *secrets.Redactor
}

// Secrets keeps set's values out of the command's output and environment
// (a variable holding one is not inherited, whatever its name). Without
// it nothing is redacted.
func Secrets(set *secrets.Redactor) RunOption {
	return func(o *runOpts) { o.secrets = set }
}

// OutputTo tees the command's raw output, as it arrives, to the writer
// live returns when the command starts (taskID: a background task's id,
// "" for a foreground run; a nil writer: none). The writer must never
// block: the command's pipe is read through it. It is closed, when it is
// an io.Closer, once the output has ended. A nil live does nothing.
func OutputTo(live func(taskID string) io.Writer) RunOption {
	return func(o *runOpts) { o.live = live }
}

// netOpts are a contained command's way to the network, and the access
// the person granted it (grant.go): what reaches the sandbox per command.
type netOpts struct {
	proxy *netproxy.Proxy // nil: no network at all
	ask   netproxy.Asker
	grant sandbox.Grant
	// live rides along to where the process starts: where its output is
	// teed as it arrives (OutputTo).
	live func(taskID string) io.Writer
	// secrets ride along too: what the output and the environment must
	// not carry (Secrets).
	secrets *secrets.Redactor
}

// perRun adds to n what rides along to where the process starts.
func perRun(n netOpts, o runOpts) netOpts {
	n.live, n.secrets = o.live, o.secrets
	return n
}

// Network lets a contained command reach the network through proxy, with
// ask deciding the hosts the proxy's policy does not know. Without it a
// contained command has no network (where the sandbox can keep it off);
// an uncontained one always has the machine's.
func Network(proxy *netproxy.Proxy, ask netproxy.Asker) RunOption {
	return func(o *runOpts) { o.net = netOpts{proxy: proxy, ask: ask} }
}

// Uncontained runs the command outside the sandbox. The caller must have
// asked the person first: this is a dangerous action.
func Uncontained() RunOption { return func(o *runOpts) { o.uncontained = true } }

// sandboxFor is the Shell's sandbox unless the options lift it, and the
// network the options give.
func (s *Shell) sandboxFor(opts []RunOption) (*sandbox.Sandbox, netOpts) {
	o := options(opts)
	if o.uncontained {
		// Contains nothing, but still moves away the protected files it
		// makes in the workspace.
		return s.sb.Uncontained(), netOpts{}
	}
	return s.sb, o.net
}

func options(opts []RunOption) runOpts {
	var o runOpts
	for _, f := range opts {
		f(&o)
	}
	o.net.grant = o.grant
	return o
}

// Dir is the directory the next command starts in.
func (s *Shell) Dir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dir
}

// workDir returns the directory to run in, falling back to home, and the
// directory that was gone when it had to.
func (s *Shell) workDir() (dir, gone string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if fi, err := os.Stat(s.dir); err != nil || !fi.IsDir() {
		gone = s.dir
		s.dir = s.home
	}
	return s.dir, gone
}

// Run is RunCommand in the Shell's directory; the directory the command
// ended in becomes the Shell's.
func (s *Shell) Run(ctx context.Context, command string, timeout time.Duration, limit int, opts ...RunOption) (RunResult, error) {
	dir, gone := s.workDir()
	start := time.Now()
	sb, net := s.sandboxFor(opts)
	res, err := runCommand(ctx, command, dir, timeout, limit, sb, perRun(net, options(opts)))
	res.CwdGone = gone
	res.LinksOut = s.links.scan(start)
	if res.Dir != "" {
		s.mu.Lock()
		s.dir = res.Dir
		s.mu.Unlock()
	}
	return res, err
}

// Start is StartTask in the Shell's directory. A background task's `cd`
// does not move the Shell.
func (s *Shell) Start(command string, limit int, opts ...RunOption) (*Task, error) {
	dir, _ := s.workDir()
	sb, net := s.sandboxFor(opts)
	return startTask(command, dir, limit, sb, perRun(net, options(opts)))
}
