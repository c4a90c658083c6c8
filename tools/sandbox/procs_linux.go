//go:build linux

package sandbox

import "path/filepath"

// bwrapPID gives each contained command its own pid namespace: kill -1,
// pkill and killall reach only what the command started, and its /proc
// lists only those. --die-with-parent ends the namespace, and with it
// every process the command left behind (double forks, setsid, nohup,
// tmux), as soon as bwrap ends: bwrap ends when the command's shell does,
// or when aci kills it (a task's kill, a timeout, aci exiting or dying).
var bwrapPID = []string{"--unshare-pid", "--die-with-parent", "--proc", "/proc"}

// pidArgs adds the pid namespace to a bwrap command line.
func pidArgs(out []string) []string { return append(out, bwrapPID...) }

// privateTmpArgs binds the session's private folders over /tmp and
// /var/tmp, before the writable roots below them (a workspace under /tmp
// is bound on top), and takes both out of roots.
func privateTmpArgs(out []string, p Policy, roots []string) ([]string, []string) {
	if p.PrivateTmp == "" {
		return out, roots
	}
	out = append(out, "--bind", filepath.Join(p.PrivateTmp, "tmp"), "/tmp",
		"--bind", filepath.Join(p.PrivateTmp, "var-tmp"), "/var/tmp")
	kept := roots[:0:0]
	for _, r := range roots {
		if r != "/tmp" && r != "/var/tmp" {
			kept = append(kept, r)
		}
	}
	return out, kept
}

// protectedArgs keeps the workspace's existing protected files as they
// are: each is bound read-only over itself. A missing one gets nothing in
// the real workspace (a stand-in there would be seen by the person's
// editor, git and the command): one the command makes is moved out when
// it ends (Sandbox.Command's release).
func protectedArgs(out []string, p Policy) []string {
	existing, _ := protectedNow(p)
	for _, e := range existing {
		out = append(out, "--ro-bind", e, e)
	}
	return out
}
