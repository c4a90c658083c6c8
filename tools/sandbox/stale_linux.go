//go:build linux

package sandbox

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// staleArg finds the session folder of the aci that started a sandbox in
// its command line (every bwrap aci starts names it).
var staleArg = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`/aci-session-(\d+)-[^/\x00]+`)
})

// killStaleSandboxes ends the sandboxes (and so everything in their pid
// namespaces) that an aci killed without notice left running: each
// process and its children die with aci, but one starting up at that
// very moment can miss the signal (bwrap asks for it a few steps after
// it forks). Only this user's processes whose aci is gone are touched.
func killStaleSandboxes() {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	uid := strconv.Itoa(os.Getuid())
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(cmd), "/aci-session-") || !strings.HasSuffix(strings.SplitN(string(cmd), "\x00", 2)[0], "bwrap") {
			continue
		}
		m := staleArg().FindStringSubmatch(string(cmd))
		if m == nil {
			continue
		}
		owner, _ := strconv.Atoi(m[1])
		if owner == os.Getpid() || syscall.Kill(owner, 0) != syscall.ESRCH || !ownedBy(e.Name(), uid) {
			continue
		}
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// ownedBy reports whether process pid runs as user uid.
func ownedBy(pid, uid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "Uid:" {
			return f[1] == uid
		}
	}
	return false
}
