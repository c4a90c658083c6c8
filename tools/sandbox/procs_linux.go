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

// protectedArgs keeps the workspace's protected files as they are: an
// existing one is bound read-only over itself; a missing one gets an empty
// read-only stand-in, so that the command can neither create it nor write
// through it. bwrap makes a mount point for a stand-in, an empty file or
// folder at that path on the host, which exists while the command runs;
// the shell removes it afterwards (Sandbox.Command's release).
func protectedArgs(out []string, p Policy) []string {
	existing, files, dirs, _ := protectedNow(p)
	for _, e := range existing {
		out = append(out, "--ro-bind", e, e)
	}
	if p.PrivateTmp == "" {
		return out
	}
	for _, f := range files {
		out = append(out, "--ro-bind", filepath.Join(p.PrivateTmp, standInFile), f)
	}
	for _, d := range dirs {
		out = append(out, "--ro-bind", filepath.Join(p.PrivateTmp, standInDir), d)
	}
	return out
}
