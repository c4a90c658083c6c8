package shell

import (
	"fmt"
	"io"
	"os"

	"github.com/aci-dev/aci/tools/limits"
	"github.com/aci-dev/aci/tools/sandbox"
)

// newRunDir makes the private folder of one command's own files (its final
// directory, the trap that records it): where sb's commands can be given
// it, or the temp dir.
func newRunDir(sb *sandbox.Sandbox) (string, error) {
	if sb.Contained() {
		return sb.NewRunDir()
	}
	return os.MkdirTemp("", "aci-run-")
}

// startInSession starts the command inside the sandbox sb set up once for
// its session (sandbox.Spawn): no bwrap set up from scratch, and no
// re-execution of aci, since the limits are applied to the command's
// first process while bwrap holds it. It returns nil and no error when
// the command takes the one-shot path instead (no session here, or paths
// writable for this command alone that the session does not have).
func startInSession(command, dir string, out io.Writer, sb *sandbox.Sandbox, net netOpts, writable, env []string) (*shellProc, error) {
	// A grant (what the person allowed this command alone) needs binds
	// the session's sandbox does not have: the one-shot path gives them.
	if !sb.TakesInSession(writable) || sb.Adds(net.grant) {
		return nil, nil
	}
	link, err := net.link(sb)
	if err != nil {
		return nil, err
	}
	if link != nil {
		env = append(env, proxyEnv(link.Port())...)
	}
	run, err := limits.Current().StartStopped()
	if err != nil {
		link.Close()
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		run.Close()
		link.Close()
		return nil, fmt.Errorf("output pipe: %w", err)
	}
	req := sandbox.SpawnRequest{Argv: []string{"bash", "-c", command}, Dir: dir, Env: env, Output: w, Link: link, Writable: writable}
	if run.Applies() {
		req.Setup = run.Apply
	}
	sp, release, ok, err := sb.Spawn(req)
	w.Close() // only the command holds the write end now: EOF when it is gone
	if !ok || err != nil {
		r.Close()
		run.Close()
		link.Close()
		if err != nil {
			return nil, fmt.Errorf("start bash in %s: %w", dir, err)
		}
		return nil, nil
	}
	return runShellProc(&shellProc{run: run, release: release, wait: sp.Wait, pgid: sp.Pid, r: r, link: link}, out, net), nil
}
